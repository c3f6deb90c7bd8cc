// traced_ns and diff_source_lines (gpuscope/analysis_source.h).
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <utility>

#include "gpuscope/analysis_source.h"
#include "gpuscope/analysis_stats.h"

namespace gpuscope::analysis {
namespace {

// One line of one kernel in one capture: time, samples, stalls.
struct LineTime {
  double ns = 0;
  uint64_t samples = 0;
  std::map<std::string, uint64_t> stalls;
};

// A capture's lines by (kernel, place), and each kernel's samples over every process that ran it.
struct Lines {
  std::map<std::pair<std::string, std::string>, LineTime> lines;
  std::map<std::string, uint64_t> kernel_samples;
};

Lines line_times(const Trace& trace, const SourceResolver* resolver) {
  Lines out;
  if (!has_pc_samples(trace) || resolver == nullptr) return out;
  // Every kernel and line (top 0), no SASS (disassembled 0): only the line tables are read.
  const SourceProfile profile = profile_source(trace, resolver, 0, 0);
  for (const KernelSource& k : profile.kernels) {
    if (k.samples == 0) continue;
    out.kernel_samples[k.name] += k.samples;
    const double kernel_ns = traced_ns(trace, k);
    for (const SourceHotspot& line : k.lines) {
      LineTime& t = out.lines[{k.name, short_place(line.location)}];
      t.ns += kernel_ns * static_cast<double>(line.samples) / static_cast<double>(k.samples);
      t.samples += line.samples;
      for (const StallSamples& s : line.stalls) t.stalls[s.reason] += s.samples;
    }
  }
  return out;
}

// The row's side for one capture: nothing when the line had no samples there.
void fill(const Lines& capture, const std::pair<std::string, std::string>& key, double& ns, double& share,
          std::string& stall, double& stall_percent) {
  const auto it = capture.lines.find(key);
  if (it == capture.lines.end() || it->second.samples == 0) return;
  const LineTime& t = it->second;
  const uint64_t kernel_samples = capture.kernel_samples.at(key.first);
  ns = t.ns;
  share = 100.0 * static_cast<double>(t.samples) / static_cast<double>(kernel_samples);
  const auto top = std::max_element(t.stalls.begin(), t.stalls.end(),
                                    [](const auto& a, const auto& b) { return a.second < b.second; });
  if (top == t.stalls.end()) return;
  stall = top->first;
  stall_percent = 100.0 * static_cast<double>(top->second) / static_cast<double>(t.samples);
}

}  // namespace

double traced_ns(const Trace& trace, const KernelSource& k) {
  double total = 0;
  for (const Kernel& launch : trace.kernels)
    if (launch.pid == k.pid && launch.run_id == k.run_id && timed(launch.start, launch.end) &&
        trace.strings.get(launch.mangled_name) == k.mangled)
      total += static_cast<double>(launch.end - launch.start);
  return total;
}

std::vector<SourceLineDiff> diff_source_lines(const Trace& base, const Trace& next, const SourceResolver* resolver) {
  const Lines before = line_times(base, resolver), after = line_times(next, resolver);
  // The lines of kernels sampled in both, each once.
  std::set<std::pair<std::string, std::string>> keys;
  for (const Lines* capture : {&before, &after})
    for (const auto& [key, t] : capture->lines)
      if (!key.second.empty() && before.kernel_samples.count(key.first) && after.kernel_samples.count(key.first))
        keys.insert(key);
  std::vector<SourceLineDiff> out;
  for (const auto& key : keys) {
    SourceLineDiff row;
    row.kernel = key.first;
    row.place = key.second;
    fill(before, key, row.base_ns, row.base_share, row.base_stall, row.base_stall_percent);
    fill(after, key, row.new_ns, row.new_share, row.new_stall, row.new_stall_percent);
    out.push_back(std::move(row));
  }
  std::stable_sort(out.begin(), out.end(), [](const SourceLineDiff& x, const SourceLineDiff& y) {
    return std::fabs(x.new_ns - x.base_ns) > std::fabs(y.new_ns - y.base_ns);
  });
  return out;
}

}  // namespace gpuscope::analysis

// traced_ns and diff_source_lines (gpuscope/analysis_source.h).
#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "gpuscope/analysis_source.h"
#include "gpuscope/analysis_stats.h"

namespace gpuscope::analysis {
namespace {

// One line of one kernel in one capture: time, share, top stall.
struct LineTime {
  double ns = 0;
  uint64_t samples = 0, kernel_samples = 0;
  std::map<std::string, uint64_t> stalls;
};

using Lines = std::map<std::pair<std::string, std::string>, LineTime>;  // (kernel, place)

Lines line_times(const Trace& trace, const SourceResolver* resolver) {
  Lines out;
  if (!has_pc_samples(trace) || resolver == nullptr) return out;
  // Every kernel and line (top 0), no SASS (disassembled 0): only the line tables are read.
  const SourceProfile profile = profile_source(trace, resolver, 0, 0);
  for (const KernelSource& k : profile.kernels) {
    if (k.samples == 0) continue;
    const double kernel_ns = traced_ns(trace, k);
    for (const SourceHotspot& line : k.lines) {
      LineTime& t = out[{k.name, short_place(line.location)}];
      t.ns += kernel_ns * static_cast<double>(line.samples) / static_cast<double>(k.samples);
      t.samples += line.samples;
      for (const StallSamples& s : line.stalls) t.stalls[s.reason] += s.samples;
    }
    // The kernel's samples, for the shares: also on its lines that were not sampled here.
    for (auto& [key, t] : out)
      if (key.first == k.name) t.kernel_samples += k.samples;
  }
  return out;
}

void fill(const LineTime* t, double& ns, double& share, std::string& stall, double& stall_percent) {
  if (t == nullptr || t->samples == 0) return;
  ns = t->ns;
  share = t->kernel_samples ? 100.0 * static_cast<double>(t->samples) / static_cast<double>(t->kernel_samples) : 0;
  const auto top = std::max_element(t->stalls.begin(), t->stalls.end(),
                                    [](const auto& a, const auto& b) { return a.second < b.second; });
  if (top == t->stalls.end()) return;
  stall = top->first;
  stall_percent = 100.0 * static_cast<double>(top->second) / static_cast<double>(t->samples);
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
  std::map<std::string, bool> in_base, in_new;  // kernels with lines in each capture
  for (const auto& [key, t] : before) in_base[key.first] = true;
  for (const auto& [key, t] : after) in_new[key.first] = true;
  std::map<std::pair<std::string, std::string>, SourceLineDiff> rows;
  for (const Lines* lines : {&before, &after})
    for (const auto& [key, t] : *lines)
      if (in_base.count(key.first) && in_new.count(key.first) && !key.second.empty())
        if (!rows.count(key)) {
          SourceLineDiff row;
          row.kernel = key.first;
          row.place = key.second;
          rows.emplace(key, std::move(row));
        }
  std::vector<SourceLineDiff> out;
  for (auto& [key, row] : rows) {
    const auto b = before.find(key), a = after.find(key);
    fill(b == before.end() ? nullptr : &b->second, row.base_ns, row.base_share, row.base_stall, row.base_stall_percent);
    fill(a == after.end() ? nullptr : &a->second, row.new_ns, row.new_share, row.new_stall, row.new_stall_percent);
    out.push_back(std::move(row));
  }
  std::stable_sort(out.begin(), out.end(), [](const SourceLineDiff& x, const SourceLineDiff& y) {
    return std::fabs(x.new_ns - x.base_ns) > std::fabs(y.new_ns - y.base_ns);
  });
  return out;
}

}  // namespace gpuscope::analysis

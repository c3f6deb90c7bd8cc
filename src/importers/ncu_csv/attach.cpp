// --metrics-from ncu.csv: ncu's per-launch metrics attached to a capture of the same program.
// The i-th launch ncu profiled of a kernel is the i-th launch of that kernel in the capture, by
// start time (for a bench capture, in its first run): ncu serializes and profiles launches in
// the program's order. ncu's -k and -c keep this (its launches of a kernel are then still the
// first ones); --launch-skip shifts it onto later launches (docs/import.md).
#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <unordered_set>

#include "common/error.h"
#include "importers/ncu_csv/kernel_names.h"
#include "importers/ncu_csv/ncu_file.h"
#include "importers/ncu_csv/ncu_importer.h"
#include "importers/ncu_csv/trace_parts.h"

namespace gpuscope {

namespace {

using ncu::File;
using ncu::Launch;

using LaunchKey = std::tuple<uint32_t, uint32_t, uint32_t>;  // run, pid, correlation id

// The capture's kernels by name (demangled, else mangled), each name's launches in start order.
struct CaptureKernels {
  std::vector<std::string> names, mangled;
  std::vector<std::vector<const Kernel*>> launches;
};

CaptureKernels group_kernels(const Trace& trace) {
  uint32_t first_run = UINT32_MAX;
  for (const Kernel& k : trace.kernels) first_run = std::min(first_run, k.run_id);
  CaptureKernels out;
  std::map<std::string, size_t> index;
  for (const Kernel& k : trace.kernels) {
    if (k.run_id != first_run) continue;
    const std::string& demangled = trace.strings.get(k.name);
    const std::string& name = demangled.empty() ? trace.strings.get(k.mangled_name) : demangled;
    auto [it, fresh] = index.try_emplace(name, out.names.size());
    if (fresh) {
      out.names.push_back(name);
      out.mangled.push_back(trace.strings.get(k.mangled_name));
      out.launches.emplace_back();
    }
    out.launches[it->second].push_back(&k);
  }
  for (auto& launches : out.launches)
    std::stable_sort(launches.begin(), launches.end(),
                     [](const Kernel* a, const Kernel* b) { return a->start < b->start; });
  return out;
}

// "a, b, c and 4 more".
std::string some_of(const std::set<std::string>& names) {
  std::string out;
  size_t n = 0;
  for (const std::string& name : names) {
    if (n++ == 3) return out + " and " + std::to_string(names.size() - 3) + " more";
    out += (out.empty() ? "" : ", ") + name;
  }
  return out;
}

}  // namespace

void attach_ncu_metrics(const std::string& path, Trace& trace) {
  const File file = ncu::read_file(path);
  const CaptureKernels capture = group_kernels(trace);
  const ncu::NameMatcher matcher(capture.names, capture.mangled);

  // Launches that already have a value of a metric (gpuscope's own --metrics), and launch keys
  // several kernels share (the nodes of one graph launch), which no metric can be linked to.
  std::set<std::pair<LaunchKey, StringId>> measured;
  for (const KernelMetric& m : trace.kernel_metrics) measured.insert({{m.run_id, m.pid, m.correlation_id}, m.metric});
  std::map<LaunchKey, int> kernels_per_key;
  for (const Kernel& k : trace.kernels) ++kernels_per_key[{k.run_id, k.pid, k.correlation_id}];

  const std::vector<StringId> metric_ids = ncu::intern_metrics(file, trace);
  std::map<std::string, int> group_of;  // ncu name -> capture kernel (or -1 / -2)
  std::vector<size_t> next_launch(capture.names.size(), 0);
  std::set<std::string> unknown, ambiguous, surplus;
  uint64_t unmatched = 0, unlinkable = 0, duplicates = 0, matched = 0;
  std::set<uint32_t> pids;
  for (const Launch& launch : file.launches) {
    auto [it, fresh] = group_of.try_emplace(launch.kernel_name, 0);
    if (fresh) it->second = matcher.match(launch.kernel_name);
    const int g = it->second;
    if (g < 0) {
      ++unmatched;
      (g == -1 ? unknown : ambiguous).insert(launch.kernel_name);
      continue;
    }
    if (next_launch[g] >= capture.launches[g].size()) {
      ++unmatched;
      surplus.insert(capture.names[g]);
      continue;
    }
    const Kernel& k = *capture.launches[g][next_launch[g]++];
    const LaunchKey key{k.run_id, k.pid, k.correlation_id};
    if (k.correlation_id == 0 || kernels_per_key[key] > 1) {
      ++unlinkable;
      continue;
    }
    ++matched;
    pids.insert(k.pid);
    for (const auto& [index, value] : launch.metrics) {
      if (measured.count({key, metric_ids[index]})) {
        ++duplicates;  // the capture's own measurement of the same launch stays
        continue;
      }
      trace.kernel_metrics.push_back({k.pid, k.correlation_id, metric_ids[index], value, k.run_id});
    }
  }

  if (matched == 0) {
    std::set<std::string> ncu_names;
    for (const Launch& l : file.launches) ncu_names.insert(l.kernel_name);
    std::set<std::string> names(capture.names.begin(), capture.names.end());
    throw Error(path + ": none of its " + std::to_string(file.launches.size()) +
                " launches matches a kernel of the capture (ncu: " + some_of(ncu_names) +
                "; capture: " + (names.empty() ? "no kernels" : some_of(names)) + ")");
  }

  const uint32_t pid = *pids.begin();
  trace.metric_collections.push_back(ncu::collection_row(file, path, pid, matched));
  if (unmatched) {
    std::string detail = "ncu launches with no launch in the capture to attach to:";
    if (!unknown.empty()) detail += " kernels not in the capture (" + some_of(unknown) + ")";
    if (!ambiguous.empty()) detail += " names matching several kernels (" + some_of(ambiguous) + ")";
    if (!surplus.empty()) detail += " more launches than the capture has of " + some_of(surplus);
    trace.data_loss.push_back({pid, "ncu_launches_unmatched", unmatched, detail + "; their metrics are left out"});
  }
  if (unlinkable)
    trace.data_loss.push_back({pid, "ncu_launches_unlinkable", unlinkable,
                               "ncu launches matched to a capture kernel without its own correlation id (a graph "
                               "node); their metrics are left out"});
  if (duplicates)
    trace.data_loss.push_back({pid, "ncu_metrics_already_measured", duplicates,
                               "ncu values of metrics the capture already measured on the same launch; the "
                               "capture's values are kept"});
  ncu::record_skipped(file, pid, trace);
}

}  // namespace gpuscope

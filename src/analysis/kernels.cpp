// Kernel summary: launches grouped by demangled name, with duration statistics
// and the launch configuration (the most common one when it varies).
#include <map>
#include <string>

#include "analysis/grouping.h"
#include "gpuscope/analysis.h"

namespace gpuscope::analysis {
namespace {

using detail::kernel_name;

LaunchConfig config_of(const Kernel& k) {
  LaunchConfig c;
  for (int i = 0; i < 3; ++i) {
    c.grid[i] = k.grid[i];
    c.block[i] = k.block[i];
  }
  c.registers_per_thread = k.registers_per_thread;
  c.static_shared_bytes = k.static_shared_bytes;
  c.dynamic_shared_bytes = k.dynamic_shared_bytes;
  return c;
}

}  // namespace

std::vector<KernelGroup> summarize_kernels(const Trace& trace) {
  detail::DurationGroups<std::string> durations;
  std::map<std::string, std::map<LaunchConfig, size_t>> configs;
  for (const Kernel& k : trace.kernels) {
    std::string name = kernel_name(trace, k);
    durations.add(name, duration(k.start, k.end));
    ++configs[name][config_of(k)];
  }

  std::vector<KernelGroup> rows;
  durations.for_each([&](const std::string& name, const Stats& stats) {
    KernelGroup g;
    g.name = name;
    g.duration = stats;
    const auto& seen = configs[name];
    g.distinct_configs = seen.size();
    size_t best = 0;
    // Map order is ascending, and only a strictly larger count replaces the
    // pick, so ties go to the smallest config: deterministic.
    for (const auto& [config, count] : seen) {
      if (count > best) {
        best = count;
        g.config = config;
      }
    }
    rows.push_back(std::move(g));
  });
  detail::sort_by_total_then_name(
      rows, [](const KernelGroup& g) { return g.duration.total; },
      [](const KernelGroup& g) { return g.name; });
  return rows;
}

}  // namespace gpuscope::analysis

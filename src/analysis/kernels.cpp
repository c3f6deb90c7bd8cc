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
  detail::GroupsByName groups;                          // by (demangled, mangled) string ids
  std::vector<std::vector<double>> durations;           // per group
  std::vector<std::map<LaunchConfig, size_t>> configs;  // per group
  for (const Kernel& k : trace.kernels) {
    const uint64_t ids = (static_cast<uint64_t>(k.name) << 32) | k.mangled_name;
    const size_t g = groups.group(ids, [&] { return kernel_name(trace, k); });
    if (g == durations.size()) durations.emplace_back(), configs.emplace_back();
    durations[g].push_back(static_cast<double>(duration(k.start, k.end)));
    ++configs[g][config_of(k)];
  }

  std::vector<KernelGroup> rows;
  for (const auto& [name, group] : groups.names()) {
    KernelGroup g;
    g.name = name;
    g.duration = describe(std::move(durations[group]));
    const auto& seen = configs[group];
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
  }
  detail::sort_by_total_then_name(
      rows, [](const KernelGroup& g) { return g.duration.total; }, [](const KernelGroup& g) { return g.name; });
  return rows;
}

}  // namespace gpuscope::analysis

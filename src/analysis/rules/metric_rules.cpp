// Shared pieces of the hardware-metric rules (metric_rules.h).
#include "analysis/rules/metric_rules.h"

#include <fmt/format.h>

#include <algorithm>

namespace gpuscope::analysis::rules {

std::vector<KernelMetrics> top_metric_kernels(const Trace& trace) {
  std::vector<KernelMetrics> out;
  for (KernelMetrics& k : analyze_kernel_metrics(trace))
    if (k.values.rank < kMetricTopKernels && k.values.kernel_share_percent >= kMetricMinKernelShare)
      out.push_back(std::move(k));
  return out;
}

bool far_from_roof(const KernelMetrics& k) {
  return k.roofline && k.roofline->roof_percent && *k.roofline->roof_percent < kFarFromRoofPercent;
}

bool has_bank_conflicts(const KernelMetrics& k) {
  return k.memory && k.memory->conflict_cycle_percent && *k.memory->conflict_cycle_percent >= kConflictCyclePercent;
}

bool has_tail(const KernelMetrics& k) {
  if (!k.occupancy || !k.occupancy->theoretical) return false;
  const Occupancy& o = *k.occupancy->theoretical;
  return o.waves > 1.0 && o.last_wave_percent < 100.0;
}

bool at_roof(const KernelMetrics& k) {
  return k.sol && std::max(k.sol->sm_percent, k.sol->memory_percent) >= kSolAtRoofPercent;
}

std::string pct(double percent) { return fmt::format("{:.1f}%", percent); }

std::string flops_rate(double v) {
  if (v >= 1e12) return fmt::format("{:.1f} TFLOP/s", v / 1e12);
  if (v >= 1e9) return fmt::format("{:.1f} GFLOP/s", v / 1e9);
  return fmt::format("{:.1f} MFLOP/s", v / 1e6);
}

std::string flop_count(double v) {
  if (v >= 1e12) return fmt::format("{:.1f} TFLOP", v / 1e12);
  if (v >= 1e9) return fmt::format("{:.1f} GFLOP", v / 1e9);
  if (v >= 1e6) return fmt::format("{:.1f} MFLOP", v / 1e6);
  return fmt::format("{:.0f} FLOP", v);
}

}  // namespace gpuscope::analysis::rules

// What the hardware-metric rules share: which kernels they judge, their thresholds (so one rule
// can tell whether another counts the same kernel's time), and wording for evidence.
// docs/rules.md documents each rule; docs/metrics.md the metrics behind them.
#pragma once

#include <string>
#include <vector>

#include "gpuscope/analysis_metrics.h"

namespace gpuscope::analysis::rules {

// Kernels worth a recommendation: among the 5 kernels with the most time, those with >= 10 %
// of all kernel time (as low_occupancy), and metrics.
constexpr size_t kMetricTopKernels = 5;
constexpr double kMetricMinKernelShare = 10.0;  // percent of all kernel time
std::vector<KernelMetrics> top_metric_kernels(const Trace& trace);

// Thresholds, percent (docs/rules.md says why each).
constexpr double kFarFromRoofPercent = 50.0;    // achieved below half the attainable FLOP/s
constexpr double kConflictCyclePercent = 5.0;   // extra shared wavefronts >= 5 % of SM cycles
constexpr double kDominantStallPercent = 40.0;  // one reason >= 40 % of the stall cycles
constexpr double kBusyIssuePercent = 60.0;      // issue slots this busy hide stalls

bool far_from_roof(const KernelMetrics& k);
bool has_bank_conflicts(const KernelMetrics& k);
// A partial last wave after more than one wave: tail_effect counts this kernel's time too.
bool has_tail(const KernelMetrics& k);
// A unit at >= 80 % of its peak: the kernel is at a roof and stalls or occupancy matter little.
bool at_roof(const KernelMetrics& k);

std::string pct(double percent);             // "62.1%"
std::string flops_rate(double flops_per_s);  // "12.4 TFLOP/s"
std::string flop_count(double flops);        // "137.4 GFLOP"

}  // namespace gpuscope::analysis::rules

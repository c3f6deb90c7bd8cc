// Private to diff: how kernel launches are grouped (shared by the duration
// comparison in diff.cpp and the metric comparison in diff_metrics.cpp, so a
// kernel is the same row in both) and the metric comparison itself.
#pragma once

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "analysis/grouping.h"
#include "gpuscope/analysis_diff.h"

namespace gpuscope::analysis::detail {

// Kernels are matched by demangled name; a name that runs with more than one
// launch configuration in either file is split by configuration (docs/diff.md).
class KernelKeys {
 public:
  KernelKeys(const Trace& base, const Trace& next);
  // (name, configuration); the configuration is empty when the name is not split.
  std::pair<std::string, std::string> of(const Trace& trace, const Kernel& k) const;

 private:
  std::set<std::string> split_;
};

// A base median of 0 (no bank conflicts, an idle tensor pipe) leaves the relative change and
// its bootstrap interval undefined, yet a metric that goes from 0 to something is exactly
// what should be flagged: there the rank test alone decides (Slower = higher).
void judge_from_zero(Comparison& c, const CompareOptions& options);

// Compares each kernel metric per kernel group (diff_metrics.cpp). Empty unless
// both traces have kernel metrics. by_runs: one value per run (the median of the
// run's launches) instead of one per launch.
std::vector<MetricDiffItem> diff_kernel_metrics(const Trace& base, const Trace& next, bool by_runs,
                                                const CompareOptions& options);

// Compares each GPU-wide sampled metric by its per-run means (diff_utilization.cpp). Empty
// unless both traces have GPU samples.
std::vector<UtilizationDiffItem> diff_utilization(const Trace& base, const Trace& next, const CompareOptions& options);

}  // namespace gpuscope::analysis::detail

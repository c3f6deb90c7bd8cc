// diff of GPU utilization (`--gpu-metrics`): each GPU-wide metric becomes one value per run,
// its mean over the run's samples weighted by their windows, and the runs of the two files are
// compared like any other per-run sample. A sample's window, not its count, is the weight: GPM's
// windows vary (~100 ms, and a short last one at exit).
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "analysis/diff_internal.h"
#include "gpuscope/metric_sets.h"

namespace gpuscope::analysis::detail {
namespace {

struct WeightedSum {
  double value_ns = 0;  // sum of value x window length
  double ns = 0;        // sum of window lengths
};

using RunSums = std::map<std::string, std::map<uint32_t, WeightedSum>>;  // metric -> run -> sum

// metric -> run id -> the run's weighted sum. NaN values (NVML could not compute one) are
// absent, as in the report.
RunSums run_sums(const Trace& trace) {
  RunSums sums;
  for (const GpuMetricSample& s : trace.gpu_metric_samples) {
    const double ns = static_cast<double>(s.end - s.start);
    if (!std::isfinite(s.value) || !(ns > 0)) continue;
    WeightedSum& w = sums[trace.strings.get(s.metric)][s.run_id];
    w.value_ns += s.value * ns;
    w.ns += ns;
  }
  return sums;
}

// The per-run means of `metric`; none when the file never sampled it.
std::vector<double> run_means(const RunSums& sums, const std::string& metric) {
  std::vector<double> means;
  auto it = sums.find(metric);
  if (it != sums.end())
    for (const auto& [run, w] : it->second) means.push_back(w.value_ns / w.ns);
  return means;
}

}  // namespace

std::vector<UtilizationDiffItem> diff_utilization(const Trace& base, const Trace& next, const CompareOptions& options) {
  if (base.gpu_metric_samples.empty() || next.gpu_metric_samples.empty()) return {};
  const RunSums base_sums = run_sums(base), new_sums = run_sums(next);
  std::set<std::string> names;
  for (const RunSums* sums : {&base_sums, &new_sums})
    for (const auto& [name, runs] : *sums) names.insert(name);
  std::vector<UtilizationDiffItem> items;
  for (const std::string& name : names) {
    items.push_back({name, compare_samples(run_means(base_sums, name), run_means(new_sums, name), options)});
    judge_from_zero(items.back().cmp, options);
  }
  std::stable_sort(items.begin(), items.end(), [](const UtilizationDiffItem& a, const UtilizationDiffItem& b) {
    return std::make_tuple(gpu_sample_rank(a.metric), a.metric) < std::make_tuple(gpu_sample_rank(b.metric), b.metric);
  });
  return items;
}

}  // namespace gpuscope::analysis::detail

// diff of kernel metrics: each metric value finds its launch by (run, pid,
// correlation id), launches are grouped as diff groups kernels (KernelKeys),
// and each (kernel group, metric) is compared with compare_samples.
#include <algorithm>
#include <limits>
#include <map>
#include <tuple>

#include "analysis/diff_internal.h"
#include "analysis/grouping.h"
#include "gpuscope/analysis_runs.h"
#include "gpuscope/metric_sets.h"

namespace gpuscope::analysis {
namespace detail {
namespace {

using LaunchKey = std::tuple<uint32_t, uint32_t, uint32_t>;  // run, pid, correlation id
using GroupKey = std::pair<std::string, std::string>;        // kernel name, configuration
constexpr size_t kAmbiguous = std::numeric_limits<size_t>::max();

struct Gathered {
  std::vector<std::pair<uint32_t, double>> values[2];  // (run id, value) per side
};

// Launch lookup for one trace. A key shared by several kernels (the nodes of one
// graph launch share its correlation id) is ambiguous: its metrics cannot be
// attributed, as in the report (analysis_metrics.h).
std::map<LaunchKey, size_t> launches_of(const Trace& trace) {
  std::map<LaunchKey, size_t> launch;
  for (size_t i = 0; i < trace.kernels.size(); ++i) {
    const Kernel& k = trace.kernels[i];
    auto [it, fresh] = launch.try_emplace(LaunchKey{k.run_id, k.pid, k.correlation_id}, i);
    if (!fresh) it->second = kAmbiguous;
  }
  return launch;
}

// Position of a metric in the metric sets (sol first), so rows read in the order the
// report shows them; metrics the sets do not know come after, by name.
size_t metric_rank(const std::string& metric) {
  static const std::map<std::string, size_t> ranks = [] {
    std::map<std::string, size_t> out;
    for (const MetricSet& set : metric_sets())
      for (const MetricInfo& m : set.metrics) out.try_emplace(m.name, out.size());
    return out;
  }();
  auto it = ranks.find(metric);
  return it == ranks.end() ? ranks.size() : it->second;
}

std::vector<double> samples_of(const std::vector<std::pair<uint32_t, double>>& values, bool by_runs) {
  if (by_runs) return per_run_medians(values);
  std::vector<double> out;
  for (const auto& [run, value] : values) out.push_back(value);
  return out;
}

}  // namespace

void judge_from_zero(Comparison& c, const CompareOptions& options) {
  if (c.base_median != 0 || c.new_median == 0 || c.verdict != Verdict::NoChange) return;
  if (!(c.test.p_value < options.alpha)) return;
  c.significant = true;
  c.verdict = c.new_median > 0 ? Verdict::Slower : Verdict::Faster;
}

std::vector<MetricDiffItem> diff_kernel_metrics(const Trace& base, const Trace& next, bool by_runs,
                                                const CompareOptions& options) {
  if (base.kernel_metrics.empty() || next.kernel_metrics.empty()) return {};
  const Trace* traces[2] = {&base, &next};
  const KernelKeys keys(base, next);
  std::map<std::tuple<std::string, std::string, std::string>, Gathered> groups;  // (kernel, config, metric)
  std::map<GroupKey, double> kernel_ns;  // order of rows: the group's larger kernel time of the two files
  for (int side = 0; side < 2; ++side) {
    const Trace& trace = *traces[side];
    std::map<GroupKey, double> time;
    std::vector<GroupKey> key_of;  // per kernel index
    key_of.reserve(trace.kernels.size());
    for (const Kernel& k : trace.kernels) {
      key_of.push_back(keys.of(trace, k));
      time[key_of.back()] += static_cast<double>(duration(k.start, k.end));
    }
    for (const auto& [key, ns] : time) kernel_ns[key] = std::max(kernel_ns[key], ns);
    const std::map<LaunchKey, size_t> launch = launches_of(trace);
    for (const KernelMetric& m : trace.kernel_metrics) {
      auto it = launch.find({m.run_id, m.pid, m.correlation_id});
      if (it == launch.end() || it->second == kAmbiguous) continue;  // data loss 'metrics_unmatched'
      const GroupKey& key = key_of[it->second];
      groups[{key.first, key.second, trace.strings.get(m.metric)}].values[side].push_back({m.run_id, m.value});
    }
  }

  std::vector<MetricDiffItem> items;
  for (const auto& [key, g] : groups) {
    MetricDiffItem item;
    std::tie(item.kernel, item.detail, item.metric) = key;
    item.cmp = compare_samples(samples_of(g.values[0], by_runs), samples_of(g.values[1], by_runs), options);
    judge_from_zero(item.cmp, options);
    items.push_back(std::move(item));
  }
  std::stable_sort(items.begin(), items.end(), [&](const MetricDiffItem& a, const MetricDiffItem& b) {
    const double ta = kernel_ns[{a.kernel, a.detail}], tb = kernel_ns[{b.kernel, b.detail}];
    if (ta != tb) return ta > tb;
    return std::make_tuple(a.kernel, a.detail, metric_rank(a.metric), a.metric) <
           std::make_tuple(b.kernel, b.detail, metric_rank(b.metric), b.metric);
  });
  return items;
}

}  // namespace detail

const char* metric_verdict(Verdict verdict) {
  switch (verdict) {
    case Verdict::Slower: return "higher";
    case Verdict::Faster: return "lower";
    default: return to_string(verdict);
  }
}

}  // namespace gpuscope::analysis

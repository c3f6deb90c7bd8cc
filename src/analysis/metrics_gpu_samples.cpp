// GPU-wide counters over time (PM sampling, `gpuscope profile --gpu-metrics`): per device and
// metric, the distribution over the run (mean, p50, p95, max of the samples) and a coarse time
// series — equal time buckets, each the overlap-weighted mean of the samples in it — which is
// what "GPU utilization and memory bandwidth over time" needs without a timeline viewer.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>

#include "gpuscope/analysis_metrics.h"
#include "gpuscope/analysis_stats.h"

namespace gpuscope::analysis {
namespace {

struct Sample {
  TimeNs start = 0, end = 0;
  double value = 0;
};

GpuMetricSeries describe_series(const std::string& metric, std::vector<Sample> samples, TimeNs start, TimeNs end,
                                size_t buckets) {
  GpuMetricSeries s;
  s.metric = metric;
  const MetricInfo* info = find_metric(metric);
  s.label = info ? info->label : metric;
  s.unit = info ? info->unit : (metric.find("pct") != std::string::npos ? MetricUnit::Percent : MetricUnit::Count);
  s.samples = samples.size();
  std::vector<double> values;
  for (const Sample& x : samples) values.push_back(x.value);
  const Stats st = describe(values);
  std::sort(values.begin(), values.end());
  s.mean = st.mean;
  s.p50 = st.median;
  s.p95 = percentile_sorted(values, 95 / 100.0);
  s.max = st.max;

  // Bucket b covers [start + span*b/n, start + span*(b+1)/n); a sample adds value x overlap.
  const TimeNs span = std::max<TimeNs>(end - start, 1);
  std::vector<double> weighted(buckets, 0), weight(buckets, 0);
  for (const Sample& x : samples) {
    const TimeNs a = x.start, b = std::max(x.end, x.start + 1);  // a point sample counts as 1 ns
    for (size_t i = 0; i < buckets; ++i) {
      const TimeNs lo = start + scale_ns(span, i, buckets);
      const TimeNs hi = start + scale_ns(span, i + 1, buckets);
      const TimeNs overlap = std::min(b, hi) - std::max(a, lo);
      if (overlap <= 0) continue;
      weighted[i] += x.value * static_cast<double>(overlap);
      weight[i] += static_cast<double>(overlap);
    }
  }
  for (size_t i = 0; i < buckets; ++i)
    s.buckets.push_back(weight[i] > 0 ? weighted[i] / weight[i] : std::numeric_limits<double>::quiet_NaN());
  return s;
}

}  // namespace

std::vector<GpuUtilization> summarize_gpu_samples(const Trace& trace, size_t buckets) {
  // (pid, device) -> metric -> samples; std::map keeps every order deterministic.
  std::map<std::pair<uint32_t, uint32_t>, std::map<std::string, std::vector<Sample>>> by_device;
  for (const GpuMetricSample& x : trace.gpu_metric_samples) {
    // A value the sampler could not compute (NaN: NVML failed that one metric) is absent, not 0.
    if (!std::isfinite(x.value)) continue;
    by_device[{x.pid, x.device}][trace.strings.get(x.metric)].push_back({x.start, x.end, x.value});
  }

  std::vector<GpuUtilization> out;
  for (auto& [key, metrics] : by_device) {
    GpuUtilization g;
    g.pid = key.first;
    g.device = key.second;
    for (const Device& d : trace.devices)
      if (d.pid == g.pid && d.id == g.device) {
        g.device_name = d.name;
        break;
      }
    g.start = std::numeric_limits<TimeNs>::max();
    g.end = std::numeric_limits<TimeNs>::min();
    std::vector<double> lengths;
    size_t most = 0;
    for (auto& [name, samples] : metrics) {
      // Sorted by time (then value) so the input order of the trace does not matter.
      std::sort(samples.begin(), samples.end(), [](const Sample& a, const Sample& b) {
        return std::tie(a.start, a.end, a.value) < std::tie(b.start, b.end, b.value);
      });
      for (const Sample& x : samples) {
        g.start = std::min(g.start, x.start);
        g.end = std::max(g.end, std::max(x.end, x.start));
        lengths.push_back(static_cast<double>(duration(x.start, x.end)));
      }
      most = std::max(most, samples.size());
    }
    g.interval_ns = static_cast<TimeNs>(median(std::move(lengths)));
    // No more buckets than samples: a bucket should not pretend to a resolution the data lacks.
    const size_t n = std::max<size_t>(1, std::min(buckets, most));
    std::vector<std::string> names;
    for (const auto& [name, samples] : metrics) names.push_back(name);
    std::stable_sort(names.begin(), names.end(), [](const std::string& a, const std::string& b) {
      return gpu_sample_rank(a) < gpu_sample_rank(b);
    });
    for (const std::string& name : names) g.metrics.push_back(describe_series(name, metrics[name], g.start, g.end, n));
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace gpuscope::analysis

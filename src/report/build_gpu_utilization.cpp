// "GPU utilization": GPU-wide counters sampled over the run (`gpuscope profile --gpu-metrics`).
// Per device: each metric's mean, p50, p95 and max with a sparkline, then the values per time
// bucket. Both tables have a fixed set of rows (metrics, buckets), so --top does not cut them.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "gpuscope/analysis_metrics.h"
#include "gpuscope/analysis_stats.h"
#include "report/builder.h"
#include "report/metric_units.h"
#include "report/units.h"

namespace gpuscope::report {
namespace {

// Short column titles for the per-bucket table, so nine metrics fit a terminal line.
std::string short_label(const analysis::GpuMetricSeries& m) {
  static const std::pair<const char*, const char*> kShort[] = {
      {"gr__cycles_active.avg.pct_of_peak_sustained_elapsed", "GPU"},
      {"sm__cycles_active.avg.pct_of_peak_sustained_elapsed", "SM"},
      {"sm__warps_active.avg.pct_of_peak_sustained_elapsed", "Warps"},
      {"sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed", "Tensor"},
      {"dram__throughput.avg.pct_of_peak_sustained_elapsed", "DRAM %"},
      {"dram__bytes_read.sum.per_second", "DRAM rd"},
      {"dram__bytes_write.sum.per_second", "DRAM wr"},
      {"pcie__read_bytes.sum.per_second", "PCIe rd"},
      {"pcie__write_bytes.sum.per_second", "PCIe wr"},
      {"gpm__graphics_active.pct", "GPU"},
      {"gpm__sm_active.pct", "SM"},
      {"gpm__sm_occupancy.pct", "Warps"},
      {"gpm__tensor_active.pct", "Tensor"},
      {"gpm__dram_bandwidth.pct", "DRAM %"},
      {"gpm__fp64_active.pct", "FP64"},
      {"gpm__fp32_active.pct", "FP32"},
      {"gpm__fp16_active.pct", "FP16"},
      {"gpm__pcie_to_gpu_bytes.per_second", "PCIe in"},
      {"gpm__pcie_from_gpu_bytes.per_second", "PCIe out"}};
  for (const auto& [metric, label] : kShort)
    if (m.metric == metric) return label;
  return m.label;
}

// One character per bucket, 8 levels: percentages on 0-100 %, other units on 0 to the series'
// largest bucket. A bucket without samples is a space.
std::string sparkline(const analysis::GpuMetricSeries& m) {
  static const char* const kLevels[] = {"\u2581", "\u2582", "\u2583", "\u2584", "\u2585", "\u2586", "\u2587", "\u2588"};
  double top = m.unit == MetricUnit::Percent ? 100.0 : 0.0;
  if (top == 0)
    for (double v : m.buckets)
      if (std::isfinite(v)) top = std::max(top, v);
  std::string out;
  for (double v : m.buckets) {
    if (!std::isfinite(v)) {
      out += ' ';
      continue;
    }
    const double x = top > 0 ? std::clamp(v / top, 0.0, 1.0) : 0.0;
    out += kLevels[static_cast<int>(std::lround(x * 7))];
  }
  return out;
}

}  // namespace

std::optional<Section> build_gpu_utilization_section(const Trace& trace) {
  const auto devices = analysis::summarize_gpu_samples(trace);
  if (devices.empty()) return std::nullopt;
  Section s;
  s.key = "gpu_utilization";
  s.title = "GPU utilization";
  const bool several = devices.size() > 1;
  for (const auto& d : devices) {
    const std::string who = (d.device_name.empty() ? fmt::format("GPU {}", d.device) : d.device_name) +
                            (several ? fmt::format(" (pid {}, GPU {})", d.pid, d.device) : "");
    const size_t buckets = d.metrics.empty() ? 0 : d.metrics.front().buckets.size();
    Table stats;
    stats.key = several ? fmt::format("gpu_metrics_{}_{}", d.pid, d.device) : "gpu_metrics";
    stats.title = "Sampled metrics, " + who;
    // Mean..Max hold each metric's own unit; the Unit column names it for machines (JSON).
    stats.columns = {text_column("metric", "Metric"),
                     text_column("unit", "Unit"),
                     num_column("samples", "Samples", Unit::Count),
                     num_column("mean", "Mean", Unit::Plain),
                     num_column("p50", "P50", Unit::Plain),
                     num_column("p95", "P95", Unit::Plain),
                     num_column("max", "Max", Unit::Plain),
                     text_column("over_time", "Over time")};
    for (const auto& m : d.metrics) {
      const Unit u = report_unit(m.unit);
      stats.rows.push_back({text(m.label), text(unit_name(u)), num(double(m.samples), Unit::Count), num(m.mean, u),
                            num(m.p50, u), num(m.p95, u), num(m.max, u), text(sparkline(m))});
    }
    const TimeNs span = d.end - d.start;
    // NVML GPM's values (gpm__*) are NVML's own definitions over GPM's ~100 ms windows.
    const bool gpm = !d.metrics.empty() && d.metrics.front().metric.rfind("gpm__", 0) == 0;
    stats.notes.push_back(fmt::format(
        "{}amples every {} over {}; P95 by nearest rank. Over time: {} equal buckets, "
        "first to last sample; percentages on a 0-100% scale, rates on 0 to their "
        "largest bucket.",
        gpm ? "NVML GPM s" : "S", format_duration(double(d.interval_ns)), format_duration(double(span)), buckets));
    s.tables.push_back(std::move(stats));

    Table series;
    series.key = several ? fmt::format("gpu_metrics_over_time_{}_{}", d.pid, d.device) : "gpu_metrics_over_time";
    series.title = "Over time, " + who;
    series.columns = {num_column("start", "From", Unit::Ns)};
    for (const auto& m : d.metrics) series.columns.push_back(num_column(m.metric, short_label(m), report_unit(m.unit)));
    const TimeNs origin = trace.run.start > 0 && trace.run.start <= d.start ? trace.run.start : d.start;
    for (size_t b = 0; b < buckets; ++b) {
      const TimeNs lo = d.start + analysis::scale_ns(std::max<TimeNs>(span, 1), b, buckets);
      std::vector<Cell> row = {num(double(lo - origin), Unit::Ns)};
      for (const auto& m : d.metrics) row.push_back(num(m.buckets[b], report_unit(m.unit)));
      series.rows.push_back(std::move(row));
    }
    series.notes.push_back(
        fmt::format("From: bucket start since the {}; each value is the mean of the samples in the "
                    "bucket, weighted by their overlap with it ('-': no sample).",
                    origin == trace.run.start ? "run started" : "first sample"));
    s.tables.push_back(std::move(series));
  }
  return s;
}

}  // namespace gpuscope::report

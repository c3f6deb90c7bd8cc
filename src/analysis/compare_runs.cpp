// Across-run statistics of bench captures (gpuscope/analysis_runs.h).
#include <algorithm>
#include <map>
#include <optional>

#include "analysis/grouping.h"
#include "gpuscope/analysis.h"
#include "gpuscope/analysis_runs.h"
#include "gpuscope/runs.h"

namespace gpuscope::analysis {
namespace {

RunMetric metric(std::string name, std::vector<double> values, bool per_kernel) {
  RunMetric m;
  m.name = std::move(name);
  m.per_kernel = per_kernel;
  m.values = std::move(values);
  m.stats = describe(m.values);
  m.mean_ci = mean_ci95(m.values);
  m.unstable = m.values.size() >= 2 && m.stats.cv_percent > kUnstableCvPercent;
  return m;
}

// Per-kernel metrics go after the totals, by the kernel's summed time descending.
void append_by_total(std::vector<RunMetric> per_kernel, const std::map<std::string, double>& totals,
                     std::vector<RunMetric>& out) {
  detail::sort_by_total_then_name(
      per_kernel, [&](const RunMetric& m) { return totals.at(m.name); }, [](const RunMetric& m) { return m.name; });
  for (RunMetric& m : per_kernel) out.push_back(std::move(m));
}

}  // namespace

std::vector<double> per_run_medians(const std::vector<std::pair<uint32_t, double>>& instances) {
  std::map<uint32_t, std::vector<double>> by_run;
  for (const auto& [run, value] : instances) by_run[run].push_back(value);
  std::vector<double> medians;
  for (auto& [run, values] : by_run) medians.push_back(median(std::move(values)));
  return medians;
}

BenchSummary summarize_bench(const Trace& trace) {
  BenchSummary out;
  std::vector<double> wall, busy, kernel_time;
  for (const BenchRun& r : trace.runs) {
    const ExecutiveSummary s = summarize_executive(select_run(trace, r.run_id));
    RunRow row;
    row.run_id = r.run_id;
    row.wall_ns = duration(r.start, r.end);
    row.gpu_busy_ns = s.gpu_busy_ns;
    row.kernel_ns = s.kernel_ns;
    row.api_ns = s.api_ns;
    row.memcpy_ns = s.memcpy_ns;
    row.kernels = s.kernel_count;
    row.exit_code = r.exit_code;
    row.term_signal = r.term_signal;
    out.runs.push_back(row);
    wall.push_back(static_cast<double>(row.wall_ns));
    busy.push_back(static_cast<double>(row.gpu_busy_ns));
    kernel_time.push_back(static_cast<double>(row.kernel_ns));
  }
  if (out.runs.empty()) return out;
  out.metrics.push_back(metric("Wall time", wall, false));
  out.metrics.push_back(metric("GPU busy", busy, false));
  out.metrics.push_back(metric("Kernel time", kernel_time, false));

  // Each kernel: its median duration in each run that launched it.
  std::map<std::string, std::vector<std::pair<uint32_t, double>>> kernels;
  std::map<std::string, double> totals;
  for (const Kernel& k : trace.kernels) {
    const std::string name = detail::kernel_name(trace, k);
    kernels[name].push_back({k.run_id, static_cast<double>(duration(k.start, k.end))});
    totals[name] += static_cast<double>(duration(k.start, k.end));
  }
  std::vector<RunMetric> per_kernel;
  for (const auto& [name, instances] : kernels) per_kernel.push_back(metric(name, per_run_medians(instances), true));
  append_by_total(std::move(per_kernel), totals, out.metrics);
  return out;
}

IterationBench summarize_iterations(const Trace& trace, const IterationSpec& spec) {
  const Iterations iterations = find_iterations(trace, spec);
  IterationBench out;
  out.summary = iterations.summary;
  // Each kernel: (iteration, ns) of every launch made in an iteration, by its launching call.
  std::map<std::string, std::vector<std::pair<uint32_t, double>>> kernels;
  std::vector<std::pair<uint32_t, double>> all;
  std::map<std::string, double> totals;
  for (const Kernel& k : trace.kernels) {
    const std::optional<uint32_t> index = iterations.of_gpu(k.run_id, k.pid, k.correlation_id);
    if (!index) continue;
    const std::string name = detail::kernel_name(trace, k);
    const double ns = static_cast<double>(duration(k.start, k.end));
    kernels[name].push_back({*index, ns});
    all.push_back({*index, ns});
    totals[name] += ns;
  }
  out.metrics.push_back(metric("Iteration time", iterations.durations(), false));
  out.metrics.push_back(metric("Kernel time", iterations.sums(all), false));
  std::vector<RunMetric> per_kernel;
  for (const auto& [name, instances] : kernels) per_kernel.push_back(metric(name, iterations.sums(instances), true));
  append_by_total(std::move(per_kernel), totals, out.metrics);
  return out;
}

}  // namespace gpuscope::analysis

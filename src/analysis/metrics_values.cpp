// Kernel metrics per kernel group: each KernelMetric finds its launch by (run, pid, correlation
// id); launches are grouped as the kernel summary groups them; each metric's median over the
// launches that have it is what every later analysis reads.
#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "analysis/grouping.h"
#include "gpuscope/analysis_metrics.h"

namespace gpuscope::analysis {
namespace {

constexpr size_t kAmbiguous = SIZE_MAX;

using LaunchKey = std::tuple<uint32_t, uint32_t, uint32_t>;  // run, pid, correlation id

bool same_config(const Kernel& k, const LaunchConfig& c) {
  for (int i = 0; i < 3; ++i)
    if (k.grid[i] != c.grid[i] || k.block[i] != c.block[i]) return false;
  return k.registers_per_thread == c.registers_per_thread && k.static_shared_bytes == c.static_shared_bytes &&
         k.dynamic_shared_bytes == c.dynamic_shared_bytes;
}

// Values of one group's launches, per metric; launches counted once.
struct Collected {
  std::map<std::string, std::vector<double>> values;
  std::set<size_t> launches;
};

double median_of(std::vector<double> v) { return describe(std::move(v)).median; }

}  // namespace

std::optional<double> KernelMetricValues::get(std::string_view metric) const {
  auto it = medians.find(std::string(metric));
  if (it == medians.end()) return std::nullopt;
  return it->second;
}

double KernelMetricValues::duration_ns() const {
  const auto measured = get("gpu__time_duration.sum");
  return measured && *measured > 0 ? *measured : median_ns;
}

std::vector<KernelMetricValues> kernel_metric_values(const Trace& trace) {
  if (trace.kernel_metrics.empty()) return {};
  // Launch lookup; a key shared by several kernels (the nodes of one graph launch) is ambiguous.
  std::map<LaunchKey, size_t> launch;
  for (size_t i = 0; i < trace.kernels.size(); ++i) {
    const Kernel& k = trace.kernels[i];
    auto [it, fresh] = launch.try_emplace(LaunchKey{k.run_id, k.pid, k.correlation_id}, i);
    if (!fresh) it->second = kAmbiguous;
  }

  const std::vector<KernelGroup> groups = summarize_kernels(trace);
  std::map<std::string, size_t> group_of;  // name -> index in groups
  for (size_t i = 0; i < groups.size(); ++i) group_of[groups[i].name] = i;

  std::vector<Collected> main(groups.size()), all(groups.size());
  for (const KernelMetric& m : trace.kernel_metrics) {
    auto it = launch.find(LaunchKey{m.run_id, m.pid, m.correlation_id});
    if (it == launch.end() || it->second == kAmbiguous) continue;
    const Kernel& k = trace.kernels[it->second];
    const size_t g = group_of.at(detail::kernel_name(trace, k));
    const std::string& name = trace.strings.get(m.metric);
    all[g].values[name].push_back(m.value);
    all[g].launches.insert(it->second);
    if (same_config(k, groups[g].config)) {
      main[g].values[name].push_back(m.value);
      main[g].launches.insert(it->second);
    }
  }

  double all_kernels_ns = 0;
  for (const KernelGroup& g : groups) all_kernels_ns += g.duration.total;

  std::vector<KernelMetricValues> out;
  for (size_t g = 0; g < groups.size(); ++g) {
    if (all[g].launches.empty()) continue;
    KernelMetricValues v;
    v.name = groups[g].name;
    v.rank = g;
    v.config = groups[g].config;
    v.total_ns = groups[g].duration.total;
    v.kernel_share_percent = share_percent(v.total_ns, all_kernels_ns).value_or(0);
    v.median_ns = groups[g].duration.median;
    v.all_configs = main[g].launches.empty();
    const Collected& used = v.all_configs ? all[g] : main[g];
    v.profiled = used.launches.size();
    for (const auto& [metric, values] : used.values) v.medians[metric] = median_of(values);
    // The device of the group's earliest launch in its configuration (by start, then pid and
    // ordinal), so the record order of the trace does not matter.
    const Kernel* first = nullptr;
    for (const Kernel& k : trace.kernels) {
      if (detail::kernel_name(trace, k) != v.name || !same_config(k, v.config)) continue;
      if (!first || std::tie(k.start, k.pid, k.device) < std::tie(first->start, first->pid, first->device)) first = &k;
    }
    if (first)
      for (const Device& d : trace.devices)
        if (d.pid == first->pid && d.id == first->device) {
          v.device = d;
          break;
        }
    out.push_back(std::move(v));
  }
  return out;
}

std::vector<KernelMetrics> analyze_kernel_metrics(const Trace& trace) {
  std::vector<KernelMetrics> out;
  for (KernelMetricValues& v : kernel_metric_values(trace)) {
    KernelMetrics k;
    k.sol = speed_of_light(v);
    k.memory = memory_workload(v);
    k.occupancy = achieved_occupancy(v);
    k.stalls = warp_stalls(v);
    k.tensor = tensor_use(v);
    k.roofline = roofline(v);
    k.values = std::move(v);
    out.push_back(std::move(k));
  }
  return out;
}

}  // namespace gpuscope::analysis

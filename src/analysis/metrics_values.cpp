// Kernel metrics per kernel group: each KernelMetric finds its launch by (run, pid, correlation
// id); launches are grouped as the kernel summary groups them; each metric's median over the
// launches that have it is what every later analysis reads.
#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

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
  std::map<StringId, std::vector<double>> values;  // metric name id -> values
  size_t launches = 0;
};

struct LaunchKeyHash {
  size_t operator()(const LaunchKey& k) const {
    const uint64_t a = (static_cast<uint64_t>(std::get<0>(k)) << 32) ^ std::get<1>(k);
    return std::hash<uint64_t>()(a * 0x9E3779B97F4A7C15ull ^ std::get<2>(k));
  }
};

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
  const std::vector<KernelGroup> groups = summarize_kernels(trace);
  // Each launch's group, named once per (demangled, mangled) pair rather than once per record;
  // and per group its earliest launch in its configuration (by start, then pid and ordinal, so
  // the record order of the trace does not matter), whose device the occupancy is computed for.
  std::map<std::string, size_t> group_by_name;
  for (size_t i = 0; i < groups.size(); ++i) group_by_name[groups[i].name] = i;
  std::map<std::pair<StringId, StringId>, size_t> group_by_ids;
  std::vector<size_t> group_of(trace.kernels.size());
  std::vector<const Kernel*> first(groups.size(), nullptr);
  for (size_t i = 0; i < trace.kernels.size(); ++i) {
    const Kernel& k = trace.kernels[i];
    auto [it, fresh] = group_by_ids.try_emplace({k.name, k.mangled_name}, 0);
    if (fresh) it->second = group_by_name.at(detail::kernel_name(trace, k));
    const size_t g = group_of[i] = it->second;
    const Kernel*& f = first[g];
    if (same_config(k, groups[g].config) &&
        (!f || std::tie(k.start, k.pid, k.device) < std::tie(f->start, f->pid, f->device)))
      f = &k;
  }

  // Launch lookup; a key shared by several kernels (the nodes of one graph launch) is ambiguous.
  // Only lookups, no iteration: an unordered map cannot make the output depend on its order.
  std::unordered_map<LaunchKey, size_t, LaunchKeyHash> launch;
  for (size_t i = 0; i < trace.kernels.size(); ++i) {
    const Kernel& k = trace.kernels[i];
    auto [it, fresh] = launch.try_emplace(LaunchKey{k.run_id, k.pid, k.correlation_id}, i);
    if (!fresh) it->second = kAmbiguous;
  }
  std::vector<Collected> main(groups.size()), all(groups.size());
  std::vector<char> measured(trace.kernels.size(), 0);
  for (const KernelMetric& m : trace.kernel_metrics) {
    auto it = launch.find(LaunchKey{m.run_id, m.pid, m.correlation_id});
    if (it == launch.end() || it->second == kAmbiguous) continue;
    const size_t i = it->second, g = group_of[i];
    const bool in_main = same_config(trace.kernels[i], groups[g].config);
    all[g].values[m.metric].push_back(m.value);
    if (in_main) main[g].values[m.metric].push_back(m.value);
    if (!measured[i]) {
      measured[i] = 1;
      ++all[g].launches;
      if (in_main) ++main[g].launches;
    }
  }

  double all_kernels_ns = 0;
  for (const KernelGroup& g : groups) all_kernels_ns += g.duration.total;

  std::vector<KernelMetricValues> out;
  for (size_t g = 0; g < groups.size(); ++g) {
    if (all[g].launches == 0) continue;
    KernelMetricValues v;
    v.name = groups[g].name;
    v.rank = g;
    v.config = groups[g].config;
    v.total_ns = groups[g].duration.total;
    v.kernel_share_percent = share_percent(v.total_ns, all_kernels_ns).value_or(0);
    v.median_ns = groups[g].duration.median;
    v.all_configs = main[g].launches == 0;
    const Collected& used = v.all_configs ? all[g] : main[g];
    v.profiled = used.launches;
    for (const auto& [metric, values] : used.values) v.medians[trace.strings.get(metric)] = median(values);
    if (first[g])
      for (const Device& d : trace.devices)
        if (d.pid == first[g]->pid && d.id == first[g]->device) {
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

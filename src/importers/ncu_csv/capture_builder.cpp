#include "importers/ncu_csv/capture_builder.h"

#include <cxxabi.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <memory>

#include "importers/ncu_csv/trace_parts.h"

namespace gpuscope::ncu {

namespace {

// ncu prints mangled names with --print-kernel-base mangled.
std::string demangle(const std::string& name) {
  if (name.rfind("_Z", 0) != 0) return name;
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> text(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status),
                                                   &std::free);
  return status == 0 && text ? std::string(text.get()) : name;
}

Kernel make_kernel(const File& file, const Launch& launch, Trace& trace) {
  Kernel k;
  k.pid = launch.pid;
  k.device = launch.device;
  k.context = launch.context;
  k.stream = launch.stream;
  k.mangled_name = trace.strings.intern(launch.kernel_name);
  k.name = trace.strings.intern(demangle(launch.kernel_name));
  if (launch.has_config) {
    std::copy(launch.grid, launch.grid + 3, k.grid);
    std::copy(launch.block, launch.block + 3, k.block);
  } else {
    // Totals only (launch__grid_size, launch__block_size): as one dimension.
    k.grid[0] = as_i32(launch_value(file, launch, "launch__grid_size"));
    k.block[0] = as_i32(launch_value(file, launch, "launch__block_size"));
    k.grid[1] = k.grid[2] = k.block[1] = k.block[2] = k.grid[0] > 0 ? 1 : 0;
  }
  for (int i = 0; i < 3; ++i) {
    static const char* const kCluster[] = {"launch__cluster_dim_x", "launch__cluster_dim_y", "launch__cluster_dim_z"};
    k.cluster[i] = as_i32(launch_value(file, launch, kCluster[i]));
  }
  k.registers_per_thread = as_u32(launch_value(file, launch, "launch__registers_per_thread"));
  k.static_shared_bytes = as_u32(launch_value(file, launch, "launch__shared_mem_per_block_static"));
  k.dynamic_shared_bytes = as_u32(launch_value(file, launch, "launch__shared_mem_per_block_dynamic"));
  return k;
}

}  // namespace

void CapabilityFromColumn::read(const std::string& cc) {
  if (major != 0) return;  // the first that says it is kept
  const size_t dot = cc.find('.');
  if (dot == std::string::npos) return;
  // from_chars leaves its output as it was where it reads no number.
  std::from_chars(cc.data(), cc.data() + dot, major);
  uint32_t m = 0;
  if (std::from_chars(cc.data() + dot + 1, cc.data() + cc.size(), m).ec == std::errc()) minor = m;
}

void CapabilityFromColumn::apply(Device& d) const {
  d.compute_major = major;
  if (minor) d.compute_minor = *minor;
}

void CaptureBuilder::expect_values(size_t values) {
  // Once, before any row: --set full is ~2,000 values per launch, 24 bytes per row.
  trace_.kernel_metrics.reserve(trace_.kernel_metrics.size() + values);
}

void CaptureBuilder::take(Launch&& launch, const File& file) {
  // Metric names first, in File order, then the duration's: the string ids a capture built from
  // all launches at once had.
  const bool first = correlation_ == 0;
  while (metric_ids_.size() < file.metric_names.size())
    metric_ids_.push_back(trace_.strings.intern(file.metric_names[metric_ids_.size()]));
  metric_has_value_.resize(metric_ids_.size());
  if (first) {
    duration_id_ = trace_.strings.intern("gpu__time_duration.sum");
    first_host_ = launch.host;
    first_cc_ = launch.compute_capability;
  }

  Kernel k = make_kernel(file, launch, trace_);
  k.correlation_id = ++correlation_;  // synthetic: links the launch's metrics to it
  double duration = 0;
  for (const auto& [index, value] : launch.metrics) {
    trace_.kernel_metrics.push_back({launch.pid, k.correlation_id, metric_ids_[index], value, 0});
    if (metric_ids_[index] == duration_id_) duration = value;
    if (!metric_has_value_[index]) {
      metric_has_value_[index] = true;
      ++metrics_with_values_;
    }
  }
  k.start = cursor_;
  // A duration past 1,000 s is no kernel ncu replayed (a damaged file): placed as 0, so that
  // even millions of rows cannot overflow the time axis.
  k.end = cursor_ += duration > 0 && duration < 1e12 ? static_cast<TimeNs>(duration + 0.5) : 0;
  has_config_ = has_config_ && k.grid[0] > 0;
  has_registers_ = has_registers_ && k.registers_per_thread > 0;
  trace_.kernels.push_back(k);

  ProcessSeen& process = processes_[launch.pid];
  if (process.launches++ == 0) process.process_name = std::move(launch.process_name);
  devices_.insert({launch.pid, launch.device});
  capabilities_[launch.device].read(launch.compute_capability);
}

}  // namespace gpuscope::ncu

// The hardware metrics gpuscope knows by name: the sets `gpuscope profile --metrics` collects
// per kernel (CUPTI range profiler) and the GPU-wide counters `--gpu-metrics` samples over time
// (CUPTI PM sampling). CUDA-free: the capture library, the analyses and the report all read
// this one table, so a metric's name, unit and meaning are written down once.
//
// Names are the full Perfworks names ncu uses (base metric + rollup + submetric), so
// `ncu --metrics NAME` measures the same quantity (tests/gpu/check_metrics_vs_ncu.sh).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gpuscope {

// How a metric's value reads; the report formats values by this.
enum class MetricUnit {
  Nanoseconds,
  Percent,  // 0..100
  Bytes,
  Sectors,  // 32-byte L2/DRAM sectors
  Count,    // instructions, conflicts, CTAs, math operations ...
  Cycles,
  Ratio,      // a dimensionless average (warps per issue, cycles per instruction)
  PerCycle,   // a peak rate per cycle (".peak_sustained" submetrics)
  PerSecond,  // a clock or a rate in 1/s (".per_second" submetrics)
  BytesPerSecond,
};

struct MetricInfo {
  const char* name;  // e.g. "dram__throughput.avg.pct_of_peak_sustained_elapsed"
  MetricUnit unit;
  const char* label;  // short, for tables: "DRAM throughput"
};

// One named set, e.g. "sol". `full` is the union of all sets and has no table of its own.
struct MetricSet {
  const char* name;
  const char* description;
  std::vector<MetricInfo> metrics;
};

// The per-kernel sets, in the order of `gpuscope metrics --list-sets`:
// sol, memory, compute, occupancy, stalls, roofline.
const std::vector<MetricSet>& metric_sets();

// The GPU-wide counters `gpuscope profile --gpu-metrics` samples (NVML GPM), in report order.
const std::vector<MetricInfo>& gpm_sample_metrics();

// The GPU-wide counters CUPTI's PM sampling would sample (not used by `gpuscope profile`: see
// docs/metrics.md), in report order after the GPM ones.
const std::vector<MetricInfo>& gpu_sample_metrics();

// Where a GPU-wide sample metric goes in reports: GPM's list first, then PM sampling's, in
// their table order; any other name after them (callers order those by name).
size_t gpu_sample_rank(std::string_view name);

// Tensor-core instruction paths (Hopper), each with its own peak per cycle: the roofline set
// collects `metric` and `metric + ".peak_sustained"` for each, and the tensor roof of a kernel
// is the one of the paths it ran (metrics_roofline.cpp).
struct TensorPath {
  const char* metric;  // e.g. "sm__ops_path_tensor_op_hgmma_src_fp16_sparsity_off.sum"
  const char* label;   // for people: "wgmma FP16"
};
const std::vector<TensorPath>& tensor_paths();

// The known description of `name` (from any set or the GPU samples), or null.
const MetricInfo* find_metric(std::string_view name);

// Expands "sol,memory" (set names, comma-separated; "full" = every set) plus raw metric
// names into the de-duplicated list to collect, in set order then raw order. Returns false
// with a one-line `error` for an unknown set or a malformed raw name (empty, spaces, ';' or ',').
bool expand_metric_sets(std::string_view sets, const std::vector<std::string>& raw_metrics,
                        std::vector<std::string>& out, std::string& error);

// Stall reasons of the `stalls` set: the metric name's <reason> part, e.g. "long_scoreboard".
// Metric: smsp__average_warps_issue_stalled_<reason>_per_issue_active.ratio
std::string stall_metric_name(std::string_view reason);

}  // namespace gpuscope

// Hardware metrics, judged: per kernel group the medians of what the CUPTI range profiler
// measured (`gpuscope profile --metrics`), and what they say — speed of light and the bound
// verdict, memory workload, achieved vs theoretical occupancy, warp stalls with guidance,
// tensor-core use, and the roofline — plus the GPU-wide samples over time (`--gpu-metrics`).
// Pure functions over the Trace, deterministic; docs/metrics.md defines every number.
//
// Units: percentages are 0..100, times ns, bytes bytes, rates per second (bytes/s, FLOP/s),
// arithmetic intensity FLOP per byte. Metric names are those of gpuscope/metric_sets.h.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuscope/analysis.h"
#include "gpuscope/analysis_occupancy.h"
#include "gpuscope/metric_sets.h"
#include "gpuscope/model.h"

namespace gpuscope::analysis {

// ---- Per kernel group -----------------------------------------------------------------------

// One kernel group of the kernel summary (summarize_kernels: demangled name) and the median of
// each metric over its launches that have that metric. The launches taken are those of the
// group's most common configuration, the one the theoretical occupancy is computed for; only
// when none of those was measured are all the group's launches taken (all_configs).
struct KernelMetricValues {
  std::string name;
  size_t rank = 0;                  // position in summarize_kernels() (0 = most kernel time)
  LaunchConfig config;              // the group's most common configuration
  std::optional<Device> device;     // of the group's first launch in that configuration
  double total_ns = 0;              // traced time of all the group's launches
  double kernel_share_percent = 0;  // total_ns / time of all kernels x 100
  double median_ns = 0;             // traced median duration of the group's launches
  size_t profiled = 0;              // launches whose metrics the medians use
  bool all_configs = false;
  std::map<std::string, double> medians;  // full metric name -> median

  std::optional<double> get(std::string_view metric) const;
  // gpu__time_duration.sum when collected (measured with the counters), else the traced median.
  double duration_ns() const;
};

// Groups with at least one metric, in kernel-summary order. Metrics whose (run, pid,
// correlation id) matches no kernel, or several (a graph launch), are not attributed.
std::vector<KernelMetricValues> kernel_metric_values(const Trace& trace);

// ---- Speed of light -----------------------------------------------------------------------

// The SOL verdict, as ncu's SOL guidance reads the two throughputs (docs/metrics.md has the
// thresholds): compute- or memory-bound when the higher one reaches 60 % of peak, balanced when
// both do within 10 points of each other, latency-bound when neither reaches 60 %.
enum class Bound { Compute, Memory, Balanced, Latency };
const char* to_string(Bound bound);

constexpr double kSolHighPercent = 60.0;     // a unit this busy bounds the kernel (ncu's threshold)
constexpr double kSolBalancedPoints = 10.0;  // both high and closer than this: balanced
constexpr double kSolAtRoofPercent = 80.0;   // ncu's "high throughput": little headroom left

struct SpeedOfLight {
  double sm_percent = 0;      // sm__throughput (pct of peak, elapsed)
  double memory_percent = 0;  // gpu__compute_memory_throughput, else the busiest unit below
  std::optional<double> dram_percent, l2_percent, l1_percent;  // L1/TEX: of active cycles
  std::string busiest_unit;  // "DRAM", "L2", "L1/TEX"; "" when none of the three was collected
  double busiest_percent = 0;
  Bound bound = Bound::Latency;
};
std::optional<SpeedOfLight> speed_of_light(const KernelMetricValues& k);

// ---- Memory workload ----------------------------------------------------------------------

struct MemoryWorkload {
  double duration_ns = 0;
  std::optional<double> dram_read_bytes, dram_write_bytes;  // bytes, else sectors x 32
  std::optional<double> dram_bandwidth;                     // (read + written) / duration, bytes/s
  std::optional<double> dram_peak_bandwidth;                // from the roofline peaks, bytes/s
  std::optional<double> l1_hit_percent, l2_hit_percent;
  std::optional<double> l2_read_sectors, l2_write_sectors;  // requested by the SMs
  std::optional<double> shared_load_conflicts, shared_store_conflicts;
  // Extra shared-memory wavefronts (one cycle of the SM's shared-memory pipe each) as a share
  // of the SM cycles: conflicts / (SM cycles x SMs) x 100. SM cycles are sm__cycles_active.avg,
  // else gpc__cycles_elapsed.max (then the share reads lower); nullopt without either or the SMs.
  std::optional<double> conflict_cycle_percent;
};
std::optional<MemoryWorkload> memory_workload(const KernelMetricValues& k);

// ---- Occupancy ----------------------------------------------------------------------------

constexpr double kOccupancyGapRatio = 0.8;    // achieved below 80 % of theoretical ...
constexpr double kOccupancyGapPoints = 10.0;  // ... and at least 10 points below: a large gap

// Why achieved occupancy trails theoretical, from the waves (docs/metrics.md).
enum class OccupancyGapCause { None, SmallGrid, Tail, UnevenWork };

struct AchievedOccupancy {
  double achieved_percent = 0;                    // sm__warps_active, pct of peak over active cycles
  std::optional<double> active_warps_per_sm;      // sm__warps_active.avg.per_cycle_active
  std::optional<Occupancy> theoretical;           // occupancy.cpp, on the group's configuration
  std::optional<double> achieved_of_theoretical;  // achieved / theoretical x 100
  bool large_gap = false;
  OccupancyGapCause cause = OccupancyGapCause::None;  // None without a large gap
  std::string explanation;                            // the cause in a sentence, with its numbers
};
std::optional<AchievedOccupancy> achieved_occupancy(const KernelMetricValues& k);

// ---- Warp stalls --------------------------------------------------------------------------

struct StallShare {
  std::string reason;  // e.g. "long_scoreboard"
  double cycles = 0;   // warps stalled for it per issue-active cycle (ncu's per-instruction cycles)
  double percent = 0;  // of all stall cycles ("selected", the issuing cycle, excluded)
};

struct WarpStalls {
  std::optional<double> cycles_per_issue;      // smsp__average_warp_latency_per_inst_issued
  std::optional<double> issue_active_percent;  // smsp__issue_active (compute set)
  std::vector<StallShare> reasons;             // non-zero ones, largest first, ties by name
  double stall_cycles = 0;                     // their sum
};
std::optional<WarpStalls> warp_stalls(const KernelMetricValues& k);

// What a stall reason means and what usually helps: the table of docs/metrics.md. Takes the
// metrics' names and PC sampling's (which spell one "no_instructions").
struct StallGuidance {
  const char* reason;
  const char* meaning;
  const char* advice;
};
const StallGuidance* stall_guidance(std::string_view reason);
// Reasons that are not a problem in themselves (the warp issued, or another warp did).
bool stall_is_benign(std::string_view reason);

// ---- Tensor cores and FLOPs -----------------------------------------------------------------

// FLOPs of the FMA-pipe instructions, counted as ncu's roofline does: add + mul + 2 x fma
// thread instructions per precision. 0 when not collected.
struct ScalarFlops {
  double fp64 = 0, fp32 = 0, fp16 = 0;
  bool collected = false;  // any of the nine counters present
};
ScalarFlops scalar_flops(const KernelMetricValues& k);

struct TensorOps {
  std::string precision;  // "FP16", "BF16", "TF32", "FP8", "INT8", "FP64"
  double ops = 0;         // sm__ops_path_tensor_src_*, as ncu counts them
};

struct TensorUse {
  std::optional<double> pipe_active_percent;
  std::vector<TensorOps> ops;  // collected precisions, in metric-set order
  double float_ops = 0;        // all but INT8: the tensor FLOPs
  double int_ops = 0;          // INT8
  ScalarFlops scalar;
  // FP16 math on the FMA pipe and no tensor op at all, at an intensity that matrix math has
  // (docs/metrics.md): worth checking whether a matrix product is hand-rolled.
  bool half_math_without_tensor = false;
  // Some tensor-op counters of the sets are missing (a non-Hopper chip): `ops` is empty and the
  // tensor FLOPs are unknown.
  bool ops_incomplete = false;
};
std::optional<TensorUse> tensor_use(const KernelMetricValues& k);

// ---- Roofline -----------------------------------------------------------------------------

struct PrecisionRoof {
  std::string precision;  // "FP64", "FP32", "FP16", "Tensor"
  double flops = 0;
  double achieved = 0;  // FLOP/s over the kernel's duration
  // FLOP/s: peak fma per cycle x 2 x SM clock; for Tensor, the peak of the instruction paths
  // the kernel ran (metrics_roofline.cpp), none when their peaks were not collected.
  std::optional<double> peak;
  std::string mix;  // Tensor: the paths and their shares of the ops, e.g. "wgmma BF16 100%"
};

struct LevelRoof {
  std::string level;  // "DRAM", "L2", "L1"
  double bytes = 0;
  std::optional<double> intensity;       // FLOPs of the dominant precision / bytes; none at 0 bytes
  std::optional<double> peak_bandwidth;  // bytes/s: peak bytes per cycle x the unit's clock
  std::optional<double> ridge;           // peak FLOP/s / peak bandwidth, FLOP/byte
};

struct Roofline {
  double duration_ns = 0;
  std::vector<PrecisionRoof> precisions;  // with FLOPs, most first (the dominant one first)
  std::vector<LevelRoof> levels;          // collected levels, DRAM, L2, L1
  // For the dominant precision: min(peak, intensity x bandwidth of each level). Needs its
  // compute peak and the DRAM roof; otherwise none of the four below is set.
  std::optional<double> attainable;
  std::string bound_by;                // "FP32 peak", "DRAM bandwidth", "L2 bandwidth", ...
  std::optional<double> roof_percent;  // achieved / attainable x 100
  std::string region;                  // "memory" or "compute": DRAM intensity vs its ridge
};
std::optional<Roofline> roofline(const KernelMetricValues& k);

// ---- Everything for one group -----------------------------------------------------------

struct KernelMetrics {
  KernelMetricValues values;
  std::optional<SpeedOfLight> sol;
  std::optional<MemoryWorkload> memory;
  std::optional<AchievedOccupancy> occupancy;
  std::optional<WarpStalls> stalls;
  std::optional<TensorUse> tensor;
  std::optional<Roofline> roofline;
};
std::vector<KernelMetrics> analyze_kernel_metrics(const Trace& trace);

// ---- GPU-wide samples over time -----------------------------------------------------------

struct GpuMetricSeries {
  std::string metric;
  std::string label;  // from metric_sets.h, else the metric name
  MetricUnit unit = MetricUnit::Count;
  size_t samples = 0;
  double mean = 0, p50 = 0, p95 = 0, max = 0;  // over samples; p95 by nearest rank
  std::vector<double> buckets;                 // overlap-weighted mean per time bucket; NaN where none overlaps
};

// One device of one process (PM sampling runs per device).
struct GpuUtilization {
  uint32_t pid = 0;
  uint32_t device = 0;
  std::string device_name;
  TimeNs start = 0, end = 0;             // first sample start, last sample end
  TimeNs interval_ns = 0;                // median sample length
  std::vector<GpuMetricSeries> metrics;  // gpu_sample_metrics() order, then others by name
};

// `buckets` equal slices of [start, end), fewer when a metric has fewer samples.
std::vector<GpuUtilization> summarize_gpu_samples(const Trace& trace, size_t buckets = 20);

}  // namespace gpuscope::analysis

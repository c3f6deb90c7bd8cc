// Hardware metrics for synthesized traces (tests of analysis_metrics.h, the metric rules and
// report sections): launches of one kernel with per-launch KernelMetric records, and metric
// sets with plausible H100 SXM values. Builds on trace_builder.h (pid 1, an H200-like device
// with 132 SMs); times in ns.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "gpuscope/metric_sets.h"
#include "trace_builder.h"

namespace gpuscope::testing {

// (metric name, value) pairs; a type of this namespace so that `a + b` (concatenation) is found.
struct Metrics : std::vector<std::pair<std::string, double>> {
  using vector::vector;
};

inline Metrics operator+(Metrics a, const Metrics& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Attaches metrics to the launch with correlation id `corr` of pid 1.
inline void add_metrics(Trace& t, uint32_t corr, const Metrics& metrics) {
  for (const auto& [name, value] : metrics) {
    KernelMetric m;
    m.pid = 1;
    m.correlation_id = corr;
    m.metric = t.strings.intern(name);
    m.value = value;
    t.kernel_metrics.push_back(m);
  }
}

// `count` launches of `name`, each `kernel_ns` on the GPU, back to back from `start` (a 5 µs
// launch call 10 µs before each kernel), every launch measured with `metrics`. Returns the end
// of the last kernel. The launch configuration is trace_builder's (132 x 128 threads, 32 regs).
inline TimeNs launches(TraceBuilder& b, const std::string& name, int count, TimeNs start, TimeNs kernel_ns,
                       const Metrics& metrics) {
  TimeNs t = start;
  for (int i = 0; i < count; ++i) {
    const uint32_t corr = b.api("cudaLaunchKernel", t, t + 5'000);
    b.kernel(name, t + 10'000, t + 10'000 + kernel_ns, corr);
    add_metrics(b.trace(), corr, metrics);
    t += 10'000 + kernel_ns;
  }
  return t;
}

// Sets the grid of every launch of `name` (x only; the block stays 128 threads).
inline void set_grid(Trace& t, const std::string& name, int blocks) {
  const StringId id = t.strings.intern(name);
  for (Kernel& k : t.kernels)
    if (k.name == id) k.grid[0] = blocks;
}

// Speed of light: SM, memory and per-unit throughput in % of peak, duration in ns.
inline Metrics sol(double sm, double memory, double dram, double l2, double l1, double duration_ns) {
  return {{"gpu__time_duration.sum", duration_ns},
          {"sm__throughput.avg.pct_of_peak_sustained_elapsed", sm},
          {"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", memory},
          {"dram__throughput.avg.pct_of_peak_sustained_elapsed", dram},
          {"lts__throughput.avg.pct_of_peak_sustained_elapsed", l2},
          {"l1tex__throughput.avg.pct_of_peak_sustained_active", l1}};
}

// Memory workload per launch: DRAM bytes, hit rates, bank conflicts and SM active cycles.
inline Metrics memory(double dram_read, double dram_written, double l1_hit, double l2_hit, double load_conflicts,
                      double sm_active_cycles) {
  return {{"dram__bytes_read.sum", dram_read},
          {"dram__bytes_write.sum", dram_written},
          {"l1tex__t_sector_hit_rate.pct", l1_hit},
          {"lts__t_sector_hit_rate.pct", l2_hit},
          {"lts__t_sectors_srcunit_tex_op_read.sum", dram_read / 32 * 1.5},
          {"lts__t_sectors_srcunit_tex_op_write.sum", dram_written / 32},
          {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", load_conflicts},
          {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", 0},
          {"sm__cycles_active.avg", sm_active_cycles}};
}

inline Metrics occupancy(double achieved_percent, double warps_per_sm) {
  return {{"sm__warps_active.avg.pct_of_peak_sustained_active", achieved_percent},
          {"sm__warps_active.avg.per_cycle_active", warps_per_sm}};
}

// Stall cycles per issued instruction by reason; "selected" is always 1 (the issuing cycle).
inline Metrics stalls(const std::vector<std::pair<std::string, double>>& reasons, double issue_active_percent) {
  Metrics m{{stall_metric_name("selected"), 1.0},
            {"smsp__issue_active.avg.pct_of_peak_sustained_active", issue_active_percent}};
  double total = 1.0;
  for (const auto& [reason, cycles] : reasons) {
    m.push_back({stall_metric_name(reason), cycles});
    total += cycles;
  }
  m.push_back({"smsp__average_warp_latency_per_inst_issued.ratio", total});
  return m;
}

// FMA-pipe instruction counts (thread instructions) and tensor ops per launch.
inline Metrics flops(double ffma, double fadd, double hfma, double tensor_fp16) {
  return {{"smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", fadd},
          {"smsp__sass_thread_inst_executed_op_fmul_pred_on.sum", 0},
          {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", ffma},
          {"smsp__sass_thread_inst_executed_op_dadd_pred_on.sum", 0},
          {"smsp__sass_thread_inst_executed_op_dmul_pred_on.sum", 0},
          {"smsp__sass_thread_inst_executed_op_dfma_pred_on.sum", 0},
          {"smsp__sass_thread_inst_executed_op_hadd_pred_on.sum", 0},
          {"smsp__sass_thread_inst_executed_op_hmul_pred_on.sum", 0},
          {"smsp__sass_thread_inst_executed_op_hfma_pred_on.sum", hfma},
          {"sm__ops_path_tensor_src_fp16.sum", tensor_fp16},
          {"sm__ops_path_tensor_src_bf16_dst_fp32.sum", 0},
          {"sm__ops_path_tensor_src_tf32_dst_fp32.sum", 0},
          {"sm__ops_path_tensor_src_fp8.sum", 0},
          {"sm__ops_path_tensor_src_int8.sum", 0},
          {"sm__ops_path_tensor_src_fp64.sum", 0}};
}

// Bytes per memory level (roofline set).
inline Metrics level_bytes(double dram, double l2, double l1) {
  return {{"dram__bytes.sum", dram}, {"lts__t_bytes.sum", l2}, {"l1tex__t_bytes.sum", l1}};
}

// H100 SXM-like peaks, as the roofline set collects them: per-cycle peaks x clocks give
// FP32 59.3 TFLOP/s (16,896 FFMA/cycle x 2 x 1.755 GHz), FP64 29.7, FP16 118.6 TFLOP/s, and
// DRAM 3.35 TB/s, L2 5.39 TB/s, L1 29.65 TB/s.
inline Metrics h100_peaks() {
  return {{"sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained", 16896},
          {"sm__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained", 8448},
          {"sm__sass_thread_inst_executed_op_hfma_pred_on.sum.peak_sustained", 33792},
          {"sm__cycles_elapsed.avg.per_second", 1.755e9},
          {"dram__bytes.sum.peak_sustained", 2048},
          {"dram__cycles_elapsed.avg.per_second", 1.6357421875e9},
          {"lts__t_bytes.sum.peak_sustained", 3072},
          {"lts__cycles_elapsed.avg.per_second", 1.755e9},
          {"l1tex__t_bytes.sum.peak_sustained", 16896},
          {"l1tex__cycles_elapsed.avg.per_second", 1.755e9}};
}

// One tensor instruction path: its ops per launch and its peak per cycle. Peaks measured on an
// NVIDIA H100 80GB HBM3 (CUDA 13.0, 132 SMs): wgmma FP16/BF16 dense 540,672 ops/cycle, mma.sync
// FP16 dense 360,448, sparse twice the dense figure.
inline Metrics tensor_path(const std::string& path, double ops, double peak_per_cycle) {
  return {{path, ops}, {path + ".peak_sustained", peak_per_cycle}};
}
inline const std::string kWgmmaBf16 = "sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32_sparsity_off.sum";
inline const std::string kMmaSyncFp16 = "sm__ops_path_tensor_op_hmma_src_fp16_dst_fp32_sparsity_off.sum";

// One PM sample of a GPU-wide metric on device 0 of pid 1.
inline void add_sample(Trace& t, const std::string& metric, TimeNs start, TimeNs end, double value) {
  GpuMetricSample s;
  s.pid = 1;
  s.device = 0;
  s.start = start;
  s.end = end;
  s.metric = t.strings.intern(metric);
  s.value = value;
  t.gpu_metric_samples.push_back(s);
}

}  // namespace gpuscope::testing

// The metric table behind include/gpuscope/metric_sets.h.
//
// Every name was checked against CUPTI's host API for GH100 (tests/unit/capture/
// metrics_host_test.cpp builds a configuration of each set for GH100 on a CPU), and the
// rollups are those of ncu's sections, so ncu and gpuscope report the same quantity:
//   *.pct_of_peak_sustained_elapsed  share of the peak over the kernel's whole duration
//   *.pct_of_peak_sustained_active   share of the peak over the cycles the unit was active
#include "gpuscope/metric_sets.h"

#include <algorithm>

namespace gpuscope {
namespace {

using U = MetricUnit;

const char* const kStallReasons[] = {
    "long_scoreboard",
    "short_scoreboard",
    "barrier",
    "mio_throttle",
    "lg_throttle",
    "math_pipe_throttle",
    "wait",
    "not_selected",
    "selected",
    "no_instruction",
    "branch_resolving",
    "dispatch_stall",
    "drain",
    "imc_miss",
    "membar",
    "misc",
    "sleeping",
    "tex_throttle",
    "gmma",
};

std::vector<MetricInfo> stall_metrics() {
  // The names must outlive the table: kept in a static list of strings, built once (a static's
  // initialisation is thread-safe; the report's sections and rules ask from several threads).
  static const std::vector<std::string> names = [] {
    std::vector<std::string> list;
    for (const char* reason : kStallReasons) list.push_back(stall_metric_name(reason));
    return list;
  }();
  std::vector<MetricInfo> out{
      {"smsp__average_warp_latency_per_inst_issued.ratio", U::Cycles, "Warp cycles per issued instruction"},
      {"smsp__average_warps_active_per_issue_active.ratio", U::Ratio, "Active warps per issue cycle"}};
  for (size_t i = 0; i < names.size(); ++i) out.push_back({names[i].c_str(), U::Ratio, kStallReasons[i]});
  return out;
}

// FLOPs by precision as ncu's roofline counts them (add + mul + 2 x fma thread instructions) and
// tensor-core operations by source precision: in both the compute and the roofline set.
std::vector<MetricInfo> flop_metrics() {
  return {{"smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", U::Count, "FP32 add"},
          {"smsp__sass_thread_inst_executed_op_fmul_pred_on.sum", U::Count, "FP32 mul"},
          {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", U::Count, "FP32 fma"},
          {"smsp__sass_thread_inst_executed_op_dadd_pred_on.sum", U::Count, "FP64 add"},
          {"smsp__sass_thread_inst_executed_op_dmul_pred_on.sum", U::Count, "FP64 mul"},
          {"smsp__sass_thread_inst_executed_op_dfma_pred_on.sum", U::Count, "FP64 fma"},
          {"smsp__sass_thread_inst_executed_op_hadd_pred_on.sum", U::Count, "FP16 add"},
          {"smsp__sass_thread_inst_executed_op_hmul_pred_on.sum", U::Count, "FP16 mul"},
          {"smsp__sass_thread_inst_executed_op_hfma_pred_on.sum", U::Count, "FP16 fma"},
          {"sm__ops_path_tensor_src_fp16.sum", U::Count, "Tensor ops FP16"},
          {"sm__ops_path_tensor_src_bf16_dst_fp32.sum", U::Count, "Tensor ops BF16"},
          {"sm__ops_path_tensor_src_tf32_dst_fp32.sum", U::Count, "Tensor ops TF32"},
          {"sm__ops_path_tensor_src_fp8.sum", U::Count, "Tensor ops FP8"},
          {"sm__ops_path_tensor_src_int8.sum", U::Count, "Tensor ops INT8"},
          {"sm__ops_path_tensor_src_fp64.sum", U::Count, "Tensor ops FP64"}};
}

// Each tensor instruction path's ops and peak per cycle, so the tensor roof is the one of the
// instructions a kernel ran (wgmma dense FP16 runs 1.5x mma.sync's rate on an H100). The FP64
// path's ops are already among flop_metrics().
std::vector<MetricInfo> tensor_path_metrics() {
  // Built once: MetricInfo holds plain pointers into these names.
  static const std::vector<std::string> peaks = [] {
    std::vector<std::string> out;
    for (const TensorPath& path : tensor_paths()) out.push_back(std::string(path.metric) + ".peak_sustained");
    return out;
  }();
  const std::vector<MetricInfo> by_precision = flop_metrics();
  std::vector<MetricInfo> out;
  for (size_t i = 0; i < tensor_paths().size(); ++i) {
    const char* ops = tensor_paths()[i].metric;
    const bool collected = std::any_of(by_precision.begin(), by_precision.end(),
                                       [&](const MetricInfo& m) { return std::string_view(m.name) == ops; });
    if (!collected) out.push_back({ops, U::Count, "Tensor path ops"});
    out.push_back({peaks[i].c_str(), U::PerCycle, "Tensor path peak"});
  }
  return out;
}

// `head`, then `tail` appended.
std::vector<MetricInfo> join(std::vector<MetricInfo> head, const std::vector<MetricInfo>& tail) {
  head.insert(head.end(), tail.begin(), tail.end());
  return head;
}

std::vector<MetricSet> build_sets() {
  std::vector<MetricSet> sets;
  sets.push_back(
      {"sol",
       "speed of light: duration, SM and memory throughput, achieved occupancy",
       {{"gpu__time_duration.sum", U::Nanoseconds, "Duration"},
        {"sm__throughput.avg.pct_of_peak_sustained_elapsed", U::Percent, "SM throughput"},
        {"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", U::Percent, "Memory throughput"},
        {"dram__throughput.avg.pct_of_peak_sustained_elapsed", U::Percent, "DRAM throughput"},
        {"l1tex__throughput.avg.pct_of_peak_sustained_active", U::Percent, "L1/TEX throughput"},
        {"lts__throughput.avg.pct_of_peak_sustained_elapsed", U::Percent, "L2 throughput"},
        {"sm__warps_active.avg.pct_of_peak_sustained_active", U::Percent, "Achieved occupancy"},
        {"gpc__cycles_elapsed.max", U::Cycles, "Elapsed cycles"}}});
  sets.push_back(
      {"memory",
       "memory workload: DRAM bytes, L1/L2 hit rates, L2 and DRAM sectors, bank conflicts",
       {{"dram__bytes_read.sum", U::Bytes, "DRAM bytes read"},
        {"dram__bytes_write.sum", U::Bytes, "DRAM bytes written"},
        {"l1tex__t_sector_hit_rate.pct", U::Percent, "L1/TEX hit rate"},
        {"lts__t_sector_hit_rate.pct", U::Percent, "L2 hit rate"},
        {"lts__t_sectors_srcunit_tex_op_read.sum", U::Sectors, "L2 sectors read by SMs"},
        {"lts__t_sectors_srcunit_tex_op_write.sum", U::Sectors, "L2 sectors written by SMs"},
        {"dram__sectors_read.sum", U::Sectors, "DRAM sectors read"},
        {"dram__sectors_write.sum", U::Sectors, "DRAM sectors written"},
        {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", U::Count, "Shared load bank conflicts"},
        {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", U::Count, "Shared store bank conflicts"}}});
  sets.push_back(
      {"compute", "compute workload: issue slots, pipe utilization, tensor pipe, FLOPs by precision",
       join({{"smsp__issue_active.avg.pct_of_peak_sustained_active", U::Percent, "Issue slots busy"},
             {"smsp__inst_executed.sum", U::Count, "Warp instructions executed"},
             {"sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active", U::Percent, "ALU pipe"},
             {"sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active", U::Percent, "FMA pipe"},
             {"sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_active", U::Percent, "FP64 pipe"},
             {"sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active", U::Percent, "LSU pipe"},
             {"sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active", U::Percent, "XU pipe"},
             {"sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active", U::Percent, "Tensor pipe active"}},
            flop_metrics())});
  sets.push_back({"occupancy",
                  "achieved occupancy (theoretical and limiter come from the trace)",
                  {{"sm__warps_active.avg.pct_of_peak_sustained_active", U::Percent, "Achieved occupancy"},
                   {"sm__warps_active.avg.per_cycle_active", U::Ratio, "Achieved active warps per SM"},
                   {"sm__ctas_launched.sum", U::Count, "CTAs launched"},
                   {"sm__cycles_active.avg", U::Cycles, "SM active cycles"}}});
  sets.push_back({"stalls", "warp stall breakdown: warps stalled per issue cycle, by reason", stall_metrics()});
  sets.push_back(
      {"roofline", "roofline: FLOPs and bytes per memory level, and the device's peaks",
       join(join(join({{"gpu__time_duration.sum", U::Nanoseconds, "Duration"}}, flop_metrics()),
                 {{"dram__bytes.sum", U::Bytes, "DRAM bytes"},
                  {"lts__t_bytes.sum", U::Bytes, "L2 bytes"},
                  {"l1tex__t_bytes.sum", U::Bytes, "L1 bytes"},
                  // Peaks, as ncu's roofline takes them: per-cycle peak x the unit's clock.
                  {"sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained", U::PerCycle, "FP32 fma peak"},
                  {"sm__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained", U::PerCycle, "FP64 fma peak"},
                  {"sm__sass_thread_inst_executed_op_hfma_pred_on.sum.peak_sustained", U::PerCycle, "FP16 fma peak"},
                  {"sm__cycles_elapsed.avg.per_second", U::PerSecond, "SM clock"},
                  {"dram__bytes.sum.peak_sustained", U::PerCycle, "DRAM bytes peak"},
                  {"dram__cycles_elapsed.avg.per_second", U::PerSecond, "DRAM clock"},
                  {"lts__t_bytes.sum.peak_sustained", U::PerCycle, "L2 bytes peak"},
                  {"lts__cycles_elapsed.avg.per_second", U::PerSecond, "L2 clock"},
                  {"l1tex__t_bytes.sum.peak_sustained", U::PerCycle, "L1 bytes peak"},
                  {"l1tex__cycles_elapsed.avg.per_second", U::PerSecond, "L1 clock"}}),
            tensor_path_metrics())});
  return sets;
}

bool valid_raw_name(std::string_view name) {
  if (name.empty()) return false;
  return std::none_of(name.begin(), name.end(), [](char c) { return c == ' ' || c == ';' || c == ',' || c == '\t'; });
}

}  // namespace

std::string stall_metric_name(std::string_view reason) {
  return "smsp__average_warps_issue_stalled_" + std::string(reason) + "_per_issue_active.ratio";
}

const std::vector<TensorPath>& tensor_paths() {
  static const std::vector<TensorPath> paths = {
      {"sm__ops_path_tensor_op_hgmma_src_fp16_sparsity_off.sum", "wgmma FP16"},
      {"sm__ops_path_tensor_op_hgmma_src_fp16_sparsity_on.sum", "wgmma FP16 sparse"},
      {"sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32_sparsity_off.sum", "wgmma BF16"},
      {"sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32_sparsity_on.sum", "wgmma BF16 sparse"},
      {"sm__ops_path_tensor_op_hgmma_src_tf32_dst_fp32_sparsity_off.sum", "wgmma TF32"},
      {"sm__ops_path_tensor_op_hgmma_src_tf32_dst_fp32_sparsity_on.sum", "wgmma TF32 sparse"},
      {"sm__ops_path_tensor_op_hmma_src_fp16_dst_fp32_sparsity_off.sum", "mma.sync FP16->FP32"},
      {"sm__ops_path_tensor_op_hmma_src_fp16_dst_fp32_sparsity_on.sum", "mma.sync FP16->FP32 sparse"},
      {"sm__ops_path_tensor_op_hmma_src_fp16_dst_fp16_sparsity_off.sum", "mma.sync FP16->FP16"},
      {"sm__ops_path_tensor_op_hmma_src_fp16_dst_fp16_sparsity_on.sum", "mma.sync FP16->FP16 sparse"},
      {"sm__ops_path_tensor_op_hmma_src_bf16_dst_fp32_sparsity_off.sum", "mma.sync BF16"},
      {"sm__ops_path_tensor_op_hmma_src_bf16_dst_fp32_sparsity_on.sum", "mma.sync BF16 sparse"},
      {"sm__ops_path_tensor_op_hmma_src_tf32_dst_fp32_sparsity_off.sum", "mma.sync TF32"},
      {"sm__ops_path_tensor_op_hmma_src_tf32_dst_fp32_sparsity_on.sum", "mma.sync TF32 sparse"},
      {"sm__ops_path_tensor_src_fp8_sparsity_off.sum", "FP8"},
      {"sm__ops_path_tensor_src_fp8_sparsity_on.sum", "FP8 sparse"},
      {"sm__ops_path_tensor_src_fp64.sum", "FP64"},
  };
  return paths;
}

const std::vector<MetricSet>& metric_sets() {
  static const std::vector<MetricSet> sets = build_sets();
  return sets;
}

const std::vector<MetricInfo>& gpu_sample_metrics() {
  // PM sampling values are over one sample interval, so "elapsed" is the interval.
  static const std::vector<MetricInfo> metrics = {
      {"gr__cycles_active.avg.pct_of_peak_sustained_elapsed", U::Percent, "GPU active"},
      {"sm__cycles_active.avg.pct_of_peak_sustained_elapsed", U::Percent, "SM active"},
      {"sm__warps_active.avg.pct_of_peak_sustained_elapsed", U::Percent, "Warps active (occupancy)"},
      {"sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed", U::Percent, "Tensor pipe active"},
      {"dram__throughput.avg.pct_of_peak_sustained_elapsed", U::Percent, "DRAM throughput"},
      {"dram__bytes_read.sum.per_second", U::BytesPerSecond, "DRAM read bandwidth"},
      {"dram__bytes_write.sum.per_second", U::BytesPerSecond, "DRAM write bandwidth"},
      {"pcie__read_bytes.sum.per_second", U::BytesPerSecond, "PCIe read bandwidth"},
      {"pcie__write_bytes.sum.per_second", U::BytesPerSecond, "PCIe write bandwidth"},
  };
  return metrics;
}

const std::vector<MetricInfo>& gpm_sample_metrics() {
  // NVML GPM values, each over one sample window. "gpm__" names them apart from CUPTI's
  // counters: NVML defines them itself (nvml.h), close to but not the same as those.
  static const std::vector<MetricInfo> metrics = {
      {"gpm__graphics_active.pct", U::Percent, "GPU active"},
      {"gpm__sm_active.pct", U::Percent, "SM active"},
      {"gpm__sm_occupancy.pct", U::Percent, "Warps active (occupancy)"},
      {"gpm__tensor_active.pct", U::Percent, "Tensor pipe active"},
      {"gpm__dram_bandwidth.pct", U::Percent, "DRAM bandwidth, % of peak"},
      {"gpm__fp64_active.pct", U::Percent, "FP64 pipe active (non-tensor)"},
      {"gpm__fp32_active.pct", U::Percent, "FP32 pipe active (non-tensor)"},
      {"gpm__fp16_active.pct", U::Percent, "FP16 pipe active (non-tensor)"},
      {"gpm__pcie_to_gpu_bytes.per_second", U::BytesPerSecond, "PCIe to the GPU"},
      {"gpm__pcie_from_gpu_bytes.per_second", U::BytesPerSecond, "PCIe from the GPU"},
  };
  return metrics;
}

size_t gpu_sample_rank(std::string_view name) {
  size_t position = 0;
  for (const auto* known : {&gpm_sample_metrics(), &gpu_sample_metrics()})
    for (const MetricInfo& m : *known) {
      if (name == m.name) return position;
      ++position;
    }
  return position;
}

const MetricInfo* find_metric(std::string_view name) {
  for (const MetricSet& set : metric_sets())
    for (const MetricInfo& m : set.metrics)
      if (name == m.name) return &m;
  for (const MetricInfo& m : gpm_sample_metrics())
    if (name == m.name) return &m;
  for (const MetricInfo& m : gpu_sample_metrics())
    if (name == m.name) return &m;
  return nullptr;
}

bool expand_metric_sets(std::string_view sets, const std::vector<std::string>& raw_metrics,
                        std::vector<std::string>& out, std::string& error) {
  out.clear();
  auto add = [&](const std::string& name) {
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  };
  std::vector<std::string> wanted;
  while (!sets.empty()) {
    const size_t comma = sets.find(',');
    std::string name(sets.substr(0, comma));
    sets = comma == std::string_view::npos ? std::string_view() : sets.substr(comma + 1);
    if (name.empty()) continue;
    const bool known = name == "full" || std::any_of(metric_sets().begin(), metric_sets().end(),
                                                     [&](const MetricSet& s) { return name == s.name; });
    if (!known) {
      error = "unknown metric set '" + name + "' (sets: sol, memory, compute, occupancy, stalls, roofline, full)";
      return false;
    }
    wanted.push_back(name);
  }
  for (const MetricSet& set : metric_sets()) {
    const bool take = std::any_of(wanted.begin(), wanted.end(),
                                  [&](const std::string& w) { return w == "full" || w == set.name; });
    if (take)
      for (const MetricInfo& m : set.metrics) add(m.name);
  }
  for (const std::string& raw : raw_metrics) {
    if (!valid_raw_name(raw)) {
      error = "bad metric name '" + raw + "' (one Perfworks name per --metric, e.g. dram__bytes_read.sum)";
      return false;
    }
    add(raw);
  }
  return true;
}

}  // namespace gpuscope

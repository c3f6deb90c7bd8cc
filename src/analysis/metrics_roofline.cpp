// FLOPs, tensor-core use and the hierarchical roofline of one kernel group, computed the way
// ncu's roofline sections compute them (docs/metrics.md):
//   FLOPs per precision = add + mul + 2 x fma thread instructions (FP64, FP32, FP16 alike);
//   tensor FLOPs        = sm__ops_path_tensor_src_* ops (INT8 ops are not FLOPs);
//   peak FLOP/s         = peak fma thread instructions per cycle x 2 x SM clock (Hz);
//   tensor peak         = the kernel's tensor ops / the cycles they need at each instruction
//                         path's peak (wgmma, mma.sync; precision; sparsity) x SM clock;
//   peak bandwidth      = peak bytes per cycle x the unit's clock, for DRAM, L2 and L1;
//   attainable          = min(peak FLOP/s, intensity x bandwidth at each level).
// Only peaks the capture measured are used: without them there is no roof, never a guessed one.
#include <algorithm>

#include "gpuscope/analysis_metrics.h"
#include "gpuscope/metric_sets.h"

namespace gpuscope::analysis {
namespace {

// FP16 FLOPs (FMA pipe) per DRAM byte above which FP16 math looks like a matrix product rather
// than elementwise work (which moves a few bytes per FLOP and gains nothing from tensor cores).
constexpr double kMatrixIntensity = 10.0;

std::string sass(std::string_view op) {
  return "smsp__sass_thread_inst_executed_op_" + std::string(op) + "_pred_on.sum";
}

// add + mul + 2 x fma of one precision ("f", "d" or "h"); nullopt when none is collected.
std::optional<double> flops_of(const KernelMetricValues& k, const char* p) {
  const auto add = k.get(sass(std::string(p) + "add")), mul = k.get(sass(std::string(p) + "mul")),
             fma = k.get(sass(std::string(p) + "fma"));
  if (!add && !mul && !fma) return std::nullopt;
  return add.value_or(0) + mul.value_or(0) + 2.0 * fma.value_or(0);
}

std::optional<double> product(const std::optional<double>& a, const std::optional<double>& b) {
  if (!a || !b || !(*a > 0) || !(*b > 0)) return std::nullopt;
  return *a * *b;
}

// Peak FLOP/s of a precision: its fma peak per cycle x 2 FLOPs x the SM clock.
std::optional<double> peak_flops(const KernelMetricValues& k, const char* p) {
  const auto per_cycle = k.get("sm__sass_thread_inst_executed_op_" + std::string(p) + "fma_pred_on.sum.peak_sustained");
  const auto fma_flops = per_cycle ? std::optional<double>(2.0 * *per_cycle) : std::nullopt;
  return product(fma_flops, k.get("sm__cycles_elapsed.avg.per_second"));
}

std::optional<double> dram_bytes(const KernelMetricValues& k) {
  if (auto b = k.get("dram__bytes.sum")) return b;
  const auto r = k.get("dram__bytes_read.sum"), w = k.get("dram__bytes_write.sum");
  if (!r && !w) return std::nullopt;
  return r.value_or(0) + w.value_or(0);
}

struct TensorMetric {
  const char* metric;
  const char* precision;
  bool is_float;
};
constexpr TensorMetric kTensor[] = {
    {"sm__ops_path_tensor_src_fp16.sum", "FP16", true},
    {"sm__ops_path_tensor_src_bf16_dst_fp32.sum", "BF16", true},
    {"sm__ops_path_tensor_src_tf32_dst_fp32.sum", "TF32", true},
    {"sm__ops_path_tensor_src_fp8.sum", "FP8", true},
    {"sm__ops_path_tensor_src_int8.sum", "INT8", false},
    {"sm__ops_path_tensor_src_fp64.sum", "FP64", true},
};

// Tensor pipe activity (%) from which a kernel counts as doing tensor work.
constexpr double kTensorWorkPercent = 1.0;

// Paths below this share of a kernel's tensor ops are left out of its mix description.
constexpr double kMixShare = 0.01;

// The tensor roof of the instructions the kernel ran: total ops / sum(ops_i / peak_i) per cycle
// x the SM clock. None unless every path that ran has its peak and the paths account for the
// kernel's tensor FLOPs (else the roof would be of some other mix).
std::optional<double> tensor_peak(const KernelMetricValues& k, double tensor_flops, std::string& mix) {
  double ops = 0, cycles = 0;
  std::vector<std::pair<double, const char*>> parts;
  // Each path's peak ops per cycle: on an H100, wgmma dense FP16 peaks at 4096 per SM,
  // mma.sync at two thirds of that, sparse at twice (docs/metrics.md).
  for (const TensorPath& p : tensor_paths()) {
    const auto n = k.get(p.metric);
    if (!n || !(*n > 0)) continue;
    const auto peak = k.get(std::string(p.metric) + ".peak_sustained");
    if (!peak || !(*peak > 0)) return std::nullopt;
    ops += *n;
    cycles += *n / *peak;
    parts.emplace_back(*n, p.label);
  }
  if (!(ops > 0) || ops < 0.99 * tensor_flops) return std::nullopt;
  std::stable_sort(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (const auto& [n, label] : parts)
    if (n >= kMixShare * ops)
      mix += (mix.empty() ? "" : ", ") + std::string(label) + " " +
             std::to_string(static_cast<int>(n / ops * 100 + 0.5)) + "%";
  return product(ops / cycles, k.get("sm__cycles_elapsed.avg.per_second"));
}

}  // namespace

ScalarFlops scalar_flops(const KernelMetricValues& k) {
  ScalarFlops s;
  const auto d = flops_of(k, "d"), f = flops_of(k, "f"), h = flops_of(k, "h");
  s.collected = d || f || h;
  s.fp64 = d.value_or(0);
  s.fp32 = f.value_or(0);
  s.fp16 = h.value_or(0);
  return s;
}

std::optional<TensorUse> tensor_use(const KernelMetricValues& k) {
  TensorUse t;
  t.pipe_active_percent = k.get("sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active");
  size_t collected = 0;
  for (const TensorMetric& m : kTensor) {
    const auto ops = k.get(m.metric);
    if (!ops) continue;
    ++collected;
    t.ops.push_back({m.precision, *ops});
    (m.is_float ? t.float_ops : t.int_ops) += *ops;
  }
  // Chips other than Hopper name some of these counters differently (Ada and Ampere count FP16
  // by destination precision): with one missing, the tensor FLOPs are unknown, not the sum of
  // the others.
  if (collected > 0 && collected < std::size(kTensor)) {
    t.ops.clear();
    t.float_ops = t.int_ops = 0;
    t.ops_incomplete = true;
  }
  t.scalar = scalar_flops(k);
  if (!t.pipe_active_percent && t.ops.empty()) return std::nullopt;

  const double scalar = t.scalar.fp16 + t.scalar.fp32 + t.scalar.fp64;
  const auto bytes = dram_bytes(k);
  t.half_math_without_tensor = !t.ops.empty() && t.float_ops + t.int_ops == 0 && t.scalar.fp16 > 0 &&
                               t.scalar.fp16 >= 0.5 * scalar && bytes && *bytes > 0 &&
                               t.scalar.fp16 / *bytes >= kMatrixIntensity;
  return t;
}

std::optional<Roofline> roofline(const KernelMetricValues& k) {
  const ScalarFlops s = scalar_flops(k);
  const auto tensor = tensor_use(k);
  // Tensor work of unknown FLOPs: the dominant precision is unknown, so no roofline point.
  if (tensor && tensor->ops_incomplete && tensor->pipe_active_percent.value_or(0) >= kTensorWorkPercent)
    return std::nullopt;
  const bool tensor_ops = tensor && !tensor->ops.empty();
  if (!s.collected && !tensor_ops) return std::nullopt;

  Roofline r;
  r.duration_ns = k.duration_ns();
  const double seconds = r.duration_ns * 1e-9;
  const PrecisionRoof candidates[] = {
      {"FP64", s.fp64, 0, peak_flops(k, "d"), {}},
      {"FP32", s.fp32, 0, peak_flops(k, "f"), {}},
      {"FP16", s.fp16, 0, peak_flops(k, "h"), {}},
      {"Tensor", tensor_ops ? tensor->float_ops : 0, 0, std::nullopt, {}},
  };
  for (PrecisionRoof p : candidates) {
    if (!(p.flops > 0)) continue;
    if (p.precision == "Tensor") p.peak = tensor_peak(k, p.flops, p.mix);
    p.achieved = seconds > 0 ? p.flops / seconds : 0;
    r.precisions.push_back(p);
  }
  // Most FLOPs first; stable, so ties keep FP64, FP32, FP16, Tensor.
  std::stable_sort(r.precisions.begin(), r.precisions.end(),
                   [](const PrecisionRoof& a, const PrecisionRoof& b) { return a.flops > b.flops; });

  const struct {
    const char* level;
    std::optional<double> bytes;
    const char* peak;
    const char* clock;
  } levels[] = {
      {"DRAM", dram_bytes(k), "dram__bytes.sum.peak_sustained", "dram__cycles_elapsed.avg.per_second"},
      {"L2", k.get("lts__t_bytes.sum"), "lts__t_bytes.sum.peak_sustained", "lts__cycles_elapsed.avg.per_second"},
      {"L1", k.get("l1tex__t_bytes.sum"), "l1tex__t_bytes.sum.peak_sustained", "l1tex__cycles_elapsed.avg.per_second"}};
  const PrecisionRoof* dominant = r.precisions.empty() ? nullptr : &r.precisions.front();
  for (const auto& l : levels) {
    if (!l.bytes) continue;
    LevelRoof lr{l.level, *l.bytes, std::nullopt, product(k.get(l.peak), k.get(l.clock)), std::nullopt};
    if (dominant && lr.bytes > 0) lr.intensity = dominant->flops / lr.bytes;
    if (dominant && dominant->peak && lr.peak_bandwidth) lr.ridge = *dominant->peak / *lr.peak_bandwidth;
    r.levels.push_back(lr);
  }

  // The roof: the dominant precision's peak and the DRAM roof are both needed.
  const auto dram = std::find_if(r.levels.begin(), r.levels.end(),
                                 [](const LevelRoof& l) { return l.level == "DRAM"; });
  if (!dominant || !dominant->peak || dram == r.levels.end() || !dram->peak_bandwidth) return r;
  double attainable = *dominant->peak;
  std::string bound_by = dominant->precision + " peak";
  for (const LevelRoof& l : r.levels) {
    if (!l.intensity || !l.peak_bandwidth) continue;
    const double roof = *l.intensity * *l.peak_bandwidth;
    if (roof < attainable) attainable = roof, bound_by = l.level + " bandwidth";
  }
  r.attainable = attainable;
  r.bound_by = bound_by;
  if (attainable > 0) r.roof_percent = dominant->achieved / attainable * 100.0;
  r.region = dram->intensity && dram->ridge && *dram->intensity < *dram->ridge ? "memory" : "compute";
  return r;
}

}  // namespace gpuscope::analysis

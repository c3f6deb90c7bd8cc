// Kernel-metric sections, part 2: warp stalls with what each dominant reason means and what to
// try, tensor-core use, and the roofline. Rows are kernel groups in kernel-time order, cut by
// --top; the analyses are in src/analysis/metrics_*.cpp, the definitions in docs/metrics.md.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/build_metrics.h"
#include "report/units.h"

namespace gpuscope::report {
namespace {

constexpr size_t kStallColumns = 3;            // reasons shown per kernel
constexpr double kExplainStallPercent = 20.0;  // 2nd/3rd reasons explained from this share on
constexpr double kSecondaryFlopsShare = 0.05;  // other precisions noted from 5 % of the dominant one's FLOPs

bool shown(const Table& t, size_t top) { return top == 0 || t.rows.size() <= top; }

std::string tensor_mix(const analysis::TensorUse& t) {
  const double all = t.float_ops + t.int_ops;
  if (!(all > 0)) return "none";
  std::vector<analysis::TensorOps> ops = t.ops;
  std::stable_sort(ops.begin(), ops.end(), [](const auto& a, const auto& b) { return a.ops > b.ops; });
  std::string out;
  for (const auto& o : ops)
    if (o.ops > 0) out += (out.empty() ? "" : ", ") + o.precision + " " + format_percent(o.ops / all * 100.0);
  return out;
}

}  // namespace

std::optional<Section> build_warp_stall_section(const std::vector<KernelMetrics>& kernels, size_t top) {
  Table t;
  t.key = "warp_stalls";
  t.title = "Top stall reasons, share of stall cycles";
  t.columns = {kernel_column(), num_column("cycles_per_instruction", "Cycles/instr", Unit::Plain)};
  for (size_t i = 1; i <= kStallColumns; ++i) {
    t.columns.push_back(text_column(fmt::format("stall_{}", i), i == 1 ? "Top stall" : fmt::format("#{}", i)));
    t.columns.push_back(num_column(fmt::format("stall_{}_percent", i), "Share", Unit::Percent));
  }
  std::vector<std::string> explain;  // reasons to explain, in order of first appearance
  for (const KernelMetrics& k : kernels) {
    if (!k.stalls) continue;
    const auto& w = *k.stalls;
    std::optional<double> cpi;
    if (w.cycles_per_issue) cpi = std::round(*w.cycles_per_issue * 100) / 100;
    std::vector<Cell> row = {text(k.values.name), opt_num(cpi, Unit::Plain)};
    for (size_t i = 0; i < kStallColumns; ++i) {
      if (i < w.reasons.size()) {
        row.push_back(text(w.reasons[i].reason));
        row.push_back(num(w.reasons[i].percent, Unit::Percent));
      } else {
        row.emplace_back();  // two empty cells
        row.emplace_back();
      }
    }
    t.rows.push_back(std::move(row));
    if (!shown(t, top)) continue;
    for (size_t i = 0; i < std::min(kStallColumns, w.reasons.size()); ++i) {
      const auto& r = w.reasons[i];
      if ((i == 0 || r.percent >= kExplainStallPercent) &&
          std::find(explain.begin(), explain.end(), r.reason) == explain.end())
        explain.push_back(r.reason);
    }
  }
  if (t.rows.empty()) return std::nullopt;
  limit_rows(t, top);
  t.notes.push_back(
      "Cycles/instr: a warp's cycles between two issued instructions. Share: warps stalled for that "
      "reason per issued instruction, as a share of all stall cycles (the issuing cycle excluded). A "
      "stall costs time only when no other warp can issue meanwhile.");
  for (const std::string& reason : explain) {
    const analysis::StallGuidance* g = analysis::stall_guidance(reason);
    if (g) t.notes.push_back(fmt::format("{}: {}. Try: {}.", reason, g->meaning, g->advice));
  }
  Section s;
  s.key = "warp_stalls";
  s.title = "Warp stalls";
  s.tables.push_back(std::move(t));
  return s;
}

std::optional<Section> build_tensor_section(const std::vector<KernelMetrics>& kernels, size_t top) {
  Table t;
  t.key = "tensor_cores";
  t.title = "Tensor-core use, per launch";
  t.columns = {kernel_column(),
               num_column("pipe_active", "Tensor pipe", Unit::Percent),
               num_column("tensor_flops", "Tensor FLOPs", Unit::Count),
               num_column("tensor_rate", "Tensor rate", Unit::FlopsPerSecond),
               text_column("mix", "By precision"),
               num_column("fp16_fma_flops", "FP16 FMA-pipe", Unit::Count),
               num_column("fp32_fma_flops", "FP32 FMA-pipe", Unit::Count)};
  std::vector<std::string> flagged;
  bool incomplete = false;
  for (const KernelMetrics& k : kernels) {
    if (!k.tensor) continue;
    const auto& u = *k.tensor;
    incomplete |= u.ops_incomplete;
    const double seconds = k.values.duration_ns() * 1e-9;
    std::optional<double> ops, rate, fp16, fp32;
    if (!u.ops.empty()) ops = u.float_ops;
    if (ops && seconds > 0) rate = *ops / seconds;
    if (u.scalar.collected) fp16 = u.scalar.fp16, fp32 = u.scalar.fp32;
    t.rows.push_back({text(k.values.name), opt_num(u.pipe_active_percent, Unit::Percent), opt_num(ops, Unit::Count),
                      opt_num(rate, Unit::FlopsPerSecond), u.ops.empty() ? Cell{} : text(tensor_mix(u)),
                      opt_num(fp16, Unit::Count), opt_num(fp32, Unit::Count)});
    if (u.half_math_without_tensor && shown(t, top))
      flagged.push_back(
          fmt::format("{}: FP16 math on the FMA pipe and no tensor-core operation, at an intensity a "
                      "matrix product has; if it multiplies matrices, tensor cores run that math many "
                      "times faster (rule fp16_without_tensor_cores).",
                      k.values.name));
  }
  if (t.rows.empty()) return std::nullopt;
  limit_rows(t, top);
  t.notes.push_back(
      "Tensor FLOPs: tensor-core operations (sm__ops_path_tensor_src_*) as ncu counts them, INT8 left "
      "out (By precision includes it). FMA-pipe: FLOPs of add + mul + 2 x fma instructions.");
  if (incomplete)
    t.notes.push_back(
        "'-' Tensor FLOPs: this chip lacks some of the tensor-op counters of gpuscope's sets (they are "
        "Hopper's; Ada and Ampere count FP16 by destination precision), so its tensor FLOPs are unknown "
        "and it has no roofline point; the tensor pipe's activity is measured.");
  for (std::string& f : flagged) t.notes.push_back(std::move(f));
  Section s;
  s.key = "tensor_cores";
  s.title = "Tensor cores";
  s.tables.push_back(std::move(t));
  return s;
}

std::optional<Section> build_roofline_section(const std::vector<KernelMetrics>& kernels, size_t top) {
  Table roof;
  roof.key = "roofline";
  roof.title = "Roofline, dominant precision";
  roof.columns = {kernel_column(),
                  text_column("precision", "Precision"),
                  num_column("achieved", "Achieved", Unit::FlopsPerSecond),
                  num_column("peak", "Peak", Unit::FlopsPerSecond),
                  num_column("attainable", "Attainable", Unit::FlopsPerSecond),
                  num_column("roof_percent", "Of roof", Unit::Percent),
                  text_column("bound_by", "Bound by"),
                  text_column("region", "Region")};
  Table ai;
  ai.key = "arithmetic_intensity";
  ai.title = "Arithmetic intensity, FLOPs per byte moved";
  ai.columns = {kernel_column(),
                num_column("flops", "FLOPs", Unit::Count),
                num_column("dram", "DRAM", Unit::FlopsPerByte),
                num_column("l2", "L2", Unit::FlopsPerByte),
                num_column("l1", "L1", Unit::FlopsPerByte),
                num_column("dram_ridge", "DRAM ridge", Unit::FlopsPerByte)};
  std::vector<std::string> notes;
  bool no_peaks = false, tensor_without_peak = false;
  const std::optional<double> none;
  for (const KernelMetrics& k : kernels) {
    if (!k.roofline) continue;
    const auto& r = *k.roofline;
    if (r.precisions.empty()) {
      roof.rows.push_back({text(k.values.name), text("none"), opt_num(none, Unit::FlopsPerSecond),
                           opt_num(none, Unit::FlopsPerSecond), opt_num(none, Unit::FlopsPerSecond),
                           opt_num(none, Unit::Percent), Cell{}, Cell{}});
      ai.rows.push_back({text(k.values.name), num(0, Unit::Count), opt_num(none, Unit::FlopsPerByte),
                         opt_num(none, Unit::FlopsPerByte), opt_num(none, Unit::FlopsPerByte),
                         opt_num(none, Unit::FlopsPerByte)});
      continue;
    }
    const auto& p = r.precisions.front();
    roof.rows.push_back({text(k.values.name), text(p.precision), num(p.achieved, Unit::FlopsPerSecond),
                         opt_num(p.peak, Unit::FlopsPerSecond), opt_num(r.attainable, Unit::FlopsPerSecond),
                         opt_num(r.roof_percent, Unit::Percent), r.bound_by.empty() ? Cell{} : text(r.bound_by),
                         r.region.empty() ? Cell{} : text(r.region)});
    std::optional<double> level[3], ridge;
    for (const auto& l : r.levels) {
      const int i = l.level == "DRAM" ? 0 : l.level == "L2" ? 1 : 2;
      level[i] = l.intensity;
      if (i == 0) ridge = l.ridge;
    }
    ai.rows.push_back({text(k.values.name), num(p.flops, Unit::Count), opt_num(level[0], Unit::FlopsPerByte),
                       opt_num(level[1], Unit::FlopsPerByte), opt_num(level[2], Unit::FlopsPerByte),
                       opt_num(ridge, Unit::FlopsPerByte)});
    if (!shown(roof, top)) continue;
    tensor_without_peak |= p.precision == "Tensor" && !p.peak;
    no_peaks |= p.precision != "Tensor" && !r.attainable;
    if (!p.mix.empty())
      notes.push_back(fmt::format("{}: tensor peak of the instructions it ran: {}.", k.values.name, p.mix));
    std::string others;
    for (size_t i = 1; i < r.precisions.size(); ++i) {
      const auto& q = r.precisions[i];
      if (q.flops < kSecondaryFlopsShare * p.flops) continue;  // an epilogue's few FLOPs are not worth a line
      others += fmt::format("{}{} {}", others.empty() ? "" : ", ", q.precision, format_flops_rate(q.achieved));
      if (q.peak && *q.peak > 0)
        others += fmt::format(" ({} of its peak)", format_percent(q.achieved / *q.peak * 100.0));
    }
    if (!others.empty()) notes.push_back(fmt::format("{} also runs {}.", k.values.name, others));
  }
  if (roof.rows.empty()) return std::nullopt;
  limit_rows(roof, top);
  limit_rows(ai, top);
  roof.notes.push_back(
      "FLOPs: add + mul + 2 x fma instructions of the precision with the most FLOPs (tensor: tensor-core "
      "operations). Attainable: min(peak, intensity x bandwidth at DRAM, L2 and L1) from the peaks the "
      "capture measured; Of roof: achieved / attainable. Region: DRAM intensity below the DRAM ridge "
      "(peak / DRAM bandwidth) is memory-bound, above it compute-bound.");
  if (no_peaks) roof.notes.push_back("No roof where the peaks were not collected (the roofline set measures them).");
  if (tensor_without_peak)
    roof.notes.push_back(
        "Tensor: no roof without the peaks of the tensor instruction paths (wgmma, mma.sync by precision "
        "and sparsity), which the roofline set collects on Hopper.");
  for (std::string& n : notes) roof.notes.push_back(std::move(n));
  Section s;
  s.key = "roofline";
  s.title = "Roofline";
  s.tables.push_back(std::move(roof));
  s.tables.push_back(std::move(ai));
  return s;
}

}  // namespace gpuscope::report

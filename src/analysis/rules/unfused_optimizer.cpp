// Rule unfused_optimizer: a torch.optim Adam/AdamW/SGD step run as for-each kernels
// (multi_tensor_apply_kernel with ATen's foreach functors, aten::_foreach_* ops) or per
// parameter (elementwise kernels under Optimizer.step#<class>.step: add_, mul_, lerp_, addcdiv_,
// sqrt per tensor), where fused=True does the whole update in one kernel per tensor list.
//
// Saving: re-timed (retime.h) with each step's optimizer calls replaced by one fused call:
// kFusedHostNs on the host for the whole step (the fused AdamW.step of tests/data/kineto,
// H100 host under torch.profiler: 80-99 us; the for-each step there took 1.4-2.2 ms), its
// calls and the host work between them gone, and one kernel of the bytes it must touch over
// kFusedBandwidthShare of the GPU's DRAM bandwidth plus kFusedLaunchNs: per parameter
// element 4 fp32 streams read (param, grad, exp_avg, exp_avg_sq) and 3 written (param and the
// two states) = 28 bytes for Adam/AdamW (SGD with momentum: 20). Parameter sizes come from
// autograd's AccumulateGrad shapes; without them, a fused step touches about a third of what
// the for-each kernels do (AdamW's for-each path makes ~21 passes of a tensor list, fused 7).
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "analysis/grouping.h"
#include "analysis/rules/rule.h"

namespace gpuscope::analysis::rules {
namespace {

constexpr TimeNs kFusedHostNs = 80'000;  // host time of a fused optimizer step (see above)
constexpr double kFusedBandwidthShare =
    0.5;  // of DRAM peak: the kineto trace's fused AdamW kernel, 45 MB in 34 us on an H100
constexpr TimeNs kFusedLaunchNs = 5'000;       // a kernel's fixed cost (launch to end of an empty grid)
constexpr double kForeachToFused = 3.0;        // for-each bytes / fused bytes without shapes
constexpr double kDefaultBandwidth = 3.35e12;  // H100 SXM HBM3, bytes/s, when the trace has no device bandwidth

bool has(const std::string& s, std::string_view w) { return s.find(w) != std::string::npos; }

// A for-each optimizer kernel by name (ATen's multi_tensor_apply with a foreach functor).
bool foreach_kernel(const std::string& n) {
  return has(n, "multi_tensor_apply_kernel") && !has(n, "Fused") &&
         (has(n, "OpScalar") || has(n, "Lerp") || has(n, "UnaryOpFunctor") || has(n, "PointwiseOp"));
}

// Numbers of elements in a shape list "[[1024, 512]]" (the first tensor's).
double numel(const std::string& shapes) {
  double n = 1;
  bool any = false;
  const size_t end = shapes.find(']');
  for (size_t i = shapes.find_first_of("0123456789"); i != std::string::npos && i < end;) {
    const size_t j = shapes.find_first_not_of("0123456789", i);
    n *= std::stod(shapes.substr(i, j - i));
    any = true;
    i = j == std::string::npos ? j : shapes.find_first_of("0123456789", j);
  }
  return any ? n : 1;  // a scalar parameter: one element
}

class UnfusedOptimizerRule final : public Rule {
 public:
  std::string id() const override { return "unfused_optimizer"; }
  std::vector<std::string_view> needs() const override { return {kGapApiCalls, kGapTimeline}; }

  std::optional<Finding> check(const RuleContext& ctx) const override {
    if (!ctx.main || !ctx.retimer) return std::nullopt;
    const Trace& t = ctx.trace;
    const TorchOps& torch = *ctx.torch;
    // The optimizer's GPU work per step: with ops, whatever an Optimizer.step range launched;
    // without, the for-each kernels.
    std::string cls;                                        // "AdamW" of Optimizer.step#AdamW.step
    bool fused = false;                                     // an _fused_* op or a Fused functor: nothing to do
    std::map<size_t, std::vector<size_t>> kernels_of_step;  // repeated instance -> trace.kernels indices
    std::map<std::string, size_t> kinds;                    // kernel kind -> launches (evidence)
    size_t foreach_ops = 0;
    for (size_t i = 0; i < t.kernels.size(); ++i) {
      const Kernel& k = t.kernels[i];
      if (k.pid != ctx.main->pid || !ctx.judged(k.start)) continue;
      const std::string& name = t.strings.get(k.name);
      const uint32_t op = torch.op_of_call(k.run_id, k.pid, k.correlation_id);
      bool mine = false;
      if (op != detail::kNoOp) {
        const uint32_t range = torch.enclosing(op, "Optimizer.step");
        if (range == detail::kNoOp) continue;
        const std::string r = torch.name(range);
        if (const size_t hash = r.find('#'); hash != std::string::npos)
          cls = r.substr(hash + 1, r.find('.', hash) - hash - 1);
        const std::string user = torch.name(torch.user_op(op));
        fused |= has(user, "_fused_") || has(name, "Fused");
        foreach_ops += has(user, "_foreach_");
        mine = !has(user, "_fused_");
      } else {
        fused |= has(name, "multi_tensor_apply_kernel") && has(name, "Fused");
        mine = foreach_kernel(name);
      }
      if (!mine || !ctx.retimer->replays(k.correlation_id)) continue;
      kernels_of_step[step_of(ctx, k.start)].push_back(i);
      ++kinds[foreach_kernel(name) ? "for-each multi_tensor_apply" : "per-tensor elementwise"];
    }
    if (fused || kernels_of_step.empty()) return std::nullopt;
    const double params = param_elements(ctx);
    double bandwidth = kDefaultBandwidth;
    for (const Device& d : t.devices)
      if (d.pid == ctx.main->pid && d.global_memory_bandwidth_kbps) bandwidth = d.global_memory_bandwidth_kbps * 1e3;
    const bool sgd = !cls.empty() && cls.find("SGD") != std::string::npos;
    Scenario s;
    TimeNs gpu = 0, fused_gpu_all = 0;
    size_t launches = 0;
    for (const auto& [step, ks] : kernels_of_step) {
      TimeNs step_gpu = 0;
      for (size_t i : ks) step_gpu = add_saturated(step_gpu, duration(t.kernels[i].start, t.kernels[i].end));
      const TimeNs fused_gpu = kFusedLaunchNs +
                               saturated_ns(params > 0
                                                ? params * (sgd ? 20 : 28) / (kFusedBandwidthShare * bandwidth) * 1e9
                                                : static_cast<double>(step_gpu) / kForeachToFused);
      gpu = add_saturated(gpu, step_gpu), fused_gpu_all = add_saturated(fused_gpu_all, fused_gpu);
      launches += ks.size();
      // One fused call stands for the step's optimizer calls (first launch to last).
      GraphReplay g;
      for (size_t i : ks) s.kernel_ns[i] = i == ks.front() ? fused_gpu : 0;
      g.calls = calls_between(ctx, t.kernels[ks.front()].correlation_id, t.kernels[ks.back()].correlation_id);
      if (g.calls.size() < 2) continue;
      g.host_ns = kFusedHostNs;
      g.first_node_ns = kFusedLaunchNs;
      s.graphs.push_back(std::move(g));
    }
    const TimeNs saving = ctx.saving(s);
    if (!ctx.worth(saving)) return std::nullopt;
    const size_t steps = kernels_of_step.size();
    Finding f;
    f.rule = id();
    const std::string name = cls.empty() ? "The optimizer" : cls;
    f.title = fmt::format("{} step runs unfused: many small kernels per step", name);
    f.saving_ns = saving;
    f.estimate = fmt::format(
        "re-timed with each step's optimizer calls replaced by one fused call: {:.0f} us on the host (a fused "
        "AdamW.step "
        "measured on an H100 host) and one kernel of {} ({}); the calls and the Python work between them removed",
        kFusedHostNs / 1e3, ms(fused_gpu_all / std::max<size_t>(1, steps)),
        params > 0 ? fmt::format("{:.2f} M parameters x {} B over {:.0f}% of {:.0f} GB/s, + {:.0f} us", params / 1e6,
                                 sgd ? 20 : 28, kFusedBandwidthShare * 100, bandwidth / 1e9, kFusedLaunchNs / 1e3)
                   : fmt::format("a third of the for-each kernels' time, + {:.0f} us", kFusedLaunchNs / 1e3));
    f.evidence.push_back(fmt::format("{} optimizer kernels in {} steps ({:.0f} per step), {} of GPU time", launches,
                                     steps, double(launches) / steps, ms(gpu)));
    for (const auto& [kind, n] : kinds) f.evidence.push_back(fmt::format("{}: {} launches", kind, n));
    if (foreach_ops) f.evidence.push_back(fmt::format("{} aten::_foreach_* launches", foreach_ops));
    f.shares_time_with = {"launch_bound"};
    f.advice = fmt::format(
        "Construct the optimizer with fused=True ({}(params, ..., fused=True)): one kernel per tensor list updates "
        "every "
        "parameter and state, instead of {}. Parameters and states must be CUDA floating-point tensors.",
        cls.empty() ? "torch.optim.AdamW" : "torch.optim." + cls,
        foreach_ops || kinds.count("for-each multi_tensor_apply") ? "one for-each kernel per arithmetic step"
                                                                  : "several elementwise kernels per parameter");
    return f;
  }

 private:
  static size_t step_of(const RuleContext& ctx, TimeNs t) {
    const auto& st = ctx.repeated.steady;
    auto it = std::upper_bound(st.begin(), st.end(), t, [](TimeNs v, const Interval& i) { return v < i.start; });
    return static_cast<size_t>(it - st.begin());  // 0: before the first instance
  }

  // The main thread's replayed calls from the one with correlation `first` to `last`.
  static std::vector<size_t> calls_between(const RuleContext& ctx, uint32_t first, uint32_t last) {
    std::vector<size_t> out;
    bool in = false;
    for (size_t i : ctx.main_calls) {
      const ApiCall& c = ctx.trace.api_calls[i];
      if (!ctx.retimer->replays(c.correlation_id)) continue;
      in |= c.correlation_id == first;
      if (in) out.push_back(i);
      if (c.correlation_id == last) break;
    }
    return in ? out : std::vector<size_t>{};
  }

  // Parameter elements from one step's AccumulateGrad ops (one per parameter); 0 if unknown.
  static double param_elements(const RuleContext& ctx) {
    const Trace& t = ctx.trace;
    if (ctx.repeated.steady.empty()) return 0;
    const Interval step = ctx.repeated.steady.front();
    double n = 0;
    for (const HostOp& op : t.host_ops)
      if (op.start >= step.start && op.end <= step.end && op.input_shapes &&
          t.strings.get(op.name) == "torch::autograd::AccumulateGrad")
        n += numel(t.strings.get(op.input_shapes));
    return n;
  }
};

}  // namespace

std::unique_ptr<Rule> make_unfused_optimizer_rule() { return std::make_unique<UnfusedOptimizerRule>(); }

}  // namespace gpuscope::analysis::rules

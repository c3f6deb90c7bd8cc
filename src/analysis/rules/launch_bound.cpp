// Rule launch_bound: many kernels shorter than the host call that launches
// them; the GPU waits for the CPU between kernels. Re-timed as if each stretch of
// such launches (consecutive on the main thread, only loop overhead between
// them) were replayed from one CUDA graph (retime.h, GraphReplay): the launch
// calls and the host work between them disappear, the kernels keep their
// recorded durations, and graph replay costs what graph launches cost per node.
//
// Those per-node costs are measured on the trace's own cudaGraphLaunch calls
// when it has any; else the constants below. They come from
// rule_patterns --pattern launch --fixed on an NVIDIA H200 (driver 580.159.04,
// CUDA 13.0, captured by gpuscope, i.e. with CUPTI kernel tracing on): 20
// launches of a 1000-node graph of ~1.8 us kernels. Per node: the
// cudaGraphLaunch call took 1684 ns on the host, its first kernel started
// 1398 ns x nodes after the call started (1011..1485 ns), and nodes ran 93 ns
// apart. Only one graph size was measured; per-node scaling is an assumption.
// The host-side costs are CPU work in the driver, like a cudaLaunchKernel call (5870 ns
// on that machine): the defaults scale with the trace's own launch-call time, so a faster
// or slower host CPU moves both alike. On an H100 host whose launch calls took 4.1-4.5 us,
// graph replay measured 0.94-1.52 us host and 0.76-1.25 us to the first node per node.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <unordered_map>

#include "analysis/rules/rule.h"

namespace gpuscope::analysis::rules {
namespace {

constexpr TimeNs kHostPerNodeNs = 1684;   // cudaGraphLaunch host time per node (H200)
constexpr TimeNs kFirstPerNodeNs = 1398;  // call start -> first node start, per node (H200)
constexpr TimeNs kNodeGapNs = 93;         // GPU idle between consecutive nodes (H200)
constexpr double kLaunchCallNs = 5870;    // cudaLaunchKernel host time on that machine
constexpr size_t kMinLaunches = 50;
// Host work between two launches that a graph absorbs (loop overhead, argument setup);
// a longer gap is real host work and splits the stretch (the baseline capture: 0.6 us).
constexpr TimeNs kMaxLoopGapNs = 20'000;

using KernelOf = LastByKey<uint32_t, const Kernel*>;  // correlation id -> kernel

struct GraphCost {
  double host = kHostPerNodeNs, first = kFirstPerNodeNs, gap = kNodeGapNs;  // ns per node
  std::string source = "NVIDIA H200 defaults";
};

// Per-node costs from the trace's own graph launches (>= 2 kernel nodes each), else the
// defaults with their host-side parts scaled by this trace's mean launch-call time.
GraphCost graph_cost(const RuleContext& ctx, double launch_call_ns) {
  const Trace& t = ctx.trace;
  std::unordered_map<uint32_t, std::vector<const Kernel*>> nodes;  // correlation -> graph kernels
  for (const Kernel& k : t.kernels)
    if (k.pid == ctx.main->pid && k.graph_id != 0) nodes[k.correlation_id].push_back(&k);
  double n = 0, host = 0, first = 0, gap = 0;
  size_t launches = 0;
  for (size_t i : ctx.all_main_calls) {  // a measurement: graph launches anywhere in the run count
    const ApiCall& c = t.api_calls[i];
    auto it = nodes.find(c.correlation_id);
    if (it == nodes.end() || it->second.size() < 2 || ctx.name_of(c).find("GraphLaunch") == std::string::npos) continue;
    auto ks = it->second;
    std::sort(ks.begin(), ks.end(), [](const Kernel* a, const Kernel* b) { return a->start < b->start; });
    for (size_t j = 1; j < ks.size(); ++j) gap += std::max<TimeNs>(0, ks[j]->start - ks[j - 1]->end);
    n += static_cast<double>(ks.size());
    host += static_cast<double>(c.end - c.start);
    first += static_cast<double>(std::max<TimeNs>(0, ks.front()->start - c.start));
    ++launches;
  }
  GraphCost g;
  if (launches == 0) {
    const double scale = std::clamp(launch_call_ns / kLaunchCallNs, 0.25, 4.0);
    g.host *= scale, g.first *= scale;
    g.source = fmt::format("NVIDIA H200 defaults x {:.2f}, this trace's launch calls against the H200's", scale);
    return g;
  }
  g.host = host / n, g.first = first / n, g.gap = gap / (n - static_cast<double>(launches));
  g.source = fmt::format("measured on this trace's {} graph launches", launches);
  return g;
}

class LaunchBoundRule final : public Rule {
 public:
  std::string id() const override { return "launch_bound"; }
  std::vector<std::string_view> needs() const override { return {kGapApiCalls, kGapTimeline}; }

  std::optional<Finding> check(const RuleContext& ctx) const override {
    if (!ctx.main) return std::nullopt;
    const Trace& t = ctx.trace;
    KernelOf kernel;  // correlation -> stream-launched kernel
    kernel.reserve(t.kernels.size());
    for (const Kernel& k : t.kernels)
      if (k.pid == ctx.main->pid && k.graph_id == 0) kernel.add(k.correlation_id, &k);
    kernel.seal();
    std::vector<uint32_t> ids;  // of the main calls
    ids.reserve(ctx.main_calls.size());
    for (size_t i : ctx.main_calls) ids.push_back(t.api_calls[i].correlation_id);
    const std::vector<const Kernel* const*> kernel_of = kernel.find_all(ids);  // per main call
    // Stretches of consecutive launch-bound launches (kernel shorter than its launch call).
    std::vector<std::vector<size_t>> stretches(1);
    std::vector<const Kernel*> kernels;  // the kernel of each call in the stretches, in the same order
    std::optional<ApiDomain> domain;     // of the launches: the nested driver call is not another call
    TimeNs prev_end = 0, launch_ns = 0, gpu_ns = 0;
    size_t launches = 0;
    for (size_t n = 0; n < ctx.main_calls.size(); ++n) {
      const size_t i = ctx.main_calls[n];
      const ApiCall& c = t.api_calls[i];
      if (domain && c.domain != *domain) continue;
      const Kernel* k = kernel_of[n] ? *kernel_of[n] : nullptr;
      const bool bound = k && ctx.class_of(c) == ApiClass::Launch &&
                         duration(k->start, k->end) < duration(c.start, c.end);
      if (!bound || (!stretches.back().empty() && c.start - prev_end > kMaxLoopGapNs)) stretches.emplace_back();
      prev_end = c.end;
      if (!bound) continue;
      domain = c.domain;
      stretches.back().push_back(i);
      kernels.push_back(k);
      launch_ns = add_saturated(launch_ns, duration(c.start, c.end));
      gpu_ns = add_saturated(gpu_ns, duration(k->start, k->end)), ++launches;
    }
    if (launches < kMinLaunches) return std::nullopt;
    const GraphCost cost = graph_cost(ctx, static_cast<double>(launch_ns) / static_cast<double>(launches));
    // A PyTorch step is graphed whole (torch.compile's reduce-overhead mode, torch.cuda.graphs):
    // its Python and dispatch work between launches goes too, not only the launch calls.
    const bool whole_steps = ctx.torch->pytorch() && ctx.repeated.steady.size() >= 2 && ctx.retimer;
    const TimeNs idle = idle_between(kernels, stretches);
    if (whole_steps) stretches = step_stretches(ctx);
    Scenario s;
    size_t graphs = 0, largest = 0;
    std::vector<EvidenceSpan> spans;  // each graph candidate: its first call's start to its last kernel's end
    size_t past = 0;                  // in `kernels`, past the stretch's calls
    for (auto& st : stretches) {
      past += st.size();
      // Graph nodes: a step's calls that only query (cudaGetDevice, ...) become none, and cost
      // nothing in the replay, so the API trace (core or full) does not move the estimate.
      size_t nodes = st.size();
      if (whole_steps) {
        nodes = 0;
        for (size_t i : st) nodes += ctx.retimer->gpu_ops(i);
      }
      if (nodes < 2) continue;  // one launch gains nothing from a graph
      const double n = static_cast<double>(nodes);
      const TimeNs last_end = t.api_calls[st.back()].end;
      const TimeNs span_end = whole_steps ? last_end : std::max(last_end, kernels[past - 1]->end);
      spans.push_back({ctx.main->pid, t.api_calls[st.front()].start, span_end});
      s.graphs.push_back({st, saturated_ns(cost.host * n), saturated_ns(cost.first * n), saturated_ns(cost.gap)});
      ++graphs, largest = std::max(largest, st.size());
    }
    TimeNs saving = ctx.saving(s);
    // The GPU's own work cannot shrink: a step graphed whole saves at most its GPU-idle time
    // (kernels launched through the driver API may be missing from the replay).
    if (whole_steps) saving = std::min(saving, steps_idle(ctx));
    if (!ctx.worth(saving)) return std::nullopt;
    Finding f;
    f.rule = id();
    f.title = whole_steps ? "Launch-bound PyTorch step: the GPU waits for Python and kernel launches"
                          : "Launch-bound: many kernels shorter than their launch";
    f.saving_ns = saving;
    f.estimate = fmt::format(
        "{} replayed from one CUDA graph, per node: {:.2f} us of cudaGraphLaunch on the host, "
        "{:.2f} us before the first node starts, {:.3f} us between nodes ({}); kernels keep their recorded durations{}",
        whole_steps ? "each step (split at host syncs), its host work between launches removed,"
                    : "each stretch of launches",
        cost.host / 1e3, cost.first / 1e3, cost.gap / 1e3, cost.source,
        whole_steps ? "; at most the GPU-idle time of the steps" : "");
    f.evidence.push_back(
        fmt::format("{} launches take {} on the host for {} of kernel time", launches, ms(launch_ns), ms(gpu_ns)));
    f.evidence.push_back(fmt::format("GPU idle between these kernels on their stream: {} ({:.2f} us per kernel)",
                                     ms(idle), idle / 1e3 / static_cast<double>(launches)));
    f.evidence.push_back(whole_steps
                             ? fmt::format("{} graph candidates in the steps (largest {} calls)", graphs, largest)
                             : fmt::format("{} stretches of consecutive launches (largest {}), each a graph candidate",
                                           graphs, largest));
    f.spans = evidence_spans(std::move(spans));
    f.advice = "Capture the launch sequence in a CUDA graph (stream capture) and replay it, or fuse the small kernels.";
    if (whole_steps) {
      size_t calls = 0;
      for (const auto& st : stretches) calls += st.size();
      torch_advice(ctx, kernels, calls / ctx.repeated.steady.size(), f);
    }
    return f;
  }

 private:
  // Each repeated instance's main-thread calls of the replayed kind, split where a graph cannot
  // hold the call (synchronization, blocking copies, allocation): the candidate graphs.
  static std::vector<std::vector<size_t>> step_stretches(const RuleContext& ctx) {
    const Trace& t = ctx.trace;
    std::vector<uint32_t> blocking;  // correlation ids of synchronous copies and memsets
    for (const Memcpy& m : t.memcpys)
      if (m.pid == ctx.main->pid && !m.async) blocking.push_back(m.correlation_id);
    for (const Memset& m : t.memsets)
      if (m.pid == ctx.main->pid && !m.async) blocking.push_back(m.correlation_id);
    std::sort(blocking.begin(), blocking.end());
    std::vector<std::vector<size_t>> out(1);
    size_t step = 0;
    for (size_t i : ctx.main_calls) {
      const ApiCall& c = t.api_calls[i];
      if (!ctx.retimer->replays(c.correlation_id)) continue;
      while (step < ctx.repeated.steady.size() && ctx.repeated.steady[step].end <= c.start) ++step, out.emplace_back();
      if (step == ctx.repeated.steady.size()) break;
      const ApiClass k = ctx.class_of(c);
      const bool graphable = c.start >= ctx.repeated.steady[step].start && k != ApiClass::Synchronization &&
                             k != ApiClass::Allocation && k != ApiClass::Loading &&
                             !std::binary_search(blocking.begin(), blocking.end(), c.correlation_id);
      if (graphable) out.back().push_back(i);
      else if (!out.back().empty()) out.emplace_back();
    }
    return out;
  }

  // GPU-idle time of the steps on the main process's devices (steady window: the timeline's).
  static TimeNs steps_idle(const RuleContext& ctx) {
    TimeNs steps = 0, busy = 0;
    for (const Interval& i : ctx.repeated.steady) steps = add_saturated(steps, i.end - i.start);
    for (const DeviceTimeline& d : ctx.timeline.devices)
      if (d.pid == ctx.main->pid) busy = std::max(busy, d.busy_ns);
    return std::max<TimeNs>(0, steps - busy);
  }

  // CUDA graphs named the PyTorch way, with the step and the ops launching the most kernels.
  static void torch_advice(const RuleContext& ctx, const std::vector<const Kernel*>& kernels, size_t calls_per_step,
                           Finding& f) {
    std::map<std::string, size_t> by_op;
    for (const Kernel* k : kernels)
      if (uint32_t op = ctx.torch->op_of_call(k->run_id, k->pid, k->correlation_id); op != detail::kNoOp)
        ++by_op[ctx.torch->describe(ctx.torch->user_op(op))];
    std::vector<std::pair<size_t, std::string>> top;
    for (const auto& [op, n] : by_op) top.emplace_back(n, op);
    std::sort(top.rbegin(), top.rend());
    std::string ops;
    for (size_t j = 0; j < top.size() && j < 4; ++j)
      ops += fmt::format("{}{} ({} launches)", j ? ", " : "", top[j].second, top[j].first);
    if (!ops.empty()) f.evidence.push_back("most launches from " + ops);
    const std::string step = ctx.repeated.range_name.empty() ? "the training step"
                                                             : "the step '" + ctx.repeated.range_name + "'";
    f.advice = fmt::format(
        "Capture {} in a CUDA graph so one replay stands for its ~{} CUDA calls: torch.compile(model, "
        "mode=\"reduce-overhead\") (the compiled step is graphed automatically), or torch.cuda.graphs by hand "
        "(torch.cuda.CUDAGraph with static input tensors, or torch.cuda.make_graphed_callables). Keep host syncs "
        "(.item(), printing a tensor) out of the graphed region; fused kernels (torch.compile, fused optimizers) "
        "cut the launches further.",
        step, calls_per_step);
    f.covers = ctx.repeated_spans();
    f.explains = {"gpu_idle_gaps"};
  }

  // GPU time between consecutive launch-bound kernels of a stretch on the same stream: what
  // per-kernel launch latency costs the GPU, and what graph replay mostly removes.
  static TimeNs idle_between(const std::vector<const Kernel*>& kernels,
                             const std::vector<std::vector<size_t>>& stretches) {
    TimeNs idle = 0;
    size_t at = 0;  // of the stretch's first call in `kernels`
    for (const auto& st : stretches) {
      for (size_t j = at + 1; j < at + st.size(); ++j) {
        const Kernel* a = kernels[j - 1];
        const Kernel* b = kernels[j];
        if (a->stream == b->stream && a->device == b->device) idle += std::max<TimeNs>(0, b->start - a->end);
      }
      at += st.size();
    }
    return idle;
  }
};

}  // namespace

std::unique_ptr<Rule> make_launch_bound_rule() { return std::make_unique<LaunchBoundRule>(); }

}  // namespace gpuscope::analysis::rules

// KernelTally and kernel_saving (rule.h): what the rules that judge kernels by name share.
#include <fmt/format.h>

#include <algorithm>

#include "analysis/rules/rule.h"

namespace gpuscope::analysis::rules {

void KernelTally::add(const RuleContext& ctx, const Kernel& k) {
  const Trace& t = ctx.trace;
  const TimeNs d = duration(k.start, k.end);
  Group& g = groups_[k.name];
  if (g.name.empty()) g.name = detail::kernel_name(t, k);
  ++g.n, g.ns = add_saturated(g.ns, d);
  ++launches_, ns_ = add_saturated(ns_, d);
  const uint32_t op = ctx.torch->op_of_call(k.run_id, k.pid, k.correlation_id);
  if (op != detail::kNoOp) {  // "aten::linear > aten::addmm in Sequential.0 (forward)"
    const uint32_t user = ctx.torch->user_op(op);
    ++g.ops[user == op ? ctx.torch->describe(op) : ctx.torch->name(user) + " > " + ctx.torch->describe(op)];
  }
  const bool replayed = ctx.main && ctx.retimer && k.pid == ctx.main->pid && ctx.retimer->replays(k.correlation_id);
  if (k.correlation_id == 0 || !replayed) ++unlinked_;
}

std::vector<const KernelTally::Group*> KernelTally::by_time() const {
  std::vector<const Group*> out;
  for (const auto& [id, g] : groups_) out.push_back(&g);
  std::sort(out.begin(), out.end(), [](const Group* a, const Group* b) { return a->ns > b->ns; });
  return out;
}

std::vector<std::string> KernelTally::lines(size_t most) const {
  std::vector<std::string> out;
  const std::vector<const Group*> groups = by_time();
  for (size_t j = 0; j < groups.size() && j < most; ++j) {
    const Group& g = *groups[j];
    std::string line = fmt::format("{}: {} launches, {}", g.name, g.n, ms(g.ns));
    std::vector<std::pair<size_t, std::string>> ops;
    for (const auto& [op, n] : g.ops) ops.emplace_back(n, op);
    std::sort(ops.rbegin(), ops.rend());
    for (size_t o = 0; o < ops.size() && o < 3; ++o) line += (o ? "; " : ", launched by ") + ops[o].second;
    out.push_back(std::move(line));
  }
  return out;
}

std::vector<std::string> KernelTally::names() const {
  std::vector<std::string> out;
  for (const Group* g : by_time()) out.push_back(g->name);
  return out;
}

bool retimed(const RuleContext& ctx, const KernelTally& kernels) {
  return kernels.unlinked() == 0 && ctx.retimer.has_value();
}

TimeNs kernel_saving(const RuleContext& ctx, const KernelTally& kernels, const Scenario& s, TimeNs direct) {
  return retimed(ctx, kernels) ? ctx.saving(s) : direct;
}

std::string not_retimed(const KernelTally& kernels) {
  return fmt::format(
      "not re-timed: {} of them are not in the main thread's replay (no launch call recorded); an upper bound when "
      "the GPU is not the bottleneck",
      kernels.unlinked());
}

}  // namespace gpuscope::analysis::rules

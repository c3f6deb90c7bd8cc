// Rule allocation_in_loop: cudaMalloc/cudaFree (and friends) in the repeated
// part of the run. A persistent buffer is allocated once, so the calls in
// instances 2..N go away; the context creation hidden in a first call is not
// savable this way (startup_cost reports it). When that first call sits in the
// loop's first instance, the evidence says so: it is why "cudaMalloc" looks
// expensive in such a loop (seed 000 read it as allocation cost), and allocating
// before the loop moves it out of the loop, not out of the run.
#include <fmt/format.h>

#include <map>

#include "analysis/rules/rule.h"
#include "common/glob.h"

namespace gpuscope::analysis::rules {
namespace {

class AllocationRule final : public Rule {
 public:
  std::string id() const override { return "allocation_in_loop"; }
  std::vector<std::string_view> needs() const override { return {kGapApiCalls, kGapTimeline}; }

  std::optional<Finding> check(const RuleContext& ctx) const override {
    Scenario s;
    std::map<std::string, std::pair<size_t, TimeNs>> by_name;  // calls, ns
    std::map<std::string, size_t> ranges;
    TimeNs first = 0, last = 0;
    std::vector<EvidenceSpan> spans;  // the calls counted
    for (size_t i : ctx.main_calls) {
      const ApiCall& c = ctx.trace.api_calls[i];
      const std::string& name = ctx.name_of(c);
      if (ctx.class_of(c) != ApiClass::Allocation || !ctx.repeated.contains(c.start)) continue;
      TimeNs keep = 0;  // host time the fixed program still spends in this call
      if (ctx.context_creation && ctx.context_creation->api_index == i) keep = ctx.context_creation->excess_ns;
      s.api_ns[i] = keep;
      spans.push_back(span_of(c));
      auto& [n, ns] = by_name[name];
      ++n;
      ns = add_saturated(ns, duration(c.start, c.end) - keep);
      ++ranges[ctx.nvtx_at(c.start)];
      if (first == 0) first = c.start;
      last = c.end;
    }
    if (s.api_ns.empty()) return std::nullopt;
    const TimeNs saving = ctx.saving(s);
    if (!ctx.worth_in_loop(saving)) return std::nullopt;

    Finding f;
    f.rule = id();
    f.title = "Allocation and free inside the repeated part of the run";
    f.saving_ns = saving;
    f.estimate = "re-timed without these calls (host work and GPU dependencies kept as recorded)";
    f.evidence.push_back(where(ctx));
    for (const auto& [name, v] : by_name)
      f.evidence.push_back(fmt::format("{}: {} calls, {}", name, v.first, ms(v.second)));
    f.evidence.push_back(fmt::format("from {} to {}", ctx.at(first), ctx.at(last)));
    for (const auto& [range, n] : ranges)
      if (!range.empty()) f.evidence.push_back(fmt::format("{} of them inside NVTX range '{}'", n, range));
    if (std::string line = context_creation_in_first_instance(ctx); !line.empty()) f.evidence.push_back(line);
    f.spans = evidence_spans(std::move(spans));
    f.advice =
        "Allocate the buffers once before the loop and reuse them (or use a pool / cudaMallocAsync); "
        "free them after the loop.";
    return f;
  }

 private:
  static std::string context_creation_in_first_instance(const RuleContext& ctx) {
    if (!ctx.context_creation || ctx.repeated.range_name.empty()) return "";
    const ApiCall& c = ctx.trace.api_calls[ctx.context_creation->api_index];
    const std::string& name = ctx.name_of(c);
    if (classify_api(name) != ApiClass::Allocation || ctx.repeated.contains(c.start)) return "";
    for (const NvtxRange& r : ctx.trace.nvtx_ranges) {
      if (r.pid != c.pid || r.tid != c.tid || c.start < r.start || c.start >= r.end) continue;
      if (!glob_match(ctx.repeated.range_name, ctx.trace.strings.get(r.name))) continue;
      return fmt::format(
          "the first instance's {} at {} also created the CUDA context ({}): allocating before the "
          "loop moves that out of the loop's time, not out of the run's (startup_cost)",
          name, ctx.at(c.start), ms(ctx.context_creation->excess_ns));
    }
    return "";
  }

  static std::string where(const RuleContext& ctx) {
    if (!ctx.repeated.range_name.empty())
      return fmt::format("repeated part: instances 2..{} of NVTX range '{}' (the first instance is setup)",
                         ctx.repeated.instances, ctx.repeated.range_name);
    return fmt::format("repeated part: after the first of {} launches of the most-launched kernel",
                       ctx.repeated.instances);
  }
};

}  // namespace

std::unique_ptr<Rule> make_allocation_in_loop_rule() { return std::make_unique<AllocationRule>(); }

}  // namespace gpuscope::analysis::rules

// The Rule interface and what every rule may read (RuleContext, built once
// per report). A rule returns a Finding when its pattern is present and worth
// reporting; it never renders anything.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/grouping.h"
#include "analysis/retime.h"
#include "analysis/rules/torch_ops.h"
#include "analysis/timeline_util.h"
#include "gpuscope/analysis.h"
#include "gpuscope/analysis_occupancy.h"
#include "gpuscope/analysis_rules.h"
#include "gpuscope/analysis_timeline.h"

namespace gpuscope::analysis::rules {

// The repeated part of the run on the main thread: the steady state's steps 2..N when the run
// has steps (RuleInputs::steady), else instances 2..N of the outermost NVTX range that repeats
// (the first instance pays for warm-up and is the one setup a fix still needs); without such a
// range, the time after the first launch of the most-launched kernel up to its last launch's end.
struct RepeatedPart {
  std::string range_name;        // "" when found without NVTX; may be a glob (ProfilerStep#*)
  size_t instances = 0;          // of the range (or launches of the kernel)
  std::vector<Interval> steady;  // intervals that count as the repeated part
  bool contains(TimeNs t) const;
};

struct RuleContext {
  RuleContext(const Trace& t, const RuleInputs& inputs)
      : trace(t), timeline(inputs.timeline), steady(inputs.steady), ranks(inputs.ranks), api_classes(t.strings) {}
  const Trace& trace;
  const Timeline& timeline;  // every idle gap listed (of the steady window, when there is one)
  // With steps: the rules about time judge only this window (steps 2..N), see judged().
  const std::optional<SteadyState>& steady;
  const std::optional<RanksAnalysis>& ranks;  // analyze_ranks(trace): several GPU processes of one job
  ApiClasses api_classes;
  TimeNs wall_ns = 0;    // of the judged part: the steady window, else the whole run
  TimeNs run_start = 0;  // for "at 0.58 s" positions in evidence
  std::optional<MainThread> main;
  std::optional<ContextCreation> context_creation;
  RepeatedPart repeated;
  std::vector<KernelGroup> kernel_groups;      // summarize_kernels(trace)
  std::vector<KernelOccupancy> top_occupancy;  // kernel_occupancy(trace, 5): the top 5 kernel groups

  // Whether a record starting at t lies in the judged part (always, without a steady state).
  bool judged(TimeNs t) const { return !steady || steady->contains(t); }
  // Calls of the main thread (indices into trace.api_calls), by start time: main_calls those
  // that start in the judged part, all_main_calls the whole run's (for start-up findings).
  std::vector<size_t> main_calls;
  std::vector<size_t> all_main_calls;
  const std::string& name_of(const ApiCall& c) const { return trace.strings.get(c.name); }
  ApiClass class_of(const ApiCall& c) const { return api_classes(c.name); }  // classify_api(name_of(c))
  // "0.58 s into the run"
  std::string at(TimeNs t) const;
  // Innermost NVTX range of the main thread open at t ("" if none).
  std::string nvtx_at(TimeNs t) const;
  // For nvtx_at(), built once: that range as steps, innermost[i] open from bounds[i] up to
  // bounds[i + 1] (nullptr: none). Bounds are the ranges' starts and ends, sorted, distinct.
  std::vector<TimeNs> nvtx_bounds;
  std::vector<const NvtxRange*> nvtx_innermost;
  TimeNs saving(const Scenario& s) const { return retimer ? retimer->saving(s) : 0; }
  std::optional<Retimer> retimer;         // the main thread's replay, prepared once for every rule's saving()
  std::shared_ptr<const TorchOps> torch;  // framework ops and links; never null after make_context
  // PC samples (RuleInputs::source, else profile_source without lines); null without PC samples.
  std::shared_ptr<const SourceProfile> source;
  // Every main-thread interval of the repeated part's instances (for Finding::covers).
  std::vector<EvidenceSpan> repeated_spans() const;
  // A saving worth reporting: >= 50 us and >= 0.5 % of wall_ns (the judged part's time).
  bool worth(TimeNs saving_ns) const;
  // For savings inside the repeated part: also worth it when >= 1 % of the
  // repeated part's own time, since a longer run repeats it more often.
  bool worth_in_loop(TimeNs saving_ns) const;
};

RuleContext make_context(const Trace& trace, const RuleInputs& inputs);

// The kernels a rule judges by name (fp32_matmul, layout_conversions), grouped by name for the
// evidence: launches, GPU time and, with host ops, the ops that launched them; and how many of
// them the main thread's replay lacks, which decides how kernel_saving() estimates.
class KernelTally {
 public:
  void add(const RuleContext& ctx, const Kernel& k);  // a judged launch
  bool empty() const { return groups_.empty(); }
  size_t launches() const { return launches_; }
  TimeNs ns() const { return ns_; }
  // Launches without their launch call in the main thread's replay (none recorded, another
  // process or thread): a re-timed scenario would not see them change.
  size_t unlinked() const { return unlinked_; }
  // "NAME: 7 launches, 1.20 ms, launched by OP; OP" for the `most` names with the most time;
  // OP as "aten::linear > aten::addmm in Sequential.0 (forward)", the three most frequent.
  std::vector<std::string> lines(size_t most) const;
  std::vector<std::string> names() const;  // every name, the most time first

 private:
  struct Group {
    std::string name;
    size_t n = 0;
    TimeNs ns = 0;
    std::map<std::string, size_t> ops;
  };
  std::vector<const Group*> by_time() const;
  std::map<StringId, Group> groups_;
  size_t launches_ = 0, unlinked_ = 0;
  TimeNs ns_ = 0;
};

// The run time saved by a scenario that shortens or removes the tallied kernels
// (Scenario::kernel_ns): re-timed (ctx.saving) when the replay has every one's launch call, so
// only GPU time on the critical path counts; else `direct`, the GPU time they lose, an upper
// bound when the GPU is not the bottleneck.
TimeNs kernel_saving(const RuleContext& ctx, const KernelTally& kernels, const Scenario& s, TimeNs direct);
bool retimed(const RuleContext& ctx, const KernelTally& kernels);  // whether kernel_saving re-times
// For an estimate that was not re-timed: "not re-timed: N of them are not in the main thread's
// replay (no launch call recorded); an upper bound when the GPU is not the bottleneck".
std::string not_retimed(const KernelTally& kernels);

class Rule {
 public:
  virtual ~Rule() = default;
  virtual std::string id() const = 0;
  // What the rule reads that an imported file's source may not record (kGap* names in model.h):
  // on a capture whose source lacks any of it, the rule is not run (a missing record is not a zero).
  virtual std::vector<std::string_view> needs() const { return {}; }
  virtual std::optional<Finding> check(const RuleContext& ctx) const = 0;
};

// Every rule in registry order (registry.cpp lists their factories, one line each).
std::vector<std::unique_ptr<Rule>> all_rules();

// The host side of a host<->device copy (pageable, pinned, ...); Unknown for other kinds.
using detail::host_side;

struct Bandwidth {
  double bytes_per_s = 0;
  std::string source;  // where the number comes from, for the estimate text
};
// Pinned host<->device bandwidth to count on when the trace measures none: about 80 % of the
// link's raw rate, per direction (context.cpp lists the links and where the numbers come from).
Bandwidth default_link_bandwidth(const Trace& t, uint32_t pid, uint32_t device);

// Where a finding's evidence lies (Finding::spans). Every rule passes all the instances its
// evidence talks about; this keeps the kMaxEvidenceSpans longest (ties: the earlier), sorted by
// start, and drops records without times (start <= 0 or end < start).
std::vector<EvidenceSpan> evidence_spans(std::vector<EvidenceSpan> spans);
// An API call, copy or kernel as a span of its process.
template <class Record>
EvidenceSpan span_of(const Record& r) {
  return {r.pid, r.start, r.end};
}
// The launches of the kernel groups named (summarize_kernels' names: demangled, else mangled),
// for rules that judge whole kernels; already passed through evidence_spans.
std::vector<EvidenceSpan> kernel_launch_spans(const Trace& t, const std::vector<std::string>& names);

// Small formatting helpers for evidence lines (units in the text).
std::string ms(TimeNs ns);             // "104.4 ms"
std::string gbps(double bytes_per_s);  // "55.4 GB/s"

}  // namespace gpuscope::analysis::rules

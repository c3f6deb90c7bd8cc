// Rules: each detects one pattern in a Trace, cites its evidence and estimates
// the time a fix would save by re-timing the run with the fix applied along
// the dependencies the trace shows (src/analysis/retime.cpp). One file per
// rule in src/analysis/rules/; docs/rules.md documents each.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gpuscope/analysis_ranks.h"
#include "gpuscope/analysis_source.h"
#include "gpuscope/analysis_steps.h"
#include "gpuscope/analysis_timeline.h"
#include "gpuscope/model.h"

namespace gpuscope::analysis {

// A finding keeps at most this many spans: the ones that weigh most (longest first).
inline constexpr size_t kMaxEvidenceSpans = 64;

struct Finding {
  std::string rule;   // stable id, e.g. "allocation_in_loop"
  std::string title;  // one line for people
  // Estimated wall-time saving in ns; nullopt when the rule cannot put a time
  // on it (low occupancy: the gain depends on the kernel's bottleneck).
  std::optional<TimeNs> saving_ns;
  std::string estimate;               // how the saving was estimated (constants named)
  std::vector<std::string> evidence;  // which calls, how many, where, under which NVTX range
  std::string advice;                 // what to do
  // Rules whose estimates count some of the same time (the same calls or copies): their
  // savings are not additive with this one. The report says so where both fire.
  std::vector<std::string> shares_time_with;
  // A one-time start-up cost (startup_cost). When the run has steps, the steady-state findings
  // rank first whatever their savings: a start-up cost does not grow with the number of steps
  // and the steady state is what the run's owner repeats (the report's Start-up section shows it).
  bool startup = false;
  // The instances or range the evidence is about, in time order (at most kMaxEvidenceSpans).
  std::vector<EvidenceSpan> spans;
  // One cause, one finding: rules whose findings this one explains where they are about the
  // same time (run_rules drops such a finding when >= 80 % of its spans' time lies in `covers`,
  // and says so in this finding's evidence). `covers`: every interval the cause occupies,
  // uncapped; run_rules clears it after use.
  std::vector<std::string> explains;
  std::vector<EvidenceSpan> covers;
};

// What the rules read that the report's Bottleneck section shows too, so that a report computes
// it once (each is a pass over every record of the trace). With a steady state (the launched
// process's steps 2..N), both judge only its window: the rules' findings about time are about the
// steady state, and start-up (imports, model build, context creation) no longer ranks first.
struct RuleInputs {
  std::optional<SteadyState> steady;   // nullopt: the whole run is judged
  Attribution attribution;             // attribute_wall_time(trace, the steady window)
  Timeline timeline;                   // analyze_timeline(trace) in the steady window, listing every idle gap
  std::optional<RanksAnalysis> ranks;  // analyze_ranks(trace): the report's Ranks section and the straggler rule
  // PC samples by line and instruction (profile_source), which the report's Source section shows
  // too: set by the report with its resolver; null: the rules rank PCs without lines.
  std::shared_ptr<const SourceProfile> source;
};
// The steady state detect_steady_state() finds.
RuleInputs rule_inputs(const Trace& trace);
// The steady state given (nullopt: judge the whole run).
RuleInputs rule_inputs(const Trace& trace, std::optional<SteadyState> steady);

// All rules that fire, by estimated saving descending (unestimated last), then id; with a steady
// state, start-up findings (Finding::startup) after the others.
std::vector<Finding> run_rules(const Trace& trace);
// The same, given rule_inputs(trace).
std::vector<Finding> run_rules(const Trace& trace, const RuleInputs& inputs);

// Rules not run because the capture's source does not record what they read: (rule id, the
// first missing kGap* name), in registry order. Empty for gpuscope's own captures.
std::vector<std::pair<std::string, std::string>> rules_not_run(const Trace& trace);

}  // namespace gpuscope::analysis

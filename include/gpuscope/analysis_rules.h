// Rules: each detects one pattern in a Trace, cites its evidence and estimates
// the time a fix would save by re-timing the run with the fix applied along
// the dependencies the trace shows (src/analysis/retime.cpp). One file per
// rule in src/analysis/rules/; docs/rules.md documents each.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpuscope/model.h"

namespace gpuscope::analysis {

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
};

// All rules that fire, by estimated saving descending (unestimated last), then id.
std::vector<Finding> run_rules(const Trace& trace);

// The rule ids, in registry order (for docs and tests).
std::vector<std::string> rule_ids();

}  // namespace gpuscope::analysis

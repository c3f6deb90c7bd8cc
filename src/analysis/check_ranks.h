// Private to `gpuscope check`: [[total]] rules on the ranks of a multi-process job
// (check_ranks.cpp): "ranks.<measure>" for the job, "rank.<N>.<measure>" for one rank.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpuscope/analysis_ranks.h"
#include "gpuscope/check.h"

namespace gpuscope::check::detail {

// Whether `name` is a ranks total; `duration` tells whether its limits are durations (else
// plain numbers: the _pct measures).
bool is_ranks_total(const std::string& name, bool& duration);
// The names, for the parser's message.
std::string ranks_total_names();

// What the rule measures: "rank 1 (pid 795): compute" and its value (ns, or % for _pct). A
// capture with fewer than two GPU processes, or without rank N, is an Error (a rule that matches
// nothing).
struct RanksValue {
  std::string target;
  bool duration = true;
  double value = 0;
};
RanksValue ranks_total(const Gate& rule, const std::optional<analysis::RanksAnalysis>& ranks, const std::string& at);

}  // namespace gpuscope::check::detail

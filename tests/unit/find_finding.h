// find(): the finding of one rule among run_rules()' results, for rule tests.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "gpuscope/analysis_rules.h"

namespace gpuscope::testing {

// By value: run_rules() returns a temporary, so a pointer into it would dangle.
inline std::optional<analysis::Finding> find(const std::vector<analysis::Finding>& fs, const std::string& rule) {
  auto it = std::find_if(fs.begin(), fs.end(), [&](const analysis::Finding& f) { return f.rule == rule; });
  if (it == fs.end()) return std::nullopt;
  return *it;
}

// The rules judging the whole run, as they do on a trace without steps: for tests of a rule's
// mechanics on traces whose loop ranges would otherwise make only steps 2..N count.
inline std::vector<analysis::Finding> whole_run_rules(const Trace& t) {
  return analysis::run_rules(t, analysis::rule_inputs(t, std::nullopt));
}

}  // namespace gpuscope::testing

// Private to `gpuscope check`: [[metric]] rules (check_metrics.cpp), called by
// evaluate() in check_eval.cpp.
#pragma once

#include <string>
#include <vector>

#include "gpuscope/analysis_diff.h"
#include "gpuscope/check.h"

namespace gpuscope::check::detail {

// Throws a one-line Error ("<at>: metric NAME not in capture (why)") when the rule's metric is
// not in `trace`, or, for a rule with change limits, not in `baseline`. Names the file as `label`.
void require_metric(const Gate& rule, const Trace& trace, const std::string& label, const std::string& at);

// One outcome per matched kernel: the median against min / max, and with change limits the
// change of medians against `diff` (baseline vs trace; null without a baseline). A rule whose
// pattern matches no kernel that has the metric is an Error.
void check_metric(const Gate& rule, const Trace& trace, const analysis::DiffResult* diff, std::vector<Outcome>& out,
                  const std::string& at);

}  // namespace gpuscope::check::detail

// `gpuscope check FILE --rules RULES.toml [--baseline BASE]`: CI gates.
// Exit 0 when every check passes, 1 when one fails, 2 on bad input (a bad rules
// file, a rule matching nothing, a metric not in the capture: thrown as Error).
#include "cli/compare_commands.h"
#include "common/error.h"
#include "gpuscope/check.h"
#include "gpuscope/store.h"
#include "importers/importer.h"

namespace gpuscope::cli {

int run_check(const CheckOptions& options) {
  const ReportFormat& format = parse_report_format(options.format);
  // The rules first: a broken rules file is reported before any capture is read.
  const check::RuleSet rules = check::read_rules(options.rules);
  if (!options.baseline.empty() && !rules.needs_baseline())
    throw Error("--baseline given, but " + options.rules + " has no rule that compares with it ([[baseline]], or [[metric]] with a max_*_pct change limit)");
  if (!options.iterations.range.empty() && options.baseline.empty())
    throw Error("--iteration-range applies to [[baseline]] rules: give --baseline BASE.gpuscope");
  const Trace trace = load_trace(options.input, options.metrics_from);
  Trace baseline;
  if (!options.baseline.empty()) baseline = load_trace(options.baseline);

  analysis::CompareOptions compare;
  compare.alpha = options.stats.alpha;
  compare.min_change_percent = options.stats.min_change_percent;
  check::CheckResult result =
      check::evaluate(rules, trace, options.baseline.empty() ? nullptr : &baseline, compare,
                      iteration_spec(options.iterations, options.baseline), iteration_spec(options.iterations, options.input));
  result.file = options.input;
  result.baseline_file = options.baseline;
  result.rules_file = options.rules;

  if (!options.junit.empty()) write_output(options.junit, check::render_junit(result));
  write_output("", check::render_check(result, format));
  return result.failures() == 0 ? 0 : 1;
}

}  // namespace gpuscope::cli

// `gpuscope check FILE --rules RULES.toml [--baseline BASE]`: CI gates.
// Exit 0 when every check passes, 1 when one fails, 2 on bad input (a bad rules
// file, a rule matching nothing, a metric not in the capture: thrown as Error).
#include "cli/compare_commands.h"
#include "common/error.h"
#include "gpuscope/check_report.h"
#include "gpuscope/store.h"
#include "importers/importer.h"

namespace gpuscope::cli {
namespace {

struct CheckOptions {
  std::string input;
  std::string rules;
  std::string baseline;  // empty: no baseline rules allowed
  std::string format = "text";
  std::string junit;                      // empty: no JUnit XML
  std::vector<std::string> metrics_from;  // --metrics-from FILE: per-kernel metrics (ncu CSV) to attach
  StatsSettings stats;
  IterationSettings iterations;  // for [[baseline]] rules only
};

int run_check(const CheckOptions& options) {
  const ReportFormat& format = parse_report_format(options.format);
  // The rules first: a broken rules file is reported before any capture is read.
  const check::GateSet rules = check::read_rules(options.rules);
  if (!options.baseline.empty() && !rules.needs_baseline())
    throw Error("--baseline given, but " + options.rules +
                " has no rule that compares with it ([[baseline]], or [[metric]] with a max_*_pct change limit)");
  if (!options.iterations.range.empty() && options.baseline.empty())
    throw Error("--iteration-range applies to [[baseline]] rules: give --baseline BASE.gpuscope");
  const Trace trace = load_trace(options.input, options.metrics_from);
  Trace baseline;
  if (!options.baseline.empty()) baseline = load_trace(options.baseline);

  analysis::CompareOptions compare;
  compare.alpha = options.stats.alpha;
  compare.min_change_percent = options.stats.min_change_percent;
  check::CheckResult result = check::evaluate(rules, trace, options.baseline.empty() ? nullptr : &baseline, compare,
                                              iteration_spec(options.iterations, options.baseline),
                                              iteration_spec(options.iterations, options.input));
  result.file = options.input;
  result.baseline_file = options.baseline;
  result.rules_file = options.rules;

  if (!options.junit.empty()) write_output(options.junit, check::render_junit(result));
  write_output("", check::render_check(result, format));
  return result.failures() == 0 ? 0 : 1;
}

}  // namespace

Command add_check_command(CLI::App& app) {
  auto options = std::make_shared<CheckOptions>();
  CheckOptions& o = *options;
  CLI::App* command = app.add_subcommand(
      "check", "CI gates: check a capture against TOML rules; exit 0 pass, 1 a gate failed, 2 bad input");
  command->add_option("file", o.input, kInputHelp)->required();
  command->add_option("--rules", o.rules, "Rules file (TOML, see docs/diff.md)")->required();
  command->add_option("--baseline", o.baseline, "Baseline capture (or another profiler's file) for [[baseline]] rules");
  add_metrics_from_flag(*command, o.metrics_from);
  add_format_flag(*command, o.format, "Gates format");
  command->add_option("--junit", o.junit, "Also write JUnit XML here");
  add_stats_flags(*command, o.stats);
  add_iteration_flags(*command, o.iterations, "[[baseline]] rules compare one value per iteration per item");
  return {command, [options](const std::vector<std::string>&) { return run_check(*options); }};
}

}  // namespace gpuscope::cli

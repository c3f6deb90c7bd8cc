// `gpuscope check`: CI gates over one capture, read from a TOML rules file
// (syntax: docs/diff.md, "Gates"). Parsing is strict: an unknown table or key,
// a wrong type, a duration without a unit, a baseline rule without a baseline,
// a rule that matches nothing, or a metric the capture does not have is bad
// input (gpuscope::Error, exit 2), never a silent pass.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpuscope/analysis_compare.h"
#include "gpuscope/analysis_iterations.h"
#include "gpuscope/model.h"

namespace gpuscope::check {

enum class GateKind { Total, Kernel, Baseline, Metric };

// One [[total]], [[kernel]], [[baseline]] or [[metric]] table of a rules file: a limit that
// `gpuscope check` holds the capture to (the diagnosis rules are analysis::rules::Rule).
struct Gate {
  GateKind kind = GateKind::Total;
  std::string id;                 // `id = "..."`, or "<kind>#<n>" (n counts rules of that kind from 1)
  int line = 0;                   // where the table starts in the rules file
  std::string name;               // total: wall | gpu_busy | kernel | api | copy; metric: the metric's name
  std::string match = "*";        // kernel, baseline, metric: glob over item names (* and ?)
  std::string stat = "median";    // kernel: median | mean | min | max | total | count
  std::string item_kind = "any";  // baseline: kernel | memory | api | nvtx | nvtx_gpu | op | any
  // Limits. Durations in ns; counts and metric values as given. At least one is set.
  std::optional<double> min, max;
  std::optional<double> max_slower_percent;  // baseline
  // metric, against --baseline: the largest allowed rise / fall of the kernel's median, in %
  // (max_change_pct sets both). Plain change of medians, not significance-aware: check_metrics.cpp.
  std::optional<double> max_increase_percent, max_decrease_percent;
  bool duration = true;  // min/max are durations (false: counts, metric values)
  bool needs_baseline() const;
};

// A rules file's gates, in the file's order.
struct GateSet {
  std::string source;  // the rules file, for messages
  std::vector<Gate> rules;
  bool needs_baseline() const;
};

// Parses TOML text; `source` names the file in error messages ("rules.toml:12: ...").
GateSet parse_rules(const std::string& text, const std::string& source);
GateSet read_rules(const std::string& path);

// The outcome of one rule on one matched item. Numbers stay numbers here; the
// renderers format them with their units.
enum class Measure {
  Duration,     // value in ns
  Number,       // a count, as is
  Change,       // baseline rules: value = change of medians in %, with CI and p
  Metric,       // a metric's median, in the unit of Outcome::metric
  MetricChange  // metric vs baseline: change of medians in % (+inf: from a base of 0), with CI
                // and p; min / max are -max_decrease_pct / +max_increase_pct
};

struct Outcome {
  std::string rule_id;
  int rule_line = 0;
  std::string target;  // the item the rule looked at: "Wall time", a kernel name, ...
  Measure measure = Measure::Duration;
  std::string metric;  // Metric, MetricChange: the full metric name (its unit formats the value)
  double value = 0;
  double ci_low = 0, ci_high = 0, p_value = 0;  // Change only (NaN when not computed)
  std::optional<double> min, max;               // the limits; for Change, max is max_slower_pct
  bool passed = true;
  std::string message;  // the verdict or why it failed; may be empty
};

struct CheckResult {
  std::string file, baseline_file, rules_file;
  std::vector<Outcome> outcomes;
  size_t failures() const;
};

// Evaluates every rule. baseline may be null when no rule needs it. With
// iteration specs (non-empty range), [[baseline]] rules compare iterations
// (analysis_diff.h); other rules are not affected.
CheckResult evaluate(const GateSet& rules, const Trace& trace, const Trace* baseline,
                     const analysis::CompareOptions& options, const analysis::IterationSpec& baseline_iterations = {},
                     const analysis::IterationSpec& trace_iterations = {});

}  // namespace gpuscope::check

// "Recommendations": the rules' findings ranked by estimated saving, each with
// its evidence, how the saving was estimated, and what to do.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "gpuscope/analysis_rules.h"
#include "report/builder.h"

namespace gpuscope::report {

Section build_recommendations_section(const Trace& trace, TimeNs wall_ns, const analysis::RuleInputs& inputs) {
  Section s;
  s.key = "recommendations";
  s.title = "Recommendations";
  s.empty_text = "no rule fired";
  // With steps, a start-up finding (Finding::startup) is paid once, not in every step: it is listed
  // apart, unranked, so the ranked fixes are those of the steady state.
  std::vector<analysis::Finding> findings, once;
  for (analysis::Finding& f : analysis::run_rules(trace, inputs))
    (inputs.steady && f.startup ? once : findings).push_back(std::move(f));
  const auto not_run = analysis::rules_not_run(trace);
  if (!not_run.empty()) {
    // Said as a line, so it shows whether or not other rules fired.
    std::string list;
    for (const auto& [rule, what] : not_run) list += (list.empty() ? "" : ", ") + rule + " (" + what + ")";
    s.lines.push_back({"not_run", "Not run", text(list), "the source does not record what these rules read"});
  }
  if (inputs.steady) {
    const analysis::Interval wall = analysis::wall_window(trace);
    s.lines.push_back({"judged", "Judged", text(steady_state_text(*inputs.steady, wall.end - wall.start)),
                       "findings about time judge steps 2..N; start-up findings are listed apart, unranked"});
  }
  if (findings.empty() && once.empty()) return s;
  Table summary;
  summary.key = "recommendations";
  summary.title = "Ranked by estimated saving";
  summary.columns = {num_column("rank", "#", Unit::Count), text_column("rule", "Rule"),
                     num_column("saving", "Est. saving", Unit::Ns),
                     num_column("wall_percent", "% of wall", Unit::Percent)};
  // With steps, the saving as a share of the steady state too: what a longer run of the same loop gains.
  // A flag and a plain double rather than an optional, whose use under the same test GCC 12 at -O2
  // takes for maybe-uninitialized.
  const bool by_steps = static_cast<bool>(inputs.steady);
  const double steady_ns = by_steps ? static_cast<double>(inputs.steady->length()) : 0;
  if (by_steps) summary.columns.push_back(num_column("steady_percent", "% of steps", Unit::Percent));
  summary.columns.push_back(text_column("title", "Finding", TextStyle::Prose));
  for (size_t i = 0; i < findings.size(); ++i) {
    const auto& f = findings[i];
    const auto saving = f.saving_ns ? std::optional<double>(double(*f.saving_ns)) : std::nullopt;
    const auto share = saving ? analysis::share_percent(*saving, double(wall_ns)) : std::nullopt;
    std::vector<Cell> row{num(double(i + 1), Unit::Count), text(f.rule), opt_num(saving, Unit::Ns),
                          opt_num(share, Unit::Percent)};
    if (by_steps)  // a start-up finding's saving is no share of the steps
      row.push_back(
          opt_num(saving && !f.startup ? analysis::share_percent(*saving, steady_ns) : std::nullopt, Unit::Percent));
    row.push_back(text(f.title));
    summary.rows.push_back(std::move(row));
  }
  summary.notes.push_back(
      "Savings are estimates made by re-timing the run as if the fix were applied "
      "(docs/rules.md); '-' means the rule cannot put a time on it.");
  const auto fired = [&](const std::string& rule) {
    return std::any_of(findings.begin(), findings.end(), [&](const analysis::Finding& f) { return f.rule == rule; });
  };
  std::vector<std::string> pairs;  // "a + b": both fired and count some of the same time
  for (const auto& f : findings)
    for (const auto& other : f.shares_time_with)
      if (fired(other)) pairs.push_back(f.rule + " + " + other);
  if (!pairs.empty())
    summary.notes.push_back(
        fmt::format("Not additive: {} count some of the same time (see each finding); the "
                    "other savings are on different calls and add up.",
                    fmt::join(pairs, ", ")));
  if (!findings.empty()) s.tables.push_back(std::move(summary));
  if (!once.empty()) {
    Table t;
    t.key = "startup_findings";
    t.title = "Paid once, at start-up (not ranked; see Start-up)";
    t.columns = {text_column("rule", "Rule"), num_column("saving", "Est. saving", Unit::Ns),
                 num_column("wall_percent", "% of wall", Unit::Percent),
                 text_column("title", "Finding", TextStyle::Prose)};
    for (const auto& f : once) {
      const auto saving = f.saving_ns ? std::optional<double>(double(*f.saving_ns)) : std::nullopt;
      t.rows.push_back(
          {text(f.rule), opt_num(saving, Unit::Ns),
           opt_num(saving ? analysis::share_percent(*saving, double(wall_ns)) : std::nullopt, Unit::Percent),
           text(f.title)});
    }
    s.tables.push_back(std::move(t));
  }

  std::vector<const analysis::Finding*> detailed;
  for (const auto& f : findings) detailed.push_back(&f);
  for (const auto& f : once) detailed.push_back(&f);
  for (size_t i = 0; i < detailed.size(); ++i) {
    const auto& f = *detailed[i];
    Table t;
    t.key = "finding_" + f.rule;
    t.title = i < findings.size() ? fmt::format("{}. {}", i + 1, f.title) : "Start-up: " + f.title;
    // No rows: the details are sentences, which renderers lay out as notes (wrapped, never shortened).
    for (const auto& e : f.evidence) t.notes.push_back("Evidence: " + e);
    t.notes.push_back("Estimate: " + f.estimate);
    for (const auto& other : f.shares_time_with)
      if (fired(other))
        t.notes.push_back("Not additive with " + other + ": both estimates count some of the same time.");
    t.notes.push_back("Do: " + f.advice);
    t.empty_text = "rule " + f.rule;
    t.spans.insert(t.spans.end(), f.spans.begin(), f.spans.end());
    s.tables.push_back(std::move(t));
  }
  return s;
}

}  // namespace gpuscope::report

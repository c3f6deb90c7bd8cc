// `gpuscope check` output: a summary through the shared report model (text,
// markdown, JSON) and JUnit XML for CI systems that show test results.
#include <fmt/format.h>

#include <cmath>

#include "common/utf8.h"
#include "gpuscope/check_report.h"
#include "report/metric_units.h"
#include "report/model.h"
#include "report/renderers.h"
#include "report/units.h"

namespace gpuscope::check {
namespace {

using report::Cell;
using report::Unit;

std::string signed_percent(double v) { return (v > 0 ? "+" : "") + report::format_percent(v); }

std::string change_text(double v) {
  if (std::isnan(v)) return "-";
  if (std::isinf(v)) return v > 0 ? "up from 0" : "down from 0";  // a metric whose base median is 0
  return signed_percent(v);
}

std::string format_measure(const Outcome& o, double v) {
  switch (o.measure) {
    case Measure::Duration: return report::format_duration(v);
    case Measure::Number: return report::format_plain(v);
    case Measure::Metric: return report::format_value({v, report::metric_unit(o.metric)});
    case Measure::Change:
    case Measure::MetricChange: return change_text(v);
  }
  return "-";
}

std::string measured_text(const Outcome& o) {
  std::string text = format_measure(o, o.value);
  const bool change = o.measure == Measure::Change || o.measure == Measure::MetricChange;
  if (change && !std::isnan(o.ci_low)) text += " [" + signed_percent(o.ci_low) + ", " + signed_percent(o.ci_high) + "]";
  return text;
}

std::string limit_text(const Outcome& o) {
  if (o.measure == Measure::Change) return "<= +" + report::format_percent(*o.max) + " if significant";
  std::string text;
  if (o.min) text += ">= " + format_measure(o, *o.min);
  if (o.max) text += std::string(text.empty() ? "" : ", ") + "<= " + format_measure(o, *o.max);
  return text;
}

// The characters XML 1.0 allows at all (https://www.w3.org/TR/xml/#charsets): a rule id or kernel
// name may hold others (control characters), and one of them makes the whole file unreadable.
bool xml_char(char32_t c) {
  return c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF) || (c >= 0xE000 && c <= 0xFFFD) ||
         (c >= 0x10000 && c <= 0x10FFFF);
}

// Escaped for attribute values and text; characters XML cannot hold and invalid UTF-8 become U+FFFD.
// Newlines and tabs are character references, as attribute values turn raw ones into spaces.
std::string xml_escape(const std::string& s) {
  std::string out;
  for (size_t i = 0, length = 0; i < s.size(); i += length) {
    const char32_t c = utf8::decode(s, i, length);
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      case '\n': out += "&#10;"; break;
      case '\r': out += "&#13;"; break;
      case '\t': out += "&#9;"; break;
      default: utf8::append(out, xml_char(c) ? c : utf8::kReplacement);
    }
  }
  return out;
}

}  // namespace

std::string render_check(const CheckResult& result, const ReportFormat& format) {
  using namespace report;
  Report r;
  r.title = "gpuscope check";
  Section s;
  s.key = "check";
  s.title = "Gates";
  const size_t failed = result.failures();
  s.lines.push_back({"file", "Capture", text(result.file), "", true});
  if (!result.baseline_file.empty()) s.lines.push_back({"baseline", "Baseline", text(result.baseline_file), "", true});
  s.lines.push_back({"rules", "Rules", text(result.rules_file), "", true});
  s.lines.push_back(
      {"result", "Result",
       text(failed ? fmt::format("FAILED: {} of {}", failed, plural(result.outcomes.size(), "check", "checks"))
                   : fmt::format("passed: {}", plural(result.outcomes.size(), "check", "checks"))),
       "", false});
  Table t;
  t.key = "outcomes";
  t.title = "Checks";
  t.columns = {text_column("rule", "Rule"),         text_column("target", "Target", TextStyle::Identifier),
               text_column("measured", "Measured"), text_column("limit", "Limit"),
               text_column("result", "Result"),     text_column("note", "Note", TextStyle::Prose)};
  for (const Outcome& o : result.outcomes)
    t.rows.push_back({text(o.rule_id), text(o.target), text(measured_text(o)), text(limit_text(o)),
                      text(o.passed ? "pass" : "FAIL"), text(o.message)});
  s.tables.push_back(std::move(t));
  r.sections.push_back(std::move(s));
  return report::render_as(r, format);
}

std::string render_junit(const CheckResult& result) {
  const size_t n = result.outcomes.size(), failed = result.failures();
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format("<testsuites name=\"gpuscope check\" tests=\"{}\" failures=\"{}\" errors=\"0\">\n", n, failed);
  out += fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"0\">\n",
                     xml_escape("gpuscope check " + result.file), n, failed);
  for (const Outcome& o : result.outcomes) {
    out += fmt::format("    <testcase classname=\"{}\" name=\"{}\"", xml_escape("gpuscope.check." + o.rule_id),
                       xml_escape(o.target));
    if (o.passed) {
      out += "/>\n";
      continue;
    }
    const std::string message = "measured " + measured_text(o) + ", limit " + limit_text(o) +
                                (o.message.empty() ? "" : " (" + o.message + ")");
    out += fmt::format(">\n      <failure message=\"{}\" type=\"gate\">{}</failure>\n    </testcase>\n",
                       xml_escape(message),
                       xml_escape(fmt::format("{}:{}: {}", result.rules_file, o.rule_line, message)));
  }
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

}  // namespace gpuscope::check

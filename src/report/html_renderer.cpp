// HTML renderer: one self-contained page that opens offline in any current browser. The report
// model is laid out as static HTML (readable without scripts and when printed); the scripts
// (src/report/html/, compiled in) add the interactive timeline, the charts, the source view and
// the links from recommendations to their evidence, from the data in html_payload.h.
//
// Every text from the capture is data, never markup: it is HTML-escaped, with invalid UTF-8
// and control characters replaced; the payload is base64 text in a non-executable script
// element; and a Content-Security-Policy with a per-page nonce lets only our own two script
// elements run, no network access, no inline event handlers.
#include <fmt/format.h>

#include <random>

#include "common/utf8.h"
#include "report/html_payload.h"
#include "report/renderers.h"
#include "report/text_util.h"
#include "report/units.h"

namespace gpuscope::report {
namespace assets {
extern const char* const kCss;
extern const char* const kDataJs;
extern const char* const kLabelsJs;
extern const char* const kTimelineJs;
extern const char* const kLanesJs;
extern const char* const kInteractJs;
extern const char* const kChartsJs;
extern const char* const kFiguresJs;
extern const char* const kForestJs;
extern const char* const kSourceJs;
extern const char* const kAppJs;
}  // namespace assets

namespace {

// Text as HTML: invalid UTF-8 (utf8::valid, RFC 3629) and control characters become
// U+FFFD, which shows that a byte was there without passing it on; markup characters become
// entities. Multi-byte sequences are left whole: their bytes are all >= 0x80.
std::string escape(std::string_view s) {
  const std::string text = utf8::valid(s);
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7f) {
      out += "\xEF\xBF\xBD";
      continue;
    }
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += ch;
    }
  }
  return out;
}

std::string cell_html(const Cell& cell, const Column& column) {
  if (const auto* t = std::get_if<std::string>(&cell)) {
    if (column.style == TextStyle::Identifier) return "<code>" + escape(*t) + "</code>";
    return escape(*t);
  }
  return escape(cell_text(cell));
}

// A table that can be linked to: a finding (its spans may be empty: the link then says so).
bool is_finding(const Table& t) { return t.key.rfind("finding_", 0) == 0; }

bool has_finding(const Section& s, const std::string& rule) {
  for (const Table& t : s.tables)
    if (is_finding(t) && evidence_id(t) == rule) return true;
  return false;
}

void render_table(std::string& out, const Section& section, const Table& t) {
  const bool linked = is_finding(t) || !t.spans.empty();
  out += fmt::format("<h3{}>{}</h3>\n",
                     linked ? " class=\"gs-evidence\" data-evidence=\"" + escape(evidence_id(t)) + "\"" : "",
                     escape(t.title));
  if (t.rows.empty() && !t.columns.empty()) out += "<p class=\"gs-empty\">" + escape(t.empty_text) + "</p>\n";
  if (!t.rows.empty()) {
    std::vector<size_t> shown;
    for (size_t c = 0; c < t.columns.size(); ++c)
      if (!t.columns[c].for_machines) shown.push_back(c);
    out += "<div class=\"gs-scroll\"><table data-table=\"" + escape(t.key) + "\"><thead><tr>";
    for (size_t c : shown)
      out += fmt::format("<th{}>{}</th>", t.columns[c].unit ? " class=\"num\"" : "", escape(t.columns[c].title));
    out += "</tr></thead><tbody>\n";
    for (const auto& row : t.rows) {
      out += "<tr>";
      for (size_t c : shown) {
        const Column& col = t.columns[c];
        std::string body = cell_html(row[c], col);
        // The ranked recommendations: a rule's name links to its evidence on the timeline.
        const auto* rule = std::get_if<std::string>(&row[c]);
        if (col.key == "rule" && rule && has_finding(section, *rule))
          body = "<a href=\"#gs-timeline-panel\" class=\"gs-evidence\" data-evidence=\"" + escape(*rule) + "\">" +
                 body + "</a>";
        out += fmt::format("<td{}>{}</td>", col.unit ? " class=\"num\"" : "", body);
      }
      out += "</tr>\n";
    }
    out += "</tbody></table></div>\n";
  }
  for (const std::string& note : t.notes) out += "<p class=\"gs-note\">" + escape(note) + "</p>\n";
}

void render_section(std::string& out, const Section& s) {
  out += "<section id=\"sec-" + escape(s.key) + "\" data-section=\"" + escape(s.key) + "\">\n<h2>" + escape(s.title) +
         "</h2>\n";
  if (s.lines.empty() && s.tables.empty()) out += "<p class=\"gs-empty\">" + escape(s.empty_text) + "</p>\n";
  if (!s.lines.empty()) {
    out += "<dl class=\"gs-lines\">\n";
    for (const Line& l : s.lines) {
      const Column style{"", "", std::nullopt, l.identifier ? TextStyle::Identifier : TextStyle::Prose};
      out += "<dt>" + escape(l.label) + "</dt><dd>" + cell_html(l.value, style);
      if (!l.note.empty()) out += " <span class=\"gs-line-note\">(" + escape(l.note) + ")</span>";
      out += "</dd>\n";
    }
    out += "</dl>\n";
  }
  for (const Table& t : s.tables)
    if (!t.for_machines) render_table(out, s, t);  // the page's scripts draw those
  for (const std::string& note : s.notes) out += "<p class=\"gs-note\">" + escape(note) + "</p>\n";
  out += "</section>\n";
}

std::string nonce() {
  std::random_device random;
  return fmt::format("{:08x}{:08x}{:08x}", random(), random(), random());
}

}  // namespace

std::string render_html(const Report& report) {
  const std::string n = nonce();
  std::string out;
  out += "<!DOCTYPE html>\n<html lang=\"en\" data-theme=\"light\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'nonce-" + n +
         "'; style-src 'unsafe-inline'; img-src data:\">\n";
  out += "<meta name=\"generator\" content=\"gpuscope " GPUSCOPE_VERSION "\">\n";
  out += "<title>" + escape(report.title) + "</title>\n<style>" + assets::kCss + "</style>\n</head>\n<body>\n";
  out += "<header class=\"gs-bar\"><h1>" + escape(report.title) + "</h1><nav>";
  for (const Section& s : report.sections) out += "<a href=\"#sec-" + escape(s.key) + "\">" + escape(s.title) + "</a>";
  out +=
      "</nav><input id=\"gs-search\" type=\"search\" placeholder=\"Search names\" aria-label=\"Search names\">"
      "<button id=\"gs-theme\" type=\"button\" title=\"Light or dark theme\">Theme</button></header>\n<main>\n";
  if (report.timeline) {
    // The timeline opens on the steady-state steps, else on the GPUs' activity; 1 goes back there.
    const std::string home = report.steady ? "steady-state steps" : "GPU activity";
    out +=
        "<section id=\"gs-timeline-panel\" class=\"gs-panel\"><h2>Timeline</h2>"
        "<p class=\"gs-help\">Wheel or W/S: zoom · A/D or shift+wheel: pan · drag: zoom to a range · click: select "
        "(a kernel shows its launch call) · Esc: clear · 0: whole run · 1: " +
        home +
        " · several processes: click one's header to fold it</p>"
        "<div class=\"gs-views\"><button id=\"gs-view-home\" type=\"button\">" +
        home +
        " (1)</button>"
        "<button id=\"gs-view-run\" type=\"button\">whole run (0)</button>"
        "<span id=\"gs-timeline-status\" class=\"gs-status\">Loading the timeline…</span></div>"
        "<div class=\"gs-canvas-box\"><canvas id=\"gs-timeline\" tabindex=\"0\"></canvas></div>"
        "<div id=\"gs-tooltip\" role=\"tooltip\" hidden></div></section>\n";
  }
  out += "<section id=\"gs-charts\" class=\"gs-panel\"></section>\n";
  for (const Section& s : report.sections) render_section(out, s);
  out += "</main>\n";
  // The data: base64 text inside an element browsers never execute (type is not JavaScript).
  out += "<script id=\"gs-payload\" type=\"application/octet-stream\">" + encode_html_payload(report) + "</script>\n";
  out += "<script nonce=\"" + n + "\">\n\"use strict\";\n";
  for (const char* script :
       {assets::kDataJs, assets::kLabelsJs, assets::kTimelineJs, assets::kLanesJs, assets::kInteractJs,
        assets::kChartsJs, assets::kFiguresJs, assets::kForestJs, assets::kSourceJs, assets::kAppJs})
    out += script;
  out += "\n</script>\n</body>\n</html>\n";
  return out;
}

}  // namespace gpuscope::report

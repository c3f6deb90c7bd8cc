// GitHub-flavoured markdown renderer: headings, bullet lines, pipe tables.
// Names are shown in full up to kMaxShownWidth (a rendered table wraps), as code so that "*", "_"
// and "<" in C++ names are not taken for markup. Every string passes through one_line().
#include <algorithm>

#include "report/renderers.h"
#include "report/text_util.h"

namespace gpuscope::report {
namespace {

// Backslash-escapes characters that GFM would read as markup.
std::string markdown_escape(std::string_view s) {
  std::string out;
  for (char c : one_line(s)) {
    if (std::string_view("\\`*_[]<>|#~").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

// A code span whose fence is longer than any backtick run inside; "|" is still
// escaped because GFM splits table cells before it parses code spans.
std::string code(std::string_view raw) {
  std::string s = one_line(raw);
  size_t longest = 0, run = 0;
  for (char c : s) {
    run = (c == '`') ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  std::string fence(longest + 1, '`');
  std::string body;
  for (char c : s) {
    if (c == '|') body += '\\';
    body += c;
  }
  const bool pad = !body.empty() && (body.front() == '`' || body.back() == '`');
  return fence + (pad ? " " : "") + body + (pad ? " " : "") + fence;
}

std::string cell_markdown(const Cell& cell, bool as_code) {
  if (const auto* t = std::get_if<std::string>(&cell))
    return t->empty() ? "" : (as_code ? code(*t) : markdown_escape(*t));
  return markdown_escape(cell_text(cell));  // numbers and "-"
}

void render_markdown_table(std::string& out, const Table& t) {
  out += "### " + markdown_escape(t.title) + "\n\n";
  if (t.rows.empty()) {
    out += "_" + markdown_escape(t.empty_text) + "_\n";
  } else {
    std::string header = "|", align = "|";
    for (const Column& c : t.columns) {
      header += " " + markdown_escape(c.title) + " |";
      align += c.unit ? " ---: |" : " :--- |";
    }
    out += header + "\n" + align + "\n";
    for (const auto& row : t.rows) {
      std::string line = "|";
      for (size_t i = 0; i < t.columns.size(); ++i)
        line += " " + cell_markdown(row[i], t.columns[i].style == TextStyle::Identifier) + " |";
      out += line + "\n";
    }
  }
  for (const std::string& note : t.notes) out += "\n" + markdown_escape(note) + "\n";
}

}  // namespace

std::string render_markdown(const Report& report) {
  std::string out = "# " + markdown_escape(report.title) + "\n";
  for (const Section& s : report.sections) {
    out += "\n## " + markdown_escape(s.title) + "\n\n";
    if (s.lines.empty() && s.tables.empty()) out += "_" + markdown_escape(s.empty_text) + "_\n";
    for (const Line& l : s.lines) {
      out += "- **" + markdown_escape(l.label) + ":** " + cell_markdown(l.value, l.identifier);
      if (!l.note.empty()) out += " (" + markdown_escape(l.note) + ")";
      out += "\n";
    }
    bool first = s.lines.empty();
    for (const Table& t : s.tables) {
      if (t.for_machines) continue;
      if (!first) out += "\n";
      first = false;
      render_markdown_table(out, without_machine_columns(t));
    }
    for (const std::string& note : s.notes) out += "\n" + markdown_escape(note) + "\n";
  }
  return out;
}

}  // namespace gpuscope::report

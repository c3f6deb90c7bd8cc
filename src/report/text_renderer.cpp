// Plain-text renderer for terminals: aligned columns within ~120 columns,
// numbers right-aligned, long identifiers shortened in the middle.
#include <algorithm>

#include "report/renderers.h"
#include "report/text_util.h"

namespace gpuscope::report {
namespace {

constexpr size_t kGap = 2;           // spaces between columns
constexpr size_t kMinShrunk = 16;    // never shorten a name below this
constexpr size_t kMaxValueCol = 28;  // longer line values don't push notes further right

std::string pad(const std::string& s, size_t width, bool right) {
  size_t w = display_width(s);
  if (w >= width) return s;
  return right ? std::string(width - w, ' ') + s : s + std::string(width - w, ' ');
}

std::string rstrip(std::string s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

// Every string of the model passes through one_line() on its way out (valid UTF-8, one line,
// bounded width): titles and labels too, as builders may put names in them.
void heading(std::string& out, const std::string& raw_title, char underline) {
  const std::string title = one_line(raw_title);
  out += title + "\n" + std::string(display_width(title), underline) + "\n";
}

void render_lines(std::string& out, const std::vector<Line>& lines) {
  size_t label_w = 0, value_w = 0;
  for (const Line& l : lines) {
    label_w = std::max(label_w, display_width(one_line(l.label)));
    if (!l.note.empty()) value_w = std::max(value_w, std::min(kMaxValueCol, display_width(cell_text(l.value))));
  }
  for (const Line& l : lines) {
    std::string row = pad(one_line(l.label), label_w, false) + std::string(kGap, ' ');
    std::string value = cell_text(l.value);
    if (l.note.empty()) {
      row += value;
    } else {
      row += pad(value, value_w, false) + std::string(kGap, ' ') + one_line(l.note);
    }
    out += rstrip(row) + "\n";
  }
}

// Column widths; shrinks shortenable text columns (widest first) to fit kTextWidth.
std::vector<size_t> fit_widths(const Table& t, const std::vector<std::vector<std::string>>& cells) {
  const size_t n = t.columns.size();
  std::vector<size_t> w(n, 0);
  for (size_t c = 0; c < n; ++c) {
    w[c] = display_width(one_line(t.columns[c].title));
    for (const auto& row : cells) w[c] = std::max(w[c], display_width(row[c]));
  }
  auto total = [&] {
    size_t sum = n > 0 ? kGap * (n - 1) : 0;
    for (size_t x : w) sum += x;
    return sum;
  };
  while (total() > kTextWidth) {
    size_t best = n;
    for (size_t c = 0; c < n; ++c) {
      const Column& col = t.columns[c];
      if (col.unit || col.style == TextStyle::Plain) continue;
      const size_t floor = std::max(kMinShrunk, display_width(col.title));
      if (w[c] > floor && (best == n || w[c] > w[best])) best = c;
    }
    if (best == n) break;  // nothing left to shrink: let the line run long
    --w[best];
  }
  return w;
}

// "Note: " + the note, wrapped at spaces to kTextWidth (continuation lines
// indented under the text); a word longer than a line is cut where the line ends.
std::string note_lines(const std::string& note) {
  const std::string prefix = "Note: ", indent(prefix.size(), ' ');
  const size_t room = kTextWidth - prefix.size();
  std::string out, line;
  auto flush = [&] {
    out += (out.empty() ? prefix : indent) + line + "\n";
    line.clear();
  };
  std::string rest = one_line(note);
  while (!rest.empty()) {
    const size_t space = rest.find(' ');
    std::string word = rest.substr(0, space);
    rest = space == std::string::npos ? "" : rest.substr(space + 1);
    while (display_width(word) > room) {  // cut an overlong word (a long kernel name)
      if (!line.empty()) flush();
      size_t cut = room;
      while (cut > 0 && (static_cast<unsigned char>(word[cut]) & 0xC0) == 0x80) --cut;  // keep UTF-8 whole
      line = word.substr(0, cut);
      flush();
      word = word.substr(cut);
    }
    if (!line.empty() && display_width(line) + 1 + display_width(word) > room) flush();
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty() || out.empty()) flush();
  return out;
}

void render_text_table(std::string& out, const Table& t) {
  if (t.rows.empty()) {
    out += one_line(t.title) + ": " + one_line(t.empty_text) + "\n";
  } else {
    std::vector<std::vector<std::string>> cells;
    for (const auto& row : t.rows) {
      std::vector<std::string> texts;
      for (const Cell& cell : row) texts.push_back(cell_text(cell));
      cells.push_back(std::move(texts));
    }
    const std::vector<size_t> w = fit_widths(t, cells);
    auto emit = [&](const std::vector<std::string>& texts) {
      std::string line;
      for (size_t c = 0; c < t.columns.size(); ++c) {
        if (c > 0) line += std::string(kGap, ' ');
        line += pad(shorten_middle(texts[c], w[c]), w[c], t.columns[c].unit.has_value());
      }
      out += rstrip(line) + "\n";
    };
    out += one_line(t.title) + "\n";
    std::vector<std::string> header, rule;
    for (size_t c = 0; c < t.columns.size(); ++c) {
      header.push_back(one_line(t.columns[c].title));
      rule.push_back(std::string(w[c], '-'));
    }
    emit(header);
    emit(rule);
    for (const auto& row : cells) emit(row);
  }
  for (const std::string& note : t.notes) out += note_lines(note);
}

}  // namespace

std::string render_text(const Report& report) {
  std::string out;
  heading(out, report.title, '=');
  for (const Section& s : report.sections) {
    out += "\n";
    heading(out, s.title, '-');
    if (s.lines.empty() && s.tables.empty()) out += one_line(s.empty_text) + "\n";
    if (!s.lines.empty()) render_lines(out, s.lines);
    bool first = s.lines.empty();
    for (const Table& t : s.tables) {
      if (t.for_machines) continue;
      if (!first) out += "\n";
      first = false;
      render_text_table(out, without_machine_columns(t));
    }
    if (!s.notes.empty()) out += "\n";
    for (const std::string& note : s.notes) out += note_lines(note);
  }
  return out;
}

}  // namespace gpuscope::report

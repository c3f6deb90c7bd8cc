#include "report/text_util.h"

#include "common/utf8.h"
#include "report/units.h"

namespace gpuscope::report {
namespace {

bool is_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// The byte offset where the code point `n` code points from the start begins (s.size() if none).
size_t offset_after(std::string_view s, size_t n) {
  size_t i = 0;
  for (; i < s.size(); ++i)
    if (!is_continuation(s[i]) && n-- == 0) break;
  return i;
}

// The byte offset where the last `n` code points begin.
size_t offset_of_last(std::string_view s, size_t n) {
  size_t i = s.size();
  while (n > 0 && i > 0)
    if (!is_continuation(s[--i])) --n;
  return i;
}

}  // namespace

size_t display_width(std::string_view s) {
  size_t n = 0;
  for (char c : s) n += is_continuation(c) ? 0 : 1;
  return n;
}

std::string shorten_middle(std::string_view s, size_t width) {
  if (display_width(s) <= width) return std::string(s);
  if (width == 0) return {};
  const size_t keep = width - 1;  // one column for the ellipsis
  const size_t head = (keep + 1) / 2;
  const size_t tail = keep - head;
  std::string out(s.substr(0, offset_after(s, head)));
  out += "\u2026";
  if (tail > 0) out += s.substr(offset_of_last(s, tail));
  return out;
}

std::string one_line(std::string_view s) {
  std::string out = utf8::valid(s);
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) c = ' ';
  return shorten_middle(out, kMaxShownWidth);
}

std::string cell_text(const Cell& cell) {
  if (const auto* v = std::get_if<Value>(&cell)) return format_value(*v);
  if (const auto* t = std::get_if<std::string>(&cell)) return one_line(*t);
  return "-";
}

}  // namespace gpuscope::report

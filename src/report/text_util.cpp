#include "report/text_util.h"

#include <vector>

#include "report/units.h"

namespace gpuscope::report {
namespace {

bool is_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// Byte offsets at which each code point starts.
std::vector<size_t> code_point_starts(std::string_view s) {
  std::vector<size_t> starts;
  for (size_t i = 0; i < s.size(); ++i)
    if (!is_continuation(s[i])) starts.push_back(i);
  return starts;
}

}  // namespace

size_t display_width(std::string_view s) {
  size_t n = 0;
  for (char c : s) n += is_continuation(c) ? 0 : 1;
  return n;
}

std::string shorten_middle(std::string_view s, size_t width) {
  const std::vector<size_t> starts = code_point_starts(s);
  if (starts.size() <= width) return std::string(s);
  if (width == 0) return {};
  const size_t keep = width - 1;  // one column for the ellipsis
  const size_t head = (keep + 1) / 2;
  const size_t tail = keep - head;
  std::string out(s.substr(0, starts[head]));
  out += "\u2026";
  if (tail > 0) out += s.substr(starts[starts.size() - tail]);
  return out;
}

std::string one_line(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) c = ' ';
  return out;
}

std::string cell_text(const Cell& cell) {
  if (const auto* v = std::get_if<Value>(&cell)) return format_value(*v);
  if (const auto* t = std::get_if<std::string>(&cell)) return one_line(*t);
  return "-";
}

}  // namespace gpuscope::report

// Small text helpers shared by the text and markdown renderers: UTF-8 aware
// width (report strings hold "µs" and arbitrary kernel names) and shortening.
#pragma once

#include <string>
#include <string_view>

#include "report/model.h"

namespace gpuscope::report {

// Display width in code points (every code point counts as one column; the
// report's own strings have no wide characters).
size_t display_width(std::string_view s);

// Shortens to at most `width` code points by cutting the middle and putting
// "…" there, so both the start (namespace) and the end (template arguments)
// of a long kernel name stay readable. Never splits a UTF-8 sequence.
std::string shorten_middle(std::string_view s, size_t width);

// Replaces control characters (newlines, tabs) by spaces: one cell, one line.
std::string one_line(std::string_view s);

// A cell as people read it: formatted number, text, or "-" when empty.
std::string cell_text(const Cell& cell);

}  // namespace gpuscope::report

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

// Names longer than this (code points) are shortened in the middle wherever people read them.
// Real kernel names stay far below; a 40 MB one would otherwise make the text and markdown
// reports tens of MB and slow to lay out. The store and JSON keep names whole.
inline constexpr size_t kMaxShownWidth = 4096;

// Text from the model as the text and markdown renderers show it: invalid UTF-8 bytes become
// U+FFFD, control characters (newlines, tabs) spaces (one cell, one line), and text wider than
// kMaxShownWidth is shortened in the middle.
std::string one_line(std::string_view s);

// A cell as people read it: formatted number, text, or "-" when empty.
std::string cell_text(const Cell& cell);

}  // namespace gpuscope::report

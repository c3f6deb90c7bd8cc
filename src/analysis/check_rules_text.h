// Rule file text made safe for toml++ before it is parsed (check_rules.cpp).
#pragma once

#include <string>

namespace gpuscope::check {

// Debian 12's toml++ (3.3.0) marks a branch of its whitespace test unreachable
// (__builtin_unreachable) that the code points U+00A1..U+0499 and U+FAFE..U+FEFE reach ('µ' is
// U+00B5). Its parser asks that test about the characters of every key, of bare values and
// between tokens, so `"µ" = 1` or `max = tµ` is undefined behaviour (found by the rules fuzz
// target, docs/fuzzing.md). TOML allows non-ASCII text only in strings and comments; this returns
// the text with every non-ASCII character of a "double-quoted" string written as its \u escape,
// which TOML reads as the same character, so toml++ only ever classifies ASCII. Comments stay as
// they are (toml++ only looks for their line end). A non-ASCII character elsewhere, in a
// 'literal string' (which has no escapes) or after a backslash is refused: Error, "SOURCE:LINE: ...".
// Bytes that are not UTF-8 stay as they are: toml++ refuses them before classifying anything.
std::string escape_non_ascii(const std::string& text, const std::string& source);

}  // namespace gpuscope::check

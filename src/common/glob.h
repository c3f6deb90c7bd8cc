// Glob match with * (any run) and ? (any one character) over the whole string: how gates, step
// ranges and iteration ranges name things (docs/diff.md).
#pragma once

#include <string_view>

namespace gpuscope {

// Iterative with one backtrack point: linear-ish, no recursion, whatever the pattern.
inline bool glob_match(std::string_view pattern, std::string_view text) {
  size_t p = 0, t = 0, star = std::string_view::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

}  // namespace gpuscope

// Non-ASCII text of a rule file as toml++ 3.3.0 can parse it safely (check_rules_text.h).
#include "analysis/check_rules_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

#include "common/error.h"
#include "common/utf8.h"

namespace gpuscope::check {
namespace {

enum class In { Code, Comment, BasicString, LiteralString };

}  // namespace

std::string escape_non_ascii(const std::string& text, const std::string& source) {
  const auto fail = [&](size_t at, const std::string& what) {
    throw Error(fmt::format("{}:{}: {}", source, 1 + std::count(text.begin(), text.begin() + at, '\n'), what));
  };
  std::string out;
  out.reserve(text.size());
  In in = In::Code;
  bool multi_line = false;  // the string is """...""" or '''...'''
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (static_cast<unsigned char>(c) < 0x80) {
      // Strings open and close by their delimiters; an escape's character never closes one.
      const char quote = in == In::BasicString ? '"' : '\'';
      size_t take = 1;
      if (in == In::Code && c == '#') {
        in = In::Comment;
      } else if (in == In::Code && (c == '"' || c == '\'')) {
        in = c == '"' ? In::BasicString : In::LiteralString;
        multi_line = text.compare(i, 3, std::string(3, c)) == 0;
        take = multi_line ? 3 : 1;
      } else if (in == In::BasicString && c == '\\' && i + 1 < text.size()) {
        if (static_cast<unsigned char>(text[i + 1]) >= 0x80) fail(i, "a backslash before a non-ASCII character");
        take = 2;
      } else if ((in == In::BasicString || in == In::LiteralString) && c == quote &&
                 (!multi_line || text.compare(i, 3, std::string(3, quote)) == 0)) {
        in = In::Code;
        take = multi_line ? 3 : 1;
      } else if (c == '\n' && (in == In::Comment || !multi_line)) {
        in = In::Code;  // a comment ends here; so does an unclosed one-line string (toml++ says so)
      }
      out.append(text, i, take);
      i += take;
    } else {
      size_t length = 0;
      const char32_t code = utf8::decode(text, i, length);
      if (length == 1 || in == In::Comment) {
        // A lone non-ASCII byte is not UTF-8 (toml++ refuses it); in a comment toml++ looks only
        // for its end.
        out += c;
        ++i;
      } else if (in == In::BasicString) {
        const auto value = static_cast<uint32_t>(code);
        out += code > 0xFFFF ? fmt::format("\\U{:08X}", value) : fmt::format("\\u{:04X}", value);
        i += length;
      } else {
        fail(i, fmt::format("'{}' {}", text.substr(i, length),
                            in == In::LiteralString
                                ? "in a 'literal string': write non-ASCII text in a \"double-quoted\" string"
                                : "outside a string or a comment"));
      }
    }
  }
  return out;
}

}  // namespace gpuscope::check

// The one UTF-8 decoder (RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF), for
// everything that must be valid text (reports in every format, JUnit XML, the exports) or must
// tell UTF-8 apart (rule files): names come from programs and files and may hold any bytes.
#pragma once

#include <string>
#include <string_view>

namespace gpuscope::utf8 {

inline constexpr char32_t kReplacement = 0xFFFD;  // U+FFFD REPLACEMENT CHARACTER

// The code point that starts at s[i]; `length` gets its size in bytes. A byte that does not start
// a well-formed sequence (a stray continuation, a sequence cut short, an overlong form, a
// surrogate, past U+10FFFF) decodes as kReplacement with length 1, so decoding always moves on.
inline char32_t decode(std::string_view s, size_t i, size_t& length) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char lead = byte(i);
  length = 1;
  if (lead < 0x80) return lead;
  size_t n = 0;
  char32_t cp = 0, min = 0;
  if ((lead & 0xE0) == 0xC0) n = 2, cp = lead & 0x1F, min = 0x80;
  else if ((lead & 0xF0) == 0xE0) n = 3, cp = lead & 0x0F, min = 0x800;
  else if ((lead & 0xF8) == 0xF0) n = 4, cp = lead & 0x07, min = 0x10000;
  else return kReplacement;
  if (i + n > s.size()) return kReplacement;
  for (size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return kReplacement;
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return kReplacement;
  length = n;
  return cp;
}

inline void append(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// `s` with every invalid byte replaced by U+FFFD; valid input comes back unchanged.
inline std::string valid(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0, length = 0; i < s.size(); i += length) append(out, decode(s, i, length));
  return out;
}

}  // namespace gpuscope::utf8

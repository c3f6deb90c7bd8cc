// Text from files and users (kernel names, paths, rule ids) made safe to put inside a one-line
// message: control characters become visible escapes, so a name holding a newline cannot split
// an error into several lines or forge a second "gpuscope: ..." line.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

namespace gpuscope {

// "a\nb" -> "a\\nb"; \r and \t likewise, other control characters (and DEL) as \xHH.
inline std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (byte < 0x20 || byte == 0x7F) {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02X", byte);
      out += hex;
    } else out += c;
  }
  return out;
}

}  // namespace gpuscope

#include "export/text.h"

#include <cstdint>

#include "common/utf8.h"

namespace gpuscope::exporting {

void append_json_string(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  for (size_t i = 0; i < text.size();) {
    size_t n = 0;
    const char32_t code = utf8::decode(text, i, n);
    if (n > 1) {
      out.append(text, i, n);
      i += n;
      continue;
    }
    ++i;
    if (code >= 0x80) {  // one byte that is not UTF-8
      utf8::append(out, code);
      continue;
    }
    const char c = static_cast<char>(code);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '/':  // "</" -> "<\/": a "</script>" in a name cannot end an HTML script element
        if (i >= 2 && text[i - 2] == '<') out += "\\/";
        else out.push_back('/');
        break;
      default:
        if (static_cast<uint8_t>(c) < 0x20) {
          out += "\\u00";
          out.push_back(kHex[(c >> 4) & 0xF]);
          out.push_back(kHex[c & 0xF]);
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
}

}  // namespace gpuscope::exporting

// Text formats with their structure kept and their values rewritten: the input is a list of edits
// applied to a well-formed torch.profiler JSON trace or Nsight Compute CSV (the seeds of the
// `kineto` and `ncu` targets), which is then imported by its reader and analysed as `capture`
// does. Byte mutations of a JSON or CSV file mostly break its syntax and stop at the tokenizer;
// these keep every document parseable (unless an edit is meant to break it) and reach the
// readers' meaning checks and the analyses with hostile values where real ones stood: extreme
// and overflowing numbers, huge or malformed strings, a value of another type, a cell of another
// row, a unit of another dimension, a key repeated, nesting past any limit.
//
// Input: byte 0 picks the base document; then 8 bytes per edit (at most kMaxEdits):
//   token (3 bytes, modulo the document's token count), what (1 byte), payload (4 bytes).
// A token is a JSON scalar or key, or a CSV cell. Two edits of one token: the later wins.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "fuzz_target.h"

namespace {

constexpr size_t kEditBytes = 8;
constexpr size_t kMaxEdits = 32;

struct Token {
  size_t begin = 0, end = 0;  // byte span in the document, quotes included
  bool quoted = false;        // a JSON string or a quoted CSV cell
  bool key = false;           // a JSON member name
};

struct Base {
  std::string format;  // the registry's name of its reader
  std::string text;
  std::vector<Token> tokens;
};

// The scalars and member names of a well-formed JSON document.
std::vector<Token> json_tokens(const std::string& text) {
  std::vector<Token> tokens;
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (c == '"') {
      Token t{i, i + 1, true, false};
      while (t.end < text.size() && text[t.end] != '"') t.end += text[t.end] == '\\' ? 2 : 1;
      t.end = std::min(t.end + 1, text.size());
      size_t next = t.end;
      while (next < text.size() && (text[next] == ' ' || text[next] == '\n' || text[next] == '\t')) ++next;
      t.key = next < text.size() && text[next] == ':';
      tokens.push_back(t);
      i = t.end;
    } else if (c == '-' || (c >= '0' && c <= '9') || c == 't' || c == 'f' || c == 'n') {
      Token t{i, i, false, false};
      while (t.end < text.size() && std::strchr(",]} \n\t\r", text[t.end]) == nullptr) ++t.end;
      tokens.push_back(t);
      i = t.end;
    } else {
      ++i;
    }
  }
  return tokens;
}

// The cells of a CSV document (quoted cells may hold commas, newlines and doubled quotes).
std::vector<Token> csv_tokens(const std::string& text) {
  std::vector<Token> tokens;
  size_t i = 0;
  while (i < text.size()) {
    Token t{i, i, text[i] == '"', false};
    if (t.quoted) {  // to past the closing quote; a doubled quote is one quote inside
      t.end = i + 1;
      while (t.end < text.size()) {
        if (text[t.end++] != '"') continue;
        if (t.end >= text.size() || text[t.end] != '"') break;
        ++t.end;
      }
    } else {
      while (t.end < text.size() && text[t.end] != ',' && text[t.end] != '\n') ++t.end;
    }
    tokens.push_back(t);
    i = t.end + 1;  // past the separator
  }
  return tokens;
}

const std::vector<Base>& bases() {
  static const std::vector<Base> all = [] {
    std::vector<Base> made;
    auto add = [&](const std::string& format, const std::string& file) {
      std::ifstream in(std::string(GPUSCOPE_FUZZ_SEED_DIR) + "/" + file, std::ios::binary);
      Base base{format, std::string(std::istreambuf_iterator<char>(in), {}), {}};
      if (base.text.empty()) std::abort();  // a missing seed would make every input trivial
      base.tokens = format == "ncu" ? csv_tokens(base.text) : json_tokens(base.text);
      made.push_back(std::move(base));
    };
    add("kineto", "kineto/one_step.json");
    add("ncu", "ncu/two_kernels_raw.csv");
    add("ncu", "ncu/two_kernels_details.csv");
    return made;
  }();
  return all;
}

// `value` in place of `token`: quoted the format's way when the token was quoted, or when `text`
// (a string value) replaces a bare JSON scalar, so the document stays well-formed; bare otherwise.
std::string as_token(const Base& base, const Token& token, const std::string& value, bool text = false) {
  if (!token.quoted && !(text && base.format != "ncu")) return value;
  std::string out = "\"";
  for (char c : value) {
    if (c == '"') out += base.format == "ncu" ? "\"\"" : "\\\"";
    else out += c;
  }
  return out + "\"";
}

// What edit `what` writes in place of `token`, its payload `p` (4 bytes).
std::string replacement(const Base& base, const Token& token, uint8_t what, const uint8_t* p) {
  static const char* const kNumbers[] = {"0",
                                         "-1",
                                         "9223372036854775807",
                                         "-9223372036854775808",
                                         "18446744073709551616",
                                         "1e308",
                                         "-1e308",
                                         "4.9e-324",
                                         "1e999",
                                         "-0",
                                         "0.5",
                                         "2147483648",
                                         "4294967296",
                                         "1e18"};
  static const char* const kUnits[] = {"nsecond",      "usecond",       "msecond", "second", "byte",  "Kbyte",
                                       "Gbyte/second", "Kbyte/usecond", "%",       "inst",   "cycle", "",
                                       "furlong"};
  static const char* const kTexts[] = {"", "\\u0000", "\\ud800", "\xff\xfe", "12abc", "NaN", "Infinity", " ", "\\\\"};
  static const char* const kShapes[] = {"null", "[]", "{}", "true", "\"7\"", "[1,2,3]", "{\"a\":1}"};
  const uint32_t n = static_cast<uint32_t>(p[0] | p[1] << 8 | p[2] << 16 | static_cast<uint32_t>(p[3]) << 24);
  const std::string& text = base.text;
  // Edits 6 and 7 change the document's shape; most inputs should keep it, so they are 1 in 32
  // and the other values take the rest. A JSON key only ever gets another string.
  what %= 32;
  if (what > 7 || (token.key && what >= 4)) what %= 4;
  if (token.key) return replacement(base, Token{token.begin, token.end, true, false}, what, p);  // quoted: 0..3 keep it
  switch (what) {
    case 0: return as_token(base, token, kNumbers[n % std::size(kNumbers)]);
    case 1: {  // a small step from the number that stood there, or its negation
      const std::string old = text.substr(token.begin + token.quoted, token.end - token.begin - 2 * token.quoted);
      const double value = std::strtod(old.c_str(), nullptr);
      const double stepped = p[0] & 1 ? -value : value + static_cast<int8_t>(p[1]);
      return as_token(base, token, std::to_string(stepped));
    }
    case 2: return as_token(base, token, kTexts[n % std::size(kTexts)], true);
    case 3: {  // up to 64 KiB of one printable character (no quote or backslash)
      const char c = static_cast<char>('0' + p[0] % 40);
      return as_token(base, token, std::string(static_cast<size_t>(p[1]) * 256 + 1, c), true);
    }
    case 4: {  // another token's text: a cell of another row, a key repeated, a value of another type
      const Token& other = base.tokens[n % base.tokens.size()];
      return text.substr(other.begin, other.end - other.begin);
    }
    case 5: return as_token(base, token, kUnits[n % std::size(kUnits)], true);
    case 6:  // another shape: JSON of another type; in CSV a cell that splits or merges cells and rows
      if (base.format == "ncu") {
        static const char* const kCells[] = {"a,b", "\"", "x\ny", "", "\"\"\"", ",,,,"};
        return kCells[n % std::size(kCells)];
      }
      return kShapes[n % std::size(kShapes)];
    default: {  // nesting far past any limit the readers set
      const size_t depth = 64 + (n % 8192);
      return std::string(depth, '[') + std::string(depth, ']');
    }
  }
}

}  // namespace

void gpuscope::fuzz::fuzz_one(std::string_view bytes) {
  if (bytes.empty()) return;
  const auto* input = reinterpret_cast<const uint8_t*>(bytes.data());
  const Base& base = bases()[input[0] % bases().size()];
  std::map<size_t, std::string> edits;  // token -> its new text
  const size_t count = std::min((bytes.size() - 1) / kEditBytes, kMaxEdits);
  for (size_t i = 0; i < count; ++i) {
    const uint8_t* edit = input + 1 + i * kEditBytes;
    const size_t token = (edit[0] | edit[1] << 8 | edit[2] << 16) % base.tokens.size();
    edits[token] = replacement(base, base.tokens[token], edit[3], edit + 4);
  }
  std::string text;
  text.reserve(base.text.size());
  size_t at = 0;
  for (const auto& [index, value] : edits) {
    const Token& token = base.tokens[index];
    text.append(base.text, at, token.begin - at).append(value);
    at = token.end;
  }
  text.append(base.text, at);
  analyse_everything(read_as(base.format, text));
}

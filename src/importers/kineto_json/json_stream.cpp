#include "importers/kineto_json/json_stream.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "common/error.h"
#include "common/utf8.h"

namespace gpuscope::kineto {

namespace {

// Deeper than any trace (Kineto's deepest value is an "Input Dims" list of lists); garbage
// nested deeper is refused rather than walked.
constexpr size_t kMaxDepth = 512;

bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// A string back as JSON text (for read_raw): quotes, backslashes and control characters escaped.
void append_json_string(std::string& out, const std::string& s) {
  out += '"';
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      static const char hex[] = "0123456789abcdef";
      out += "\\u00";
      out += hex[(c >> 4) & 0xF];
      out += hex[c & 0xF];
    } else {
      out += c;
    }
  }
  out += '"';
}

}  // namespace

JsonStream::JsonStream(const std::string& path) : path_(path), reader_(std::make_unique<ChunkReader>(path)) {}

void JsonStream::fail(const std::string& what) const {
  throw Error(path_ + ": " + what + " (at byte " + std::to_string(offset()) + " of the JSON)");
}

bool JsonStream::refill() {
  if (eof_) return false;
  consumed_ += len_;
  pos_ = len_ = 0;
  len_ = reader_->next(buf_);
  eof_ = len_ == 0;
  return !eof_;
}

char JsonStream::peek_token() {
  for (;;) {
    while (pos_ < len_) {
      const char c = buf_[pos_];
      if (!is_space(c)) return c;
      ++pos_;
    }
    if (!refill()) return '\0';
  }
}

bool JsonStream::at_end() { return peek_token() == '\0'; }

JsonType JsonStream::next_type() {
  const char c = peek_token();
  switch (c) {
    case '{': return JsonType::Object;
    case '[': return JsonType::Array;
    case '"': return JsonType::String;
    case 't': return JsonType::True;
    case 'f': return JsonType::False;
    case 'n': return JsonType::Null;
    case '\0':
      if (pos_ < len_) fail("unexpected byte 0 where a value should be");
      fail("the JSON ends early (truncated?)");
    default:
      if (c == '-' || (c >= '0' && c <= '9')) return JsonType::Number;
      if (static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7F)
        fail(std::string("unexpected character '") + c + "' where a value should be");
      fail("unexpected byte " + std::to_string(static_cast<unsigned char>(c)) + " where a value should be");
  }
}

bool JsonStream::consume(char c) {
  if (peek_token() != c) return false;
  ++pos_;
  return true;
}

void JsonStream::expect(char c, const char* what) {
  if (consume(c)) return;
  if (peek_token() == '\0' && pos_ == len_)
    fail(std::string("the JSON ends early (truncated?) where ") + what + " should be");
  fail(std::string("expected ") + what);
}

bool JsonStream::next_key(std::string& key, bool first) {
  if (consume('}')) return false;
  if (!first) expect(',', "',' or '}'");
  if (peek_token() != '"') {
    if (peek_token() == '\0' && pos_ == len_) fail("the JSON ends early (truncated?) inside an object");
    fail("expected a quoted key in an object");
  }
  read_string(key);
  expect(':', "':' after a key");
  return true;
}

bool JsonStream::next_element(bool first) {
  if (consume(']')) return false;
  if (!first) expect(',', "',' or ']'");
  return true;
}

void JsonStream::read_string(std::string& out) {
  out.clear();
  read_string_into(&out);
}

void JsonStream::read_string_into(std::string* out) {
  if (peek_token() != '"') fail("expected a string");
  ++pos_;
  for (;;) {
    if (pos_ == len_ && !refill()) fail("the JSON ends early (truncated?) inside a string");
    const char* begin = buf_.data() + pos_;
    const char* end = buf_.data() + len_;
    const char* p = begin;
    while (p < end && *p != '"' && *p != '\\' && static_cast<unsigned char>(*p) >= 0x20) ++p;
    if (out) {
      out->append(begin, p);
      if (out->size() > kMaxStringBytes) fail("a string longer than 16 MiB");
    }
    pos_ += static_cast<size_t>(p - begin);
    if (p == end) continue;
    ++pos_;
    if (*p == '"') return;
    if (*p == '\\') {
      append_escape(out);
      continue;
    }
    fail("a control character inside a string");
  }
}

void JsonStream::append_escape(std::string* out) {
  auto next = [this]() {
    const char c = peek_char();
    if (c == '\0' && eof_) fail("the JSON ends early (truncated?) inside a string");
    ++pos_;
    return c;
  };
  auto hex4 = [&]() {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = next();
      v <<= 4;
      if (c >= '0' && c <= '9') v |= static_cast<uint32_t>(c - '0');
      else if (c >= 'a' && c <= 'f') v |= static_cast<uint32_t>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') v |= static_cast<uint32_t>(c - 'A' + 10);
      else fail("a bad \\u escape in a string");
    }
    return v;
  };
  const char c = next();
  char plain = 0;
  switch (c) {
    case '"':
    case '\\':
    case '/': plain = c; break;
    case 'b': plain = '\b'; break;
    case 'f': plain = '\f'; break;
    case 'n': plain = '\n'; break;
    case 'r': plain = '\r'; break;
    case 't': plain = '\t'; break;
    case 'u': {
      uint32_t cp = hex4();
      if (cp >= 0xD800 && cp < 0xDC00) {
        // A high surrogate pairs with a following \uDC00-\uDFFF; alone it is not a character.
        if (peek_char() == '\\') {
          ++pos_;
          if (next() != 'u') fail("a bad escape in a string");
          const uint32_t low = hex4();
          cp = low >= 0xDC00 && low < 0xE000 ? 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00) : 0xFFFD;
        } else {
          cp = 0xFFFD;
        }
      } else if ((cp >= 0xDC00 && cp < 0xE000) || cp == 0) {
        cp = 0xFFFD;  // a lone low surrogate, or NUL (names are C strings downstream)
      }
      if (out) utf8::append(*out, cp);
      return;
    }
    default: fail("a bad escape in a string");
  }
  if (out) *out += plain;
}

std::string_view JsonStream::read_number() {
  size_t n = 0;
  for (;;) {
    const char c = peek_char();
    if (!((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E')) break;
    if (n == 64) fail("a number longer than 64 characters");
    number_[n++] = c;
    ++pos_;
  }
  // JSON's grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
  size_t i = 0;
  auto digits = [&]() {
    const size_t from = i;
    while (i < n && number_[i] >= '0' && number_[i] <= '9') ++i;
    return i - from;
  };
  if (i < n && number_[i] == '-') ++i;
  const size_t first = i;
  bool ok = digits() > 0 && !(number_[first] == '0' && i - first > 1);
  if (ok && i < n && number_[i] == '.') ++i, ok = digits() > 0;
  if (ok && i < n && (number_[i] == 'e' || number_[i] == 'E')) {
    ++i;
    if (i < n && (number_[i] == '+' || number_[i] == '-')) ++i;
    ok = digits() > 0;
  }
  if (!ok || i != n) fail("a malformed number '" + std::string(number_, n) + "'");
  return {number_, n};
}

void JsonStream::read_literal(const char* word) {
  for (const char* w = word; *w; ++w) {
    if (peek_char() != *w) fail(std::string("a malformed literal (expected ") + word + ")");
    ++pos_;
  }
}

void JsonStream::skip_value() { read_raw_impl(nullptr, 0); }

void JsonStream::read_raw(std::string& out, size_t limit) {
  out.clear();
  read_raw_impl(&out, limit);
}

// One value, walked iteratively: `open` holds the containers entered ('{' or '['). With `raw`,
// the value's text is rebuilt without whitespace.
void JsonStream::read_raw_impl(std::string* raw, size_t limit) {
  std::string open;
  std::string text;
  for (;;) {
    switch (next_type()) {
      case JsonType::Object:
      case JsonType::Array: {
        const char c = buf_[pos_++];
        if (raw) *raw += c;
        if (open.size() == kMaxDepth) fail("JSON nested deeper than " + std::to_string(kMaxDepth) + " levels");
        open += c;
        if (c == '{') {
          if (consume('}')) {
            open.pop_back();
            if (raw) *raw += '}';
            break;
          }
          read_string_into(raw ? &text.assign("") : nullptr);
          if (raw) append_json_string(*raw, text), *raw += ':';
          expect(':', "':' after a key");
          continue;  // the member's value
        }
        if (consume(']')) {
          open.pop_back();
          if (raw) *raw += ']';
          break;
        }
        continue;  // the first element
      }
      case JsonType::String:
        read_string_into(raw ? &text.assign("") : nullptr);
        if (raw) append_json_string(*raw, text);
        break;
      case JsonType::Number: {
        const std::string_view n = read_number();
        if (raw) raw->append(n);
        break;
      }
      case JsonType::True:
        read_literal("true");
        if (raw) *raw += "true";
        break;
      case JsonType::False:
        read_literal("false");
        if (raw) *raw += "false";
        break;
      case JsonType::Null:
        read_literal("null");
        if (raw) *raw += "null";
        break;
    }
    if (raw && raw->size() > limit) fail("a value longer than " + std::to_string(limit) + " bytes");
    // A value is complete: close what ends here, then go on to the next member or element.
    for (;;) {
      if (open.empty()) return;
      const bool object = open.back() == '{';
      if (consume(object ? '}' : ']')) {
        open.pop_back();
        if (raw) *raw += object ? '}' : ']';
        continue;
      }
      expect(',', object ? "',' or '}'" : "',' or ']'");
      if (raw) *raw += object ? "," : ", ";
      if (object) {
        read_string_into(raw ? &text.assign("") : nullptr);
        if (raw) append_json_string(*raw, text), *raw += ':';
        expect(':', "':' after a key");
      }
      break;
    }
  }
}

namespace {

bool plain_integer(std::string_view text) { return text.find_first_of(".eE") == std::string_view::npos; }

double to_double(JsonStream& stream, std::string_view text, const char* field) {
  const std::string copy(text);
  const double v = std::strtod(copy.c_str(), nullptr);
  if (!std::isfinite(v)) stream.fail(std::string("\"") + field + "\" is out of range: " + copy);
  return v;
}

}  // namespace

namespace {

// An integer exactly from its text; "4.0" or "1e3" through a double when it is integral and
// below `limit` in magnitude.
template <class Int>
Int to_integer(JsonStream& stream, std::string_view text, const char* field, double limit) {
  if (plain_integer(text)) {
    Int v = 0;
    const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
    if (r.ec != std::errc() || r.ptr != text.data() + text.size())
      stream.fail(std::string("\"") + field + "\" is out of range: " + std::string(text));
    return v;
  }
  const double v = to_double(stream, text, field);
  if (v != std::floor(v) || std::fabs(v) >= limit || (v < 0 && Int(-1) > 0))
    stream.fail(std::string("\"") + field + "\" is not an integer in range: " + std::string(text));
  return static_cast<Int>(v);
}

}  // namespace

int64_t to_int64(JsonStream& stream, std::string_view text, const char* field) {
  return to_integer<int64_t>(stream, text, field, 9.2e18);
}

uint64_t to_uint64(JsonStream& stream, std::string_view text, const char* field) {
  // Kineto writes a pointer as a signed number on some builds; keep its bits.
  if (!text.empty() && text[0] == '-') return static_cast<uint64_t>(to_int64(stream, text, field));
  return to_integer<uint64_t>(stream, text, field, 1.8e19);
}

int64_t micros_to_ns(JsonStream& stream, std::string_view text, const char* field) {
  // The common case, Kineto's "{µs}.{3 digits}": integer arithmetic, exact to the ns.
  const bool negative = !text.empty() && text[0] == '-';
  std::string_view digits = negative ? text.substr(1) : text;
  if (digits.find_first_of("eE") == std::string_view::npos) {
    const size_t dot = digits.find('.');
    const std::string_view whole = digits.substr(0, dot);
    const std::string_view fraction = dot == std::string_view::npos ? std::string_view{} : digits.substr(dot + 1);
    uint64_t us = 0;
    const auto r = std::from_chars(whole.data(), whole.data() + whole.size(), us);
    if (r.ec == std::errc() && us <= 9'000'000'000'000'000'000ULL / 1000 /* 9e18 ns */) {
      uint64_t ns = us * 1000;
      uint64_t scale = 100;
      for (size_t i = 0; i < fraction.size() && i < 3; ++i, scale /= 10)
        ns += static_cast<uint64_t>(fraction[i] - '0') * scale;
      if (fraction.size() > 3 && fraction[3] >= '5') ++ns;  // round to the nearest ns
      return negative ? -static_cast<int64_t>(ns) : static_cast<int64_t>(ns);
    }
  }
  const double ns = to_double(stream, text, field) * 1000.0;
  if (!(std::fabs(ns) < 9.0e18)) stream.fail(std::string("\"") + field + "\" is out of range: " + std::string(text));
  return static_cast<int64_t>(std::llround(ns));
}

}  // namespace gpuscope::kineto

// A pull tokenizer for JSON read through zlib in chunks (plain and gzip alike, chunk_reader.h),
// so a trace of several GB is parsed event by event in bounded memory. The caller walks the document (the
// Kineto reader knows its shape); every malformed or truncated input throws gpuscope::Error
// with one line naming the byte offset. Nesting is tracked without recursion, so deeply
// nested garbage cannot overflow the stack.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "importers/kineto_json/chunk_reader.h"

namespace gpuscope::kineto {

enum class JsonType { Object, Array, String, Number, True, False, Null };

class JsonStream {
 public:
  explicit JsonStream(const std::string& path);
  JsonStream(const JsonStream&) = delete;
  JsonStream& operator=(const JsonStream&) = delete;

  // The type of the next value (skipping whitespace); throws at the end of the input.
  JsonType next_type();
  // Consumes `c` (after whitespace) when it is next.
  bool consume(char c);
  void expect(char c, const char* what);
  // After '{' or ',' inside an object: the next key into `key` and its ':'; false at '}'.
  // `first` says whether this is the object's first member (no ',' expected).
  bool next_key(std::string& key, bool first);
  // After '[' or ',' inside an array: true when another element follows, false at ']'.
  bool next_element(bool first);

  // The longest string (key or value) read into memory, bytes: a kernel name or an op's input
  // shapes are kilobytes; a gzip bomb's one string could be gigabytes, refused as it grows.
  static constexpr size_t kMaxStringBytes = size_t{16} << 20;
  void read_string(std::string& out);
  // The next number's text, validated against JSON's grammar (at most 64 characters).
  std::string_view read_number();
  void skip_value();
  // The next value's text without insignificant whitespace, for small values handed whole to
  // nlohmann::json; throws when it exceeds `limit` bytes.
  void read_raw(std::string& out, size_t limit);

  // Only whitespace is left.
  bool at_end();
  uint64_t offset() const { return consumed_ + pos_; }
  [[noreturn]] void fail(const std::string& what) const;

 private:
  bool refill();      // false at the end of the input
  char peek_char() {  // next character or '\0' at the end (no whitespace skipped)
    if (pos_ == len_ && !refill()) return '\0';
    return buf_[pos_];
  }
  char peek_token();  // next non-whitespace character, '\0' at the end
  void read_literal(const char* word);
  void read_raw_impl(std::string* raw, size_t limit);  // nullptr: skip
  void read_string_into(std::string* out);             // nullptr: skip
  void append_escape(std::string* out);

  std::string path_;
  std::unique_ptr<ChunkReader> reader_;
  std::vector<char> buf_;  // the chunk being parsed
  size_t pos_ = 0, len_ = 0;
  uint64_t consumed_ = 0;  // bytes before buf_[0]
  bool eof_ = false;
  char number_[65];
};

// Numbers as the importer needs them; each throws through `stream.fail` when the text does
// not fit. Decimal text is converted exactly (no double rounding on the common forms).
int64_t to_int64(JsonStream& stream, std::string_view text, const char* field);
uint64_t to_uint64(JsonStream& stream, std::string_view text, const char* field);
// Microseconds with up to three decimals (Kineto's "ts"/"dur") to nanoseconds, exactly;
// more decimals or an exponent go through a double and are rounded to the nearest ns.
int64_t micros_to_ns(JsonStream& stream, std::string_view text, const char* field);

}  // namespace gpuscope::kineto

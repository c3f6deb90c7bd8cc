// The Chrome export's output: text appended to a string and handed to the stream in blocks.
// Every `<<` on a std::ostream pays for a sentry, a locale lookup and a virtual xsputn; with
// ~20 insertions per event that was half of the export's time (perf, 1M-record capture). Here
// an insertion is an append, and the stream sees one write per ~1 MiB.
#pragma once

#include <charconv>
#include <concepts>
#include <ostream>
#include <string>
#include <string_view>

namespace gpuscope::exporting {

class JsonOut {
 public:
  static constexpr size_t kBlockBytes = 1 << 20;

  explicit JsonOut(std::ostream& out) : out_(out) { text_.reserve(kBlockBytes + 4096); }
  JsonOut(const JsonOut&) = delete;
  JsonOut& operator=(const JsonOut&) = delete;
  ~JsonOut() { flush(); }

  JsonOut& operator<<(std::string_view s) { return append(s); }
  JsonOut& operator<<(const char* s) { return append(s); }
  JsonOut& operator<<(const std::string& s) { return append(s); }
  JsonOut& operator<<(char c) {
    text_.push_back(c);
    return *this;
  }
  // Integers as std::ostream writes them (no grouping in the classic locale). One-byte integers
  // are refused: an ostream prints those as characters.
  template <std::integral T>
  requires(sizeof(T) > 1) JsonOut& operator<<(T value) {
    char buf[24];
    return append(std::string_view(buf, std::to_chars(buf, buf + sizeof buf, value).ptr));
  }

  // An ostream writes these differently (true as 1, doubles at precision 6): format them first.
  JsonOut& operator<<(bool) = delete;
  JsonOut& operator<<(double) = delete;
  JsonOut& operator<<(float) = delete;

  // The text not yet written, for writers that append to it directly (append_json_string).
  std::string& text() { return text_; }
  void flush() {
    out_.write(text_.data(), static_cast<std::streamsize>(text_.size()));
    text_.clear();
  }
  // Writes a block once enough has gathered; call between events.
  void maybe_flush() {
    if (text_.size() >= kBlockBytes) flush();
  }

 private:
  JsonOut& append(std::string_view s) {
    text_.append(s);
    return *this;
  }

  std::ostream& out_;
  std::string text_;
};

}  // namespace gpuscope::exporting

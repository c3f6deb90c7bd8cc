#include "importers/ncu_csv/csv_reader.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <fstream>

#include "common/error.h"

namespace gpuscope::ncu {

// The sources (byte_source.h).

namespace {

// What GzipFileSource will give in all: a plain file's size, or a gzip file's last four bytes
// (ISIZE, little-endian: the last member's inflated size mod 4 GiB). 0 when it cannot tell.
size_t inflated_size_hint(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return 0;
  const std::streamoff size = in.tellg();
  if (size < 0) return 0;
  unsigned char magic[2] = {0, 0};
  in.seekg(0);
  in.read(reinterpret_cast<char*>(magic), 2);
  if (!in || magic[0] != 0x1f || magic[1] != 0x8b || size < 18) return static_cast<size_t>(size);
  unsigned char trailer[4] = {0, 0, 0, 0};
  in.seekg(size - 4);
  in.read(reinterpret_cast<char*>(trailer), 4);
  if (!in) return 0;
  return size_t{trailer[0]} | size_t{trailer[1]} << 8 | size_t{trailer[2]} << 16 | size_t{trailer[3]} << 24;
}

}  // namespace

GzipFileSource::GzipFileSource(const std::string& path)
    : file_(gzopen(path.c_str(), "rb")), size_hint_(file_ ? inflated_size_hint(path) : 0) {
  if (!file_) throw Error("cannot read the file");
}

GzipFileSource::~GzipFileSource() { gzclose(file_); }

size_t GzipFileSource::read(char* into, size_t capacity) {
  // gzread takes an unsigned count; the reader asks for a few MiB at most.
  const auto want = static_cast<unsigned>(std::min<size_t>(capacity, UINT_MAX));
  const int got = gzread(file_, into, want);
  if (got < 0) throw Error("cannot read the file (corrupt gzip data)");
  return static_cast<size_t>(got);
}

size_t MemorySource::read(char* into, size_t capacity) {
  const size_t n = std::min(capacity, text_.size());
  if (n > 0) std::memcpy(into, text_.data(), n);  // never from the null data of an empty view
  text_.remove_prefix(n);
  return n;
}

// The reader.

namespace {

[[noreturn]] void too_long(size_t line) {
  throw Error("line " + std::to_string(line) +
              ": a CSV record or line of more than 16 MiB (not an ncu CSV, or a damaged one)");
}

}  // namespace

// Drops what was parsed (before pos_) and appends the next chunk; false when the source had no
// more. The bytes kept are the start of the record or line being read.
bool CsvReader::fill() {
  if (at_end_) return false;
  buffer_.erase(0, pos_);
  pos_ = 0;
  const size_t kept = buffer_.size();
  if (kept > kMaxRecordBytes) too_long(line_);
  // A record longer than a chunk reads as much again as it has (so re-parsing it from its start
  // after each read costs linear time in its size, not quadratic), up to the record limit: the
  // buffer stays within kMaxRecordBytes + kChunkBytes.
  const size_t want = std::max(kChunkBytes, std::min(kept, kMaxRecordBytes - kept));
  buffer_.resize(kept + want);
  const size_t got = source_->read(buffer_.data() + kept, want);
  buffer_.resize(kept + got);
  peak_buffer_bytes_ = std::max(peak_buffer_bytes_, buffer_.capacity());
  total_bytes_ += got;
  if (total_bytes_ > kMaxTotalBytes)
    throw Error("an ncu CSV of more than 256 MiB (uncompressed); profile fewer launches per file");
  at_end_ = got == 0;
  return !at_end_;
}

bool CsvReader::next_line(std::string_view& line) {
  size_t searched = 0;  // bytes past pos_ known to hold no line end
  size_t end = std::string::npos;
  while ((end = buffer_.find('\n', pos_ + searched)) == std::string::npos) {
    searched = buffer_.size() - pos_;
    if (!fill()) break;
  }
  if (pos_ >= buffer_.size()) return false;
  if (end == std::string::npos) end = buffer_.size();  // the last line, without a line end
  if (end - pos_ > kMaxRecordBytes) too_long(line_);
  line = std::string_view(buffer_).substr(pos_, end - pos_);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  pos_ = std::min(end + 1, buffer_.size());
  ++line_;
  return true;
}

void CsvReader::skip_tool_lines() {
  while (true) {
    // Two bytes tell a tool line ("==") or a blank one ("\r\n"); fewer only at the end.
    while (buffer_.size() - pos_ < 2 && fill()) {
    }
    if (pos_ >= buffer_.size()) return;
    const std::string_view rest = std::string_view(buffer_).substr(pos_);
    const bool blank = rest.front() == '\n' || rest.starts_with("\r\n");
    if (!blank && !rest.starts_with("==")) return;
    std::string_view line;
    next_line(line);
    if (blank) continue;
    if (tool_line_handler_) tool_line_handler_(line);
    else tool_lines_.emplace_back(line);
  }
}

bool CsvReader::next(std::vector<std::string>& fields) {
  if (!read_record(fields)) return false;
  if (!header_.empty() && fields == header_)
    throw Error("line " + std::to_string(record_line_) +
                ": the header again (two ncu CSVs joined into one file?); give each file on its own");
  return true;
}

bool CsvReader::read_record(std::vector<std::string>& fields) {
  skip_tool_lines();
  record_line_ = line_;
  while (true) {
    const size_t start = pos_;
    const Parse parsed = parse_record(fields);
    if (parsed == Parse::End) return false;
    if (parsed == Parse::Record) {
      if (pos_ - start > kMaxRecordBytes) too_long(record_line_);
      record_bytes_ = pos_ - start;
      return true;
    }
    // The record goes past the bytes read: read more and parse it again from its start.
    pos_ = start;
    line_ = record_line_;
    fill();
  }
}

// One record from pos_. NeedMore where the bytes read end before the record does (never once the
// source is at its end, where the end of the bytes ends the record).
CsvReader::Parse CsvReader::parse_record(std::vector<std::string>& fields) {
  const std::string_view text(buffer_);
  const bool more = !at_end_;
  fields.clear();
  if (pos_ >= text.size()) return more ? Parse::NeedMore : Parse::End;
  std::string field;
  while (true) {
    if (pos_ >= text.size() && more) return Parse::NeedMore;
    if (pos_ < text.size() && text[pos_] == '"') {
      // Quoted: up to the closing quote; "" is a quote; commas and line breaks are text.
      ++pos_;
      while (true) {
        const size_t quote = text.find('"', pos_);
        if (quote == std::string_view::npos) {
          if (more) return Parse::NeedMore;
          throw Error("line " + std::to_string(record_line_) +
                      ": a quoted field is not closed (the file is cut short?)");
        }
        line_ += static_cast<size_t>(std::count(text.begin() + pos_, text.begin() + quote, '\n'));
        field.append(text.substr(pos_, quote - pos_));
        pos_ = quote + 1;
        if (pos_ >= text.size() && more) return Parse::NeedMore;  // a "" may be split by the chunk
        if (pos_ < text.size() && text[pos_] == '"') {
          field += '"';
          ++pos_;
          continue;
        }
        break;
      }
    }
    // Unquoted text (or stray text after a closing quote, kept as ncu never writes it).
    const size_t stop = text.find_first_of(",\r\n", pos_);
    if (stop == std::string_view::npos && more) return Parse::NeedMore;
    const size_t end = stop == std::string_view::npos ? text.size() : stop;
    field.append(text.substr(pos_, end - pos_));
    pos_ = end;
    if (fields.size() == kMaxFields)
      throw Error("line " + std::to_string(record_line_) +
                  ": a CSV record of more than 1,048,576 fields (not an ncu CSV, or a damaged one)");
    fields.push_back(std::move(field));
    field.clear();
    if (pos_ >= text.size()) return Parse::Record;
    const char c = text[pos_];
    if (c == ',') {
      ++pos_;
      continue;
    }
    // End of the record: LF or CRLF (a lone CR ends it too).
    if (c == '\r' && pos_ + 1 >= text.size() && more) return Parse::NeedMore;
    pos_ += (c == '\r' && pos_ + 1 < text.size() && text[pos_ + 1] == '\n') ? 2 : 1;
    ++line_;
    return Parse::Record;
  }
}

std::vector<std::string> split_line_lenient(std::string_view line) {
  std::vector<std::string> fields;
  std::string field;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c != '"') field += c;
      else if (i + 1 < line.size() && line[i + 1] == '"') field += '"', ++i;
      else quoted = false;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.push_back(std::move(field));
      field.clear();
    } else {
      field += c;
    }
  }
  if (!quoted) fields.push_back(std::move(field));  // a field cut inside its quotes is dropped
  return fields;
}

}  // namespace gpuscope::ncu

// A CSV reader for the files ncu writes with --csv: RFC 4180 quoting (fields in double quotes,
// "" for a quote, commas and line breaks inside quotes), LF or CRLF line ends. ncu's own lines
// (==PROF==, ==WARNING==, ==ERROR==) and the profiled program's output, which land in the same
// stream when ncu prints to stdout, are not CSV: lines starting with "==" are skipped wherever a
// record could start, and the caller skips anything before the header.
//
// It streams: bytes come from a ByteSource a chunk (1 MiB) at a time and what was parsed is
// dropped, so it holds one chunk and the record being read, never the file. Its bounds, each a
// one-line Error naming the limit: 256 MiB read in all (a gzip bomb), 16 MiB for one record or
// line, 1 Mi fields in one record.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "importers/ncu_csv/byte_source.h"

namespace gpuscope::ncu {

class CsvReader {
 public:
  // The largest read from the source at once, bytes.
  static constexpr size_t kChunkBytes = size_t{1} << 20;
  // The most bytes read in all (uncompressed). The raw page of the full set is 16.4 KB per
  // launch (2238 metrics, tests/data/ncu/bsr_spmm_full_raw.csv): 256 MiB holds 16,000 such
  // launches, hours of ncu replay at its pace of a second or more per launch.
  static constexpr size_t kMaxTotalBytes = size_t{256} << 20;
  // One record (or line before the header), bytes: ~1,000 times a --set full raw row.
  static constexpr size_t kMaxRecordBytes = size_t{16} << 20;
  // Fields in one record: ~470 times the columns of a --set full raw page; bounds the 32 bytes
  // of std::string each empty field costs however short the record's text.
  static constexpr size_t kMaxFields = size_t{1} << 20;

  explicit CsvReader(std::unique_ptr<ByteSource> source) : source_(std::move(source)) {}
  // Text in memory, which the caller keeps alive while reading.
  explicit CsvReader(std::string_view text) : CsvReader(std::make_unique<MemorySource>(text)) {}

  // The next record's fields; false at the end of the text. A quote left open at the end
  // (a file cut inside a field) throws Error naming the line.
  bool next(std::vector<std::string>& fields);

  // The next line as it is (no CSV parsing), for skipping what precedes the header; false at
  // the end. Advances past the line end. `line` is valid until the next call on the reader.
  bool next_line(std::string_view& line);

  // From here on, a record equal to `header` is an error: a second table's header, where two
  // ncu CSVs were joined into one file, would otherwise read as a launch named "Kernel Name".
  void refuse_repeats_of(std::vector<std::string> header) { header_ = std::move(header); }

  // 1-based line of the record next() returned last.
  size_t line() const { return record_line_; }
  // Bytes of the record next() returned last, its line end included.
  size_t record_bytes() const { return record_bytes_; }
  // The source's bytes in all, where it can tell cheaply (ByteSource::size_hint); else 0.
  size_t input_size_hint() const { return source_->size_hint(); }

  // The "==" lines next() skipped (ncu's messages, for the processes and passes): handed to
  // `handler` as they are met from now on; without one they are kept, in tool_lines().
  void on_tool_line(std::function<void(std::string_view)> handler) { tool_line_handler_ = std::move(handler); }
  const std::vector<std::string>& tool_lines() const { return tool_lines_; }

  // The largest buffer the reader has held, bytes: a chunk and one record, whatever the input's
  // size (tested).
  size_t peak_buffer_bytes() const { return peak_buffer_bytes_; }

 private:
  enum class Parse { Record, End, NeedMore };
  bool fill();
  void skip_tool_lines();
  bool read_record(std::vector<std::string>& fields);
  Parse parse_record(std::vector<std::string>& fields);

  std::unique_ptr<ByteSource> source_;
  std::string buffer_;  // bytes read and not yet dropped; parsing is at pos_
  size_t pos_ = 0;
  bool at_end_ = false;  // the source gave its last byte
  size_t total_bytes_ = 0;
  size_t peak_buffer_bytes_ = 0;
  size_t line_ = 1;         // line of pos_
  size_t record_line_ = 0;  // line where the last record started
  size_t record_bytes_ = 0;
  std::function<void(std::string_view)> tool_line_handler_;
  std::vector<std::string> tool_lines_;  // without a handler
  std::vector<std::string> header_;      // refuse_repeats_of's
};

// The fields of one line read leniently, for format detection on the start of a file: a line
// cut short (the probe's end) gives the fields it has complete.
std::vector<std::string> split_line_lenient(std::string_view line);

}  // namespace gpuscope::ncu

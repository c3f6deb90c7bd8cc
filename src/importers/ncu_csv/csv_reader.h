// A CSV reader for the files ncu writes with --csv: RFC 4180 quoting (fields in double quotes,
// "" for a quote, commas and line breaks inside quotes), LF or CRLF line ends. ncu's own lines
// (==PROF==, ==WARNING==, ==ERROR==) and the profiled program's output, which land in the same
// stream when ncu prints to stdout, are not CSV: lines starting with "==" are skipped wherever a
// record could start, and the caller skips anything before the header.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpuscope::ncu {

class CsvReader {
 public:
  explicit CsvReader(std::string_view text) : text_(text) {}

  // The next record's fields; false at the end of the text. A quote left open at the end
  // (a file cut inside a field) throws Error naming the line.
  bool next(std::vector<std::string>& fields);

  // The next line as it is (no CSV parsing), for skipping what precedes the header; false at
  // the end. Advances past the line end.
  bool next_line(std::string_view& line);

  // From here on, a record equal to `header` is an error: a second table's header, where two
  // ncu CSVs were joined into one file, would otherwise read as a launch named "Kernel Name".
  void refuse_repeats_of(std::vector<std::string> header) { header_ = std::move(header); }

  // 1-based line of the record next() returned last.
  size_t line() const { return record_line_; }

  // The "==" lines skipped so far (ncu's messages), for the version and process lines.
  const std::vector<std::string_view>& tool_lines() const { return tool_lines_; }

 private:
  void skip_tool_lines();
  bool read_record(std::vector<std::string>& fields);

  std::string_view text_;
  size_t pos_ = 0;
  size_t line_ = 1;         // line of pos_
  size_t record_line_ = 0;  // line where the last record started
  std::vector<std::string_view> tool_lines_;
  std::vector<std::string> header_;  // refuse_repeats_of's
};

// The fields of one line read leniently, for format detection on the start of a file: a line
// cut short (the probe's end) gives the fields it has complete.
std::vector<std::string> split_line_lenient(std::string_view line);

}  // namespace gpuscope::ncu

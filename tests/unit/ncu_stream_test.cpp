// The ncu CSV reader streams (csv_reader.h): it asks its source for a chunk at a time, holds a
// chunk and the record being read whatever the input's size, reads records split anywhere
// between chunks as it reads them whole, and ends each of its bounds in a one-line error. The
// counts come from sources instrumented here, not from timing or RSS.
#include <gtest/gtest.h>

#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "common/error.h"
#include "importers/ncu_csv/byte_source.h"
#include "importers/ncu_csv/csv_reader.h"
#include "importers/ncu_csv/ncu_file.h"
#include "importers/ncu_csv/ncu_importer.h"
#include "test_files.h"

namespace gpuscope {
namespace {

using ncu::CsvReader;

// Counts what the reader took: bytes given in all and the largest request.
class CountingSource final : public ncu::ByteSource {
 public:
  explicit CountingSource(std::string_view text) : inner_(text) {}
  size_t read(char* into, size_t capacity) override {
    largest_request = std::max(largest_request, capacity);
    const size_t got = inner_.read(into, capacity);
    given += got;
    return got;
  }
  size_t given = 0, largest_request = 0;

 private:
  ncu::MemorySource inner_;
};

// Gives at most a few bytes a read (1 to `most`, varying), so records and their quotes, "" and
// CRLF line ends fall across the reader's chunk boundaries everywhere.
class TrickleSource final : public ncu::ByteSource {
 public:
  TrickleSource(std::string_view text, size_t most) : text_(text), most_(most) {}
  size_t read(char* into, size_t capacity) override {
    state_ = state_ * 6364136223846793005ull + 1442695040888963407ull;  // fixed seed: repeatable
    const size_t n = std::min({capacity, text_.size(), 1 + static_cast<size_t>(state_ >> 33) % most_});
    std::copy_n(text_.data(), n, into);
    text_.remove_prefix(n);
    return n;
  }

 private:
  std::string_view text_;
  size_t most_;
  uint64_t state_ = 1;
};

// A raw page of `rows` launches with 200 metric columns; every row is `row_bytes` long (IDs
// zero-padded), so a row's end is at a known offset.
struct RawPage {
  std::string text;
  size_t head_bytes = 0, row_bytes = 0;
};

RawPage raw_page(size_t rows) {
  RawPage page;
  std::string header = "\"ID\",\"Process ID\",\"Kernel Name\",\"gpu__time_duration.sum\"";
  std::string units = "\"\",\"\",\"\",\"nsecond\"";
  for (int m = 0; m < 200; ++m) {
    header += ",\"test__metric_" + std::to_string(m) + ".sum\"";
    units += ",\"byte\"";
  }
  page.text = "==PROF== Connected to process 7 (/bin/app)\n" + header + "\n" + units + "\n";
  page.head_bytes = page.text.size();
  std::string values = "\"7\",\"k(int)\",\"1,500\"";
  for (int m = 0; m < 200; ++m) values += ",\"" + std::to_string(1000 + m) + "\"";
  for (size_t id = 0; id < rows; ++id) {
    char number[32];
    std::snprintf(number, sizeof number, "\"%08zu\",", id);
    page.text += number + values + "\r\n";
  }
  page.row_bytes = (page.text.size() - page.head_bytes) / rows;
  return page;
}

std::vector<std::vector<std::string>> all_records(CsvReader& reader, std::vector<size_t>* lines = nullptr) {
  std::vector<std::vector<std::string>> records;
  std::vector<std::string> fields;
  while (reader.next(fields)) {
    records.push_back(fields);
    if (lines) lines->push_back(reader.line());
  }
  return records;
}

TEST(NcuCsvStream, ReadsAChunkAheadOfTheRecordNeverTheFile) {
  size_t peak_of_small = 0;
  for (const size_t rows : {4000, 16000}) {  // ~5 and ~20 MB
    const RawPage page = raw_page(rows);
    auto source = std::make_unique<CountingSource>(page.text);
    CountingSource& counted = *source;
    CsvReader reader(std::move(source));
    std::vector<std::string> fields;
    ASSERT_TRUE(reader.next(fields));  // the header
    ASSERT_TRUE(reader.next(fields));  // the units row
    for (size_t row = 0; row < rows; ++row) {
      ASSERT_TRUE(reader.next(fields));
      // Read so far: up to this row's end and at most one chunk more.
      const size_t row_end = page.head_bytes + (row + 1) * page.row_bytes;
      ASSERT_LE(counted.given, row_end + CsvReader::kChunkBytes) << "row " << row;
    }
    EXPECT_FALSE(reader.next(fields));
    EXPECT_EQ(counted.given, page.text.size());
    EXPECT_LE(counted.largest_request, CsvReader::kChunkBytes);
    // What it held: a chunk and a partial record, in a string whose capacity at most doubles.
    EXPECT_LE(reader.peak_buffer_bytes(), 2 * (CsvReader::kChunkBytes + page.row_bytes));
    if (peak_of_small == 0) peak_of_small = reader.peak_buffer_bytes();
    else EXPECT_EQ(reader.peak_buffer_bytes(), peak_of_small) << "the buffer grew with the input";
  }
}

TEST(NcuCsvStream, FileReaderStreamsToo) {
  // read_stream, the path of read_file and parse_text: the whole raw page to launches.
  const RawPage page = raw_page(8000);
  CsvReader reader(std::make_unique<CountingSource>(page.text));
  const ncu::File file = ncu::read_stream(reader);
  ASSERT_EQ(file.launches.size(), 8000u);
  EXPECT_EQ(file.launches.back().id, 7999u);
  EXPECT_EQ(file.command_lines.at(7), "/bin/app");
  EXPECT_LE(reader.peak_buffer_bytes(), 2 * (CsvReader::kChunkBytes + page.row_bytes));
  EXPECT_EQ(file.counts.most_held, 8000u);  // no sink: the File holds them all
}

TEST(NcuCsvStream, MetricsOnlyImportHoldsOneLaunchAtATime) {
  // The raw page's launches go into the capture as they are read (capture_builder.h): the
  // import never holds them beside the capture's rows. Plain and gzip, whose size hint is ISIZE.
  const size_t rows = 3000;  // ~4 MB, 201 values each
  const RawPage page = raw_page(rows);
  for (const bool gzip : {false, true}) {
    const std::string path = ::testing::TempDir() + (gzip ? "ncu_stream_raw.csv.gz" : "ncu_stream_raw.csv");
    if (gzip) {
      gzFile out = gzopen(path.c_str(), "wb");
      ASSERT_TRUE(out);
      ASSERT_EQ(gzwrite(out, page.text.data(), static_cast<unsigned>(page.text.size())),
                static_cast<int>(page.text.size()));
      gzclose(out);
    } else {
      std::ofstream(path, std::ios::binary) << page.text;
    }
    Trace trace;
    ncu::LaunchCounts counts;
    read_ncu_csv(path, trace, &counts);
    std::remove(path.c_str());
    EXPECT_EQ(counts.read, rows);
    EXPECT_EQ(counts.most_held, 1u) << "the import held parsed launches beside the capture";
    ASSERT_EQ(trace.kernels.size(), rows);
    ASSERT_EQ(trace.kernel_metrics.size(), rows * 201);
    // The rows sized once from the input's size (a quarter over), not by doubling (which
    // would leave 2^20 here).
    EXPECT_LE(trace.kernel_metrics.capacity(), trace.kernel_metrics.size() * 3 / 2) << (gzip ? "gzip" : "plain");
  }
}

TEST(NcuCsvStream, DetailsPageLaunchesAreHeldUntilTheEnd) {
  // A details-page launch's rows need not be together, so its launches are all read first.
  Trace trace;
  ncu::LaunchCounts counts;
  read_ncu_csv(testing::test_data("ncu/bsr_spmm_full_details.csv"), trace, &counts);
  EXPECT_GT(counts.read, 1u);
  EXPECT_EQ(counts.most_held, counts.read);
  EXPECT_EQ(trace.kernels.size(), counts.read);
}

TEST(NcuCsvStream, RecordsSplitAnywhereReadAsWhole) {
  const std::string tricky =
      "==PROF== hello\r\n\"a,b\",\"say \"\"hi\"\"\",plain\r\n\"two\nlines\",,\"\"\r\n==WARNING== x\n\r\n"
      "\"\"\"\",\"x\"\"\"\r\n\"cr\"\r\"last\"";
  std::vector<std::string> texts = {tricky};
  for (const char* name : {"ncu/metrics_kernels_raw.csv", "ncu/metrics_kernels_details.csv"})
    texts.push_back(testing::read_text_file(testing::test_data(name)));
  for (const std::string& text : texts) {
    CsvReader whole(text);
    std::vector<size_t> whole_lines;
    const auto expected = all_records(whole, &whole_lines);
    ASSERT_GT(expected.size(), 2u);
    // A byte at a time for the short text; up to 4 KB (a fraction of a row) for the real files.
    CsvReader split(std::make_unique<TrickleSource>(text, text.size() < 1000 ? 1 : 4096));
    std::vector<size_t> split_lines;
    EXPECT_EQ(all_records(split, &split_lines), expected);
    EXPECT_EQ(split_lines, whole_lines);
    EXPECT_EQ(split.tool_lines(), whole.tool_lines());
  }
}

std::string error_of(const std::string& text) {
  try {
    CsvReader reader(text);
    all_records(reader);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(NcuCsvStream, BoundsAreOneLineErrorsNamingTheLimit) {
  // One record past 16 MiB: a quoted field never closed within it (or just a long one).
  const std::string long_field = "\"a\"\n\"" + std::string(CsvReader::kMaxRecordBytes + 10, 'x') + "\"\n";
  const std::string record = error_of(long_field);
  EXPECT_NE(record.find("line 2: a CSV record or line of more than 16 MiB"), std::string::npos) << record;
  // More fields than 1 Mi in one record.
  const std::string fields = error_of("\"a\"\n" + std::string(CsvReader::kMaxFields + 1, ',') + "\n");
  EXPECT_NE(fields.find("line 2: a CSV record of more than 1,048,576 fields"), std::string::npos) << fields;
  // A line before the header past 16 MiB (program output without line ends).
  const std::string output = std::string(CsvReader::kMaxRecordBytes + 10, 'o');
  std::string line_error;
  try {
    CsvReader reader(output);
    std::string_view line;
    reader.next_line(line);
  } catch (const Error& e) {
    line_error = e.what();
  }
  EXPECT_NE(line_error.find("line 1: a CSV record or line of more than 16 MiB"), std::string::npos) << line_error;
  for (const std::string& message : {record, fields, line_error})
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

}  // namespace
}  // namespace gpuscope

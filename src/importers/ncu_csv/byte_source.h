// Where the ncu CSV reader (csv_reader.h; csv_reader.cpp implements these too) takes its bytes
// from, a chunk at a time: a file (plain or gzip, inflated as it is read) or text already in
// memory (tests, the fuzz targets' bytes). One interface for both, so that what a test or fuzzer
// feeds goes through the same reader that imports files, and a test can count what it asked for.
#pragma once

#include <zlib.h>

#include <cstddef>
#include <string>
#include <string_view>

namespace gpuscope::ncu {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Copies up to `capacity` bytes into `into`; returns how many, 0 at the end. Throws Error with
  // a one-line message (no path: the caller adds it) when the bytes cannot be read.
  virtual size_t read(char* into, size_t capacity) = 0;
};

// A file through zlib: gzread reads a plain file as it is and a gzip file decompressed.
class GzipFileSource final : public ByteSource {
 public:
  explicit GzipFileSource(const std::string& path);  // throws Error when it cannot be opened
  ~GzipFileSource() override;
  GzipFileSource(const GzipFileSource&) = delete;
  GzipFileSource& operator=(const GzipFileSource&) = delete;
  size_t read(char* into, size_t capacity) override;

 private:
  gzFile file_ = nullptr;
};

// Text the caller keeps alive while the reader reads it.
class MemorySource final : public ByteSource {
 public:
  explicit MemorySource(std::string_view text) : text_(text) {}
  size_t read(char* into, size_t capacity) override;

 private:
  std::string_view text_;  // what is left to read
};

}  // namespace gpuscope::ncu

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
  // The bytes it will give in all, where cheaply known (0 when not): lets the importer size the
  // capture's metric rows once instead of by doubling (raw_page.cpp). A hint, never trusted.
  virtual size_t size_hint() const { return 0; }
};

// A file through zlib: gzread reads a plain file as it is and a gzip file decompressed.
class GzipFileSource final : public ByteSource {
 public:
  explicit GzipFileSource(const std::string& path);  // throws Error when it cannot be opened
  ~GzipFileSource() override;
  GzipFileSource(const GzipFileSource&) = delete;
  GzipFileSource& operator=(const GzipFileSource&) = delete;
  size_t read(char* into, size_t capacity) override;
  // A plain file's size; a gzip file's ISIZE trailer (its inflated size mod 4 GiB, exact for
  // one member under the reader's 256 MiB bound).
  size_t size_hint() const override { return size_hint_; }

 private:
  gzFile file_ = nullptr;
  size_t size_hint_ = 0;
};

// Text the caller keeps alive while the reader reads it.
class MemorySource final : public ByteSource {
 public:
  explicit MemorySource(std::string_view text) : text_(text), size_(text.size()) {}
  size_t read(char* into, size_t capacity) override;
  size_t size_hint() const override { return size_; }

 private:
  std::string_view text_;  // what is left to read
  size_t size_ = 0;        // bytes in all
};

}  // namespace gpuscope::ncu

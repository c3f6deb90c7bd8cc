#include "importers/ncu_csv/byte_source.h"

#include <algorithm>
#include <climits>
#include <cstring>

#include "common/error.h"

namespace gpuscope::ncu {

GzipFileSource::GzipFileSource(const std::string& path) : file_(gzopen(path.c_str(), "rb")) {
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

}  // namespace gpuscope::ncu

// Gzip through zlib: whole buffers (the HTML report's embedded data) and streams (a trace
// export too large to hold twice in memory). Both write the gzip format (RFC 1952) that
// `gunzip`, Python's gzip module and the browser's DecompressionStream("gzip") read.
#pragma once

#include <memory>
#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>

namespace gpuscope {

// level: 1 (fastest) .. 9 (smallest). Throws gpuscope::Error if zlib fails.
std::string gzip_bytes(std::string_view data, int level = 6);

// An ostream whose bytes reach `sink` gzipped. finish() writes the gzip trailer and flushes;
// it must be called (the destructor does not throw, so it only finishes quietly).
class GzipOstream : public std::ostream {
 public:
  explicit GzipOstream(std::ostream& sink, int level = 6);
  ~GzipOstream() override;
  void finish();  // throws gpuscope::Error if zlib or the sink fails

 private:
  class Buffer;
  std::unique_ptr<Buffer> buffer_;
};

}  // namespace gpuscope

// A file read in chunks through zlib (plain and gzip alike) on a thread of its own, so inflating
// a .json.gz overlaps parsing instead of adding to it. At most kQueued chunks wait: memory stays
// a few MiB whatever the file's size.
#pragma once

#include <zlib.h>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace gpuscope::kineto {

class ChunkReader {
 public:
  explicit ChunkReader(const std::string& path);  // throws Error when the file cannot be opened
  ~ChunkReader();                                 // stops the thread, even mid-file (the parser may have thrown)
  ChunkReader(const ChunkReader&) = delete;
  ChunkReader& operator=(const ChunkReader&) = delete;

  // Swaps the next chunk into `chunk` (whose old buffer is reused); returns its size, 0 at the
  // end of the file. Throws Error, with zlib's reason, for corrupt or cut-short gzip data.
  size_t next(std::vector<char>& chunk);

 private:
  void produce();

  static constexpr size_t kChunkBytes = 1 << 20;
  static constexpr size_t kQueued = 2;

  std::string path_;
  gzFile file_ = nullptr;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::vector<char>> full_;   // read, in file order
  std::vector<std::vector<char>> free_;  // handed back, for reuse
  bool done_ = false, stop_ = false;
  std::string error_;
  std::thread thread_;
};

}  // namespace gpuscope::kineto

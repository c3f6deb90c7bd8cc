#include "importers/kineto_json/chunk_reader.h"

#include "common/error.h"

namespace gpuscope::kineto {

ChunkReader::ChunkReader(const std::string& path) : path_(path) {
  file_ = gzopen(path.c_str(), "rb");
  if (!file_) throw Error(path + ": cannot read the file");
  gzbuffer(file_, 256 * 1024);
  thread_ = std::thread([this] { produce(); });
}

ChunkReader::~ChunkReader() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  thread_.join();
  gzclose(file_);
}

void ChunkReader::produce() {
  for (;;) {
    std::vector<char> chunk;
    {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [&] { return stop_ || full_.size() < kQueued; });
      if (stop_) return;
      if (!free_.empty()) {
        chunk = std::move(free_.back());
        free_.pop_back();
      }
    }
    chunk.resize(kChunkBytes);
    const int n = gzread(file_, chunk.data(), static_cast<unsigned>(chunk.size()));
    int code = Z_OK;
    const char* message = gzerror(file_, &code);
    std::lock_guard lock(mutex_);
    if (n < 0 || (code != Z_OK && code != Z_STREAM_END)) {
      // zlib's message names the file again ("PATH: unexpected end of file"); keep its reason.
      error_ = message && *message ? message : "read error";
      if (error_.rfind(path_ + ": ", 0) == 0) error_.erase(0, path_.size() + 2);
      done_ = true;
    } else if (n == 0) {
      done_ = true;
    } else {
      chunk.resize(static_cast<size_t>(n));
      full_.push_back(std::move(chunk));
    }
    changed_.notify_all();
    if (done_) return;
  }
}

size_t ChunkReader::next(std::vector<char>& chunk) {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return !full_.empty() || done_; });
  if (full_.empty()) {
    if (!error_.empty()) throw Error(path_ + ": the gzip data is corrupt or cut short (" + error_ + ")");
    return 0;
  }
  if (chunk.capacity()) free_.push_back(std::move(chunk));
  chunk = std::move(full_.front());
  full_.pop_front();
  changed_.notify_all();
  return chunk.size();
}

}  // namespace gpuscope::kineto

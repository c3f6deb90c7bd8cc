#include "capture/buffer_pool.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace gpuscope::capture {

size_t BufferPool::max_buffers_for(size_t buffer_bytes) {
  if (buffer_bytes == 0) return 2;
  return std::clamp<size_t>(kMaxPoolBytes / buffer_bytes, 2, 4096);
}

BufferPool::BufferPool(size_t buffer_bytes, size_t max_buffers)
    : buffer_bytes_((buffer_bytes + 7) & ~size_t{7}), max_buffers_(std::max<size_t>(max_buffers, 1)) {
  free_.reserve(max_buffers_);
  ring_.resize(max_buffers_);
}

BufferPool::~BufferPool() {
  for (uint8_t* buffer : free_) std::free(buffer);
}

uint8_t* BufferPool::acquire(std::chrono::microseconds wait) {
  std::unique_lock lock(mutex_);
  if (free_.empty() && stats_.allocated < max_buffers_) {
    ++stats_.allocated;  // reserve the slot, allocate outside the lock
    lock.unlock();
    // calloc: zero (fresh pages cost nothing to zero) and aligned for any record (CUPTI needs 8).
    auto* buffer = static_cast<uint8_t*>(std::calloc(1, buffer_bytes_));
    if (buffer != nullptr) return buffer;
    lock.lock();
    --stats_.allocated;
    ++stats_.refused;
    return nullptr;
  }
  if (free_.empty() && wait.count() > 0) {
    free_cv_.wait_for(lock, wait, [&] { return !free_.empty(); });
  }
  if (free_.empty()) {
    ++stats_.refused;
    return nullptr;
  }
  uint8_t* buffer = free_.back();
  free_.pop_back();
  return buffer;
}

void BufferPool::release(uint8_t* buffer, size_t written_bytes) {
  if (buffer == nullptr) return;
  std::memset(buffer, 0, std::min(written_bytes, buffer_bytes_));
  {
    std::lock_guard lock(mutex_);
    if (free_.size() < max_buffers_) {
      free_.push_back(buffer);
      buffer = nullptr;
    }
  }
  // Only a buffer that did not come from this pool can overflow the free list.
  if (buffer != nullptr) std::free(buffer);
  free_cv_.notify_one();
}

bool BufferPool::push_filled(const FilledBuffer& filled) {
  {
    std::lock_guard lock(mutex_);
    if (!closed_ && ring_count_ < max_buffers_) {
      ring_[(ring_head_ + ring_count_) % max_buffers_] = filled;
      ++ring_count_;
      stats_.peak_queued = std::max<uint64_t>(stats_.peak_queued, ring_count_);
      filled_cv_.notify_one();
      return true;
    }
    ++stats_.discarded;
  }
  release(filled.data, filled.valid_bytes);
  return false;
}

BufferPool::Pop BufferPool::pop_filled(FilledBuffer& out, std::chrono::milliseconds wait) {
  std::unique_lock lock(mutex_);
  if (ring_count_ == 0 && !closed_) {
    filled_cv_.wait_for(lock, wait, [&] { return ring_count_ > 0 || closed_; });
  }
  if (ring_count_ == 0) return closed_ ? Pop::Closed : Pop::Timeout;
  out = ring_[ring_head_];
  ring_head_ = (ring_head_ + 1) % max_buffers_;
  --ring_count_;
  return Pop::Got;
}

size_t BufferPool::queued() const {
  std::lock_guard lock(mutex_);
  return ring_count_;
}

void BufferPool::close() {
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
  }
  filled_cv_.notify_all();
}

PoolStats BufferPool::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

}  // namespace gpuscope::capture

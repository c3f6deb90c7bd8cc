// CUPTI activity buffers and the hand-off to the writer thread.
//
// Life of a buffer (ownership in brackets):
//   acquire()      CUPTI asks for an empty buffer                 [pool -> CUPTI]
//   push_filled()  CUPTI returns it full; queued for the writer    [CUPTI -> queue]
//   pop_filled()   the writer takes it and decodes it              [queue -> writer]
//   release()      the writer recycles it to the free list         [writer -> pool]
//
// Every buffer the pool hands out is zero (calloc, and release() zeroes what was written), so
// CUPTI need not zero all of it in the program's thread (CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_
// BUFFER): the cost moves to the writer thread, and shrinks to the bytes CUPTI wrote. CUPTI
// writes a returned buffer only up to its valid size (checked on an H200 over 300,000 kernels,
// docs/capture.md), so zeroing those bytes restores an all-zero buffer.
//
// acquire() and push_filled() run on CUPTI's or the program's threads, so they only
// take a mutex for a few instructions and never wait for the writer, with one
// exception: when the memory bound is reached, acquire() waits at most `wait` for a
// recycled buffer and then refuses (CUPTI drops records and counts them; we count the
// refusal). Buffers are allocated lazily and kept until the process ends: at most
// max_buffers * buffer_bytes bytes (see kMaxPoolBytes).
//
// The queue is a ring of max_buffers slots, allocated up front: since every queued
// buffer came from this pool, it can never overflow and pushing never allocates.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace gpuscope::capture {

struct FilledBuffer {
  uint8_t* data = nullptr;
  size_t valid_bytes = 0;  // bytes of records CUPTI wrote
  uint64_t dropped = 0;    // records CUPTI reported dropped when it returned this buffer
};

struct PoolStats {
  uint64_t allocated = 0;  // buffers ever allocated (<= max_buffers)
  uint64_t refused = 0;    // requests refused at the bound: CUPTI dropped records meanwhile
  uint64_t discarded = 0;  // filled buffers thrown away because the writer had stopped
  uint64_t peak_queued = 0;
};

class BufferPool {
 public:
  static constexpr size_t kMaxPoolBytes = size_t{256} << 20;
  // How many buffers of `buffer_bytes` fit the memory bound (at least 2, at most 4096).
  static size_t max_buffers_for(size_t buffer_bytes);

  BufferPool(size_t buffer_bytes, size_t max_buffers);
  ~BufferPool();  // frees what is on the free list; the injection never destroys its pool
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;

  size_t buffer_bytes() const { return buffer_bytes_; }
  size_t max_buffers() const { return max_buffers_; }

  // An empty buffer of buffer_bytes(), 8-byte aligned as CUPTI requires; nullptr if the
  // bound is reached and none came back within `wait`.
  uint8_t* acquire(std::chrono::microseconds wait);
  // `written_bytes`: how much of it CUPTI wrote (its valid size), zeroed here; by default all.
  void release(uint8_t* buffer, size_t written_bytes = SIZE_MAX);

  // Queues a filled buffer for the writer. After close() the buffer is recycled at once
  // and counted as discarded; returns false then.
  bool push_filled(const FilledBuffer& filled);

  enum class Pop { Got, Timeout, Closed };
  // Closed only once close() was called and the queue is empty: queued buffers drain first.
  Pop pop_filled(FilledBuffer& out, std::chrono::milliseconds wait);
  size_t queued() const;

  void close();
  PoolStats stats() const;

 private:
  const size_t buffer_bytes_;
  const size_t max_buffers_;
  mutable std::mutex mutex_;
  std::condition_variable free_cv_;    // a buffer was released
  std::condition_variable filled_cv_;  // a buffer was queued, or close()
  std::vector<uint8_t*> free_;         // capacity max_buffers_, never reallocates
  std::vector<FilledBuffer> ring_;     // max_buffers_ slots
  size_t ring_head_ = 0, ring_count_ = 0;
  bool closed_ = false;
  PoolStats stats_;
};

}  // namespace gpuscope::capture

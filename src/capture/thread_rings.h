// Records made on the program's threads, handed to the writer thread without a lock: each thread
// writes to a ring of its own, allocated at its first record (no lock or allocation after that);
// a full ring drops the record and the caller counts it. drain() runs on the writer thread, the
// rings' one reader. A ring whose thread has exited is reused by the next new thread once
// drained, so the memory is bounded by the threads alive at once (at most kMaxRings rings; the
// records of threads beyond are dropped).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "capture/threads.h"

namespace gpuscope::capture {

template <class Entry, uint32_t kRecords, size_t kMaxRings>
class ThreadRings {
 public:
  ThreadRings() : id_(next_id().fetch_add(1, std::memory_order_relaxed)) {}
  ThreadRings(const ThreadRings&) = delete;
  ThreadRings& operator=(const ThreadRings&) = delete;

  // On the program's thread: fill(entry, tid) writes the thread's next record in place; false when
  // it was dropped (ring full, no memory for a ring, or every ring taken by a live thread).
  template <class Fill>
  bool push(Fill&& fill) {
    Ring* ring = nullptr;
    try {
      ring = ring_of_this_thread();
    } catch (...) {  // no memory for a ring
    }
    if (ring == nullptr) return false;
    const uint64_t head = ring->head.load(std::memory_order_relaxed);
    if (head - ring->tail.load(std::memory_order_acquire) >= kRecords) return false;
    fill(ring->records[head % kRecords], ring->tid);
    ring->head.store(head + 1, std::memory_order_release);
    return true;
  }

  // On the writer thread: each(entry) for every record pushed since the last drain, ring by ring
  // in push order. Returns how many.
  template <class Each>
  size_t drain(Each&& each) {
    std::vector<Ring*> rings;
    {
      std::lock_guard lock(mutex_);
      for (const auto& ring : rings_) rings.push_back(ring.get());
    }
    size_t drained = 0;
    for (Ring* ring : rings) {
      const uint64_t head = ring->head.load(std::memory_order_acquire);
      const uint64_t tail = ring->tail.load(std::memory_order_relaxed);
      for (uint64_t i = tail; i < head; ++i) each(static_cast<const Entry&>(ring->records[i % kRecords]));
      ring->tail.store(head, std::memory_order_release);
      drained += head - tail;
    }
    return drained;
  }

 private:
  // One thread's records: its thread is the only writer (head), the writer thread the only
  // reader (tail); a record is published by the release store of head.
  struct Ring {
    std::atomic<uint64_t> head{0};  // records written, ever
    std::atomic<uint64_t> tail{0};  // records drained, ever
    uint32_t tid = 0;               // the thread writing it now (under mutex_)
    std::unique_ptr<Entry[]> records{new Entry[kRecords]};
  };
  // The calling thread's ring: valid only while `owner` is the instance asking (ids are never
  // reused, so a ring of a destroyed instance is never touched again).
  struct Slot {
    uint64_t owner = 0;
    Ring* ring = nullptr;
  };

  static std::atomic<uint64_t>& next_id() {
    static std::atomic<uint64_t> id{1};
    return id;
  }

  Ring* ring_of_this_thread() {
    static thread_local Slot slot;
    if (slot.owner == id_) return slot.ring;
    // The thread's first record: once per thread, so a lock and an allocation are fine here.
    const uint32_t tid = current_thread_id();
    std::lock_guard lock(mutex_);
    Ring* ring = nullptr;
    for (const auto& candidate : rings_)
      if (candidate->head.load(std::memory_order_relaxed) == candidate->tail.load(std::memory_order_acquire) &&
          !thread_alive(candidate->tid)) {
        ring = candidate.get();  // drained, and its thread is gone
        break;
      }
    if (ring == nullptr) {
      if (rings_.size() >= kMaxRings) return nullptr;
      rings_.push_back(std::make_unique<Ring>());
      ring = rings_.back().get();
    }
    ring->tid = tid;
    slot = Slot{id_, ring};
    return ring;
  }

  const uint64_t id_;
  std::mutex mutex_;                          // a thread's first record, and drain's list walk
  std::vector<std::unique_ptr<Ring>> rings_;  // never shrinks: threads hold raw pointers
};

}  // namespace gpuscope::capture

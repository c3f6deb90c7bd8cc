// Buffer recycling, the memory bound, the hand-off queue, and the periodic flusher.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <set>
#include <thread>

#include "capture/buffer_pool.h"
#include "capture/periodic_flusher.h"

namespace gpuscope::capture {
namespace {

using namespace std::chrono_literals;

TEST(BufferPool, MaxBuffersFollowTheMemoryBound) {
  EXPECT_EQ(BufferPool::max_buffers_for(8u << 20), 32u);   // 8 MiB buffers: 256 MiB / 8 MiB
  EXPECT_EQ(BufferPool::max_buffers_for(256u << 20), 2u);  // never fewer than 2
  EXPECT_EQ(BufferPool::max_buffers_for(1u << 30), 2u);
  EXPECT_EQ(BufferPool::max_buffers_for(64u << 10), 4096u);  // never more than 4096
}

// CUPTI is told the buffers come zeroed (CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER): a
// recycled buffer full of old records must come back all zero.
TEST(BufferPool, EveryBufferHandedOutIsZero) {
  BufferPool pool(4096, 1);
  uint8_t* fresh = pool.acquire(0us);
  ASSERT_NE(fresh, nullptr);
  EXPECT_TRUE(std::all_of(fresh, fresh + 4096, [](uint8_t b) { return b == 0; }));
  std::fill(fresh, fresh + 1000, uint8_t{0xab});  // CUPTI wrote 1,000 bytes of records
  pool.release(fresh, 1000);
  uint8_t* recycled = pool.acquire(0us);
  ASSERT_EQ(recycled, fresh);
  EXPECT_TRUE(std::all_of(recycled, recycled + 4096, [](uint8_t b) { return b == 0; }));
  pool.release(recycled);
}

TEST(BufferPool, AllocatesLazilyUpToTheBoundThenRefuses) {
  BufferPool pool(4096, 3);
  uint8_t* a = pool.acquire(0us);
  uint8_t* b = pool.acquire(0us);
  uint8_t* c = pool.acquire(0us);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % 8, 0u);  // CUPTI needs 8-byte alignment
  EXPECT_EQ(pool.acquire(0us), nullptr);
  EXPECT_EQ(pool.acquire(1000us), nullptr);  // waited, nothing came back
  EXPECT_EQ(pool.stats().allocated, 3u);
  EXPECT_EQ(pool.stats().refused, 2u);
  pool.release(b);
  EXPECT_EQ(pool.acquire(0us), b);  // recycled, not newly allocated
  EXPECT_EQ(pool.stats().allocated, 3u);
  pool.release(a);
  pool.release(b);
  pool.release(c);
}

TEST(BufferPool, AcquireWaitsBrieflyForARecycledBuffer) {
  BufferPool pool(4096, 1);
  uint8_t* only = pool.acquire(0us);
  ASSERT_NE(only, nullptr);
  std::thread writer([&] {
    std::this_thread::sleep_for(5ms);
    pool.release(only);
  });
  uint8_t* again = pool.acquire(2000000us);  // up to 2 s; the release comes after ~5 ms
  writer.join();
  EXPECT_EQ(again, only);
  EXPECT_EQ(pool.stats().refused, 0u);
  pool.release(again);
}

TEST(BufferPool, FilledBuffersComeOutInOrder) {
  BufferPool pool(64, 4);
  uint8_t* bufs[3];
  for (int i = 0; i < 3; ++i) {
    bufs[i] = pool.acquire(0us);
    ASSERT_TRUE(pool.push_filled({bufs[i], static_cast<size_t>(10 + i), static_cast<uint64_t>(i)}));
  }
  EXPECT_EQ(pool.queued(), 3u);
  for (int i = 0; i < 3; ++i) {
    FilledBuffer out;
    ASSERT_EQ(pool.pop_filled(out, 0ms), BufferPool::Pop::Got);
    EXPECT_EQ(out.data, bufs[i]);
    EXPECT_EQ(out.valid_bytes, static_cast<size_t>(10 + i));
    EXPECT_EQ(out.dropped, static_cast<uint64_t>(i));
    pool.release(out.data);
  }
  FilledBuffer none;
  EXPECT_EQ(pool.pop_filled(none, 1ms), BufferPool::Pop::Timeout);
  EXPECT_EQ(pool.stats().peak_queued, 3u);
}

TEST(BufferPool, CloseDrainsThenReportsClosedAndDiscardsLatePushes) {
  BufferPool pool(64, 4);
  uint8_t* a = pool.acquire(0us);
  uint8_t* b = pool.acquire(0us);
  pool.push_filled({a, 1, 0});
  pool.close();
  EXPECT_FALSE(pool.push_filled({b, 1, 0}));  // after close: recycled at once
  EXPECT_EQ(pool.stats().discarded, 1u);
  FilledBuffer out;
  ASSERT_EQ(pool.pop_filled(out, 0ms), BufferPool::Pop::Got);  // queued work still drains
  EXPECT_EQ(out.data, a);
  pool.release(a);
  EXPECT_EQ(pool.pop_filled(out, 100ms), BufferPool::Pop::Closed);
}

TEST(BufferPool, CloseWakesAWaitingWriter) {
  BufferPool pool(64, 2);
  std::atomic<bool> woke{false};
  std::thread writer([&] {
    FilledBuffer out;
    EXPECT_EQ(pool.pop_filled(out, 10000ms), BufferPool::Pop::Closed);
    woke = true;
  });
  std::this_thread::sleep_for(5ms);
  const auto t0 = std::chrono::steady_clock::now();
  pool.close();
  writer.join();
  EXPECT_TRUE(woke);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
}

// Many producers (CUPTI on program threads) against one consumer (the writer): every
// buffer comes through exactly once and the pool never exceeds its bound.
TEST(BufferPool, ProducersAndOneConsumer) {
  BufferPool pool(256, 8);
  constexpr int kProducers = 4, kPerProducer = 2000;
  std::atomic<int> produced{0}, refused{0};
  std::atomic<bool> done{false};
  std::set<uint8_t*> seen;
  int consumed = 0;
  std::thread consumer([&] {
    for (;;) {
      FilledBuffer out;
      auto got = pool.pop_filled(out, 50ms);
      if (got == BufferPool::Pop::Closed) break;
      if (got != BufferPool::Pop::Got) continue;
      EXPECT_EQ(out.valid_bytes, 123u);
      seen.insert(out.data);
      ++consumed;
      pool.release(out.data);
    }
  });
  std::vector<std::thread> producers;
  for (int p = 0; p < kProducers; ++p) {
    producers.emplace_back([&] {
      for (int i = 0; i < kPerProducer; ++i) {
        uint8_t* b = pool.acquire(2000us);
        if (b == nullptr) {
          ++refused;
          continue;
        }
        pool.push_filled({b, 123, 0});
        ++produced;
      }
    });
  }
  for (auto& t : producers) t.join();
  pool.close();
  consumer.join();
  EXPECT_EQ(consumed, produced.load());
  EXPECT_EQ(produced + refused, kProducers * kPerProducer);
  EXPECT_LE(pool.stats().allocated, 8u);
  EXPECT_LE(seen.size(), 8u);
  EXPECT_EQ(pool.stats().refused, static_cast<uint64_t>(refused.load()));
}

TEST(PeriodicFlusher, CallsPeriodicallyAndStopsPromptly) {
  std::atomic<int> calls{0};
  PeriodicFlusher flusher;
  ASSERT_TRUE(flusher.start(10, [&] { ++calls; }));
  std::this_thread::sleep_for(120ms);
  const auto t0 = std::chrono::steady_clock::now();
  flusher.stop();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 1s);
  const int after_stop = calls.load();
  EXPECT_GE(after_stop, 3);
  EXPECT_LE(after_stop, 20);
  EXPECT_EQ(flusher.flushes(), static_cast<uint64_t>(after_stop));
  std::this_thread::sleep_for(30ms);
  EXPECT_EQ(calls.load(), after_stop);  // nothing after stop()
}

TEST(PeriodicFlusher, ZeroPeriodDoesNothing) {
  std::atomic<int> calls{0};
  PeriodicFlusher flusher;
  EXPECT_TRUE(flusher.start(0, [&] { ++calls; }));
  std::this_thread::sleep_for(20ms);
  flusher.stop();
  EXPECT_EQ(calls.load(), 0);
}

}  // namespace
}  // namespace gpuscope::capture

// Calls a flush function every period, on its own quiet thread.
//
// Why: cuptiActivityFlushPeriod alone only returns buffers that are *full*; a slow
// program could keep records in a half-full 8 MiB buffer for minutes, and a crash
// would lose them. cuptiActivityFlushAll(0) returns every buffer whose records are
// complete, so calling it every flush_ms bounds what a crash can lose to about one
// period (plus the writer's latency). It issues no CUDA synchronisation.
//
// Shared by the capture library and the overhead-floor injector so both pay the same.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>

namespace gpuscope::capture {

class PeriodicFlusher {
 public:
  PeriodicFlusher() = default;
  ~PeriodicFlusher() { stop(); }
  PeriodicFlusher(const PeriodicFlusher&) = delete;
  PeriodicFlusher& operator=(const PeriodicFlusher&) = delete;

  // period_ms == 0: does nothing. Returns false if the thread could not be started.
  bool start(uint32_t period_ms, std::function<void()> flush);
  // Wakes and joins the thread; the flush function is not called again afterwards.
  void stop();
  uint64_t flushes() const;

 private:
  void run(uint32_t period_ms);

  std::function<void()> flush_;
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  bool stopping_ = false;
  uint64_t flushes_ = 0;
  std::thread thread_;
};

}  // namespace gpuscope::capture

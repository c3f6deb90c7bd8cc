#include "capture/periodic_flusher.h"

#include <chrono>

#include "capture/threads.h"

namespace gpuscope::capture {

bool PeriodicFlusher::start(uint32_t period_ms, std::function<void()> flush) {
  if (period_ms == 0 || thread_.joinable()) return true;
  flush_ = std::move(flush);
  try {
    thread_ = start_quiet_thread("gpuscope-flush", [this, period_ms] { run(period_ms); });
  } catch (...) {
    return false;
  }
  return true;
}

void PeriodicFlusher::run(uint32_t period_ms) {
  std::unique_lock lock(mutex_);
  const auto period = std::chrono::milliseconds(period_ms);
  auto next = std::chrono::steady_clock::now() + period;
  while (!stopping_) {
    if (cv_.wait_until(lock, next, [this] { return stopping_; })) break;
    next += period;
    ++flushes_;
    lock.unlock();  // the flush may take a while; stop() must still be able to signal
    flush_();
    lock.lock();
    const auto now = std::chrono::steady_clock::now();
    if (next < now) next = now + period;  // do not catch up after a long flush
  }
}

void PeriodicFlusher::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

uint64_t PeriodicFlusher::flushes() const {
  std::lock_guard lock(mutex_);
  return flushes_;
}

}  // namespace gpuscope::capture

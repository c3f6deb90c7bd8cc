// Flushes CUPTI's completed records when a synchronization returns, so that a GPU fault does not
// take their times with it.
//
// Why: CUPTI fills a kernel's (or copy's) start and end when it flushes. Once the context has
// faulted (an illegal address: every later CUDA call returns the sticky error) it can no longer
// read them, and every record still waiting arrives without times, even with a forced flush right
// after the first error. Measured on an H200 (docs/capture.md): 1,000 kernels before a fault, none
// kept its times with the 500 ms periodic flush alone; flushing after each synchronization kept
// all 1,000. A flush costs ~47 us, so it runs at most every `min_interval_ms` (0: after every
// synchronization); what a fault can cost is then the kernels of the last interval.
//
// Which calls: the driver's synchronizations (cuCtx/cuStream/cuEventSynchronize). The runtime's
// cudaDeviceSynchronize and friends call them, so both APIs are covered by one set of callbacks.
// Only a successful return flushes: after an error there is nothing left to save.
//
// Threads: on_callback runs on any program thread, inside its CUDA call; lock-free.
#pragma once

#include <cupti.h>

#include <atomic>
#include <cstdint>
#include <functional>

#include "capture/cupti_loader.h"

namespace gpuscope::capture {

class SyncFlush {
 public:
  // `flush` returns CUPTI's completed buffers (cuptiActivityFlushAll(0)); it must do nothing once
  // the records are no longer ours (another CUPTI client took them).
  SyncFlush(uint32_t min_interval_ms, std::function<void()> flush);

  static void enable_callbacks(const CuptiApi& api, CUpti_SubscriberHandle subscriber);
  // Whether (domain, cbid) is one of the synchronizations; then on_callback wants its callbacks.
  static bool watches(CUpti_CallbackDomain domain, CUpti_CallbackId cbid);
  void on_callback(const CUpti_CallbackData& data);

  uint64_t flushes() const { return flushes_.load(std::memory_order_relaxed); }

 private:
  const int64_t min_interval_ns_;
  const std::function<void()> flush_;
  std::atomic<int64_t> last_flush_ns_{0};  // steady clock; claimed by compare-exchange
  std::atomic<uint64_t> flushes_{0};
};

}  // namespace gpuscope::capture

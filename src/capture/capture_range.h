// Capture ranges, as nsys users know them: record only between cudaProfilerStart and
// cudaProfilerStop (torch.cuda.profiler.start/stop), only inside an NVTX push/pop range with a
// given message, or only from a delay on for a duration. Outside a window no activity kind is
// enabled, so the program pays almost nothing (docs/performance.md has the measured figure).
//
// The controller owns the windows: begin/end switch tracing on and off through the two
// functions it is given (the injection's activity set-up), and each window's [start, end) is
// written to the spool at the end (CaptureWindow records), so the report knows what the trace
// covers. A window still open at exit ends there.
//
// Threads: begin/end come from CUPTI callbacks on program threads, or from the timer thread;
// a mutex serialises them (they are rare: a few per run).
#pragma once

#include <cupti.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "capture/cupti_loader.h"
#include "capture/options.h"
#include "capture/spool_writer.h"

namespace gpuscope::capture {

class CaptureRange {
 public:
  // on_begin: enable tracing, returns "" or why it could not; on_end: disable tracing.
  CaptureRange(RecordingWindow window, std::function<std::string()> on_begin, std::function<void()> on_end);
  ~CaptureRange();

  bool needs_callbacks() const;  // profiler API or NVTX
  void enable_callbacks(const CuptiApi& api, CUpti_SubscriberHandle subscriber) const;
  void on_api_callback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const CUpti_CallbackData& data);
  void on_nvtx_callback(CUpti_CallbackId cbid, const void* params, const void* return_value);
  // The timer mode's thread; false if it could not start.
  bool start_timer();
  // Closes an open window (at exit) and stops the timer.
  void finish();
  // CaptureWindow records of every window so far.
  void write_windows(SpoolWriter& out);
  // "cudaProfilerStart/Stop", "NVTX range 'train' (repeat)", "from 2 s for 5 s".
  std::string describe() const;

 private:
  bool begin(uint32_t tid, int depth);  // tid/depth: the NVTX range that opens it (0 otherwise)
  void end();
  bool our_domain(const void* domain);
  void on_push(const char* message, const void* domain);
  void on_pop(const void* domain);

  const RecordingWindow window_;
  std::function<std::string()> on_begin_;
  std::function<void()> on_end_;
  std::mutex mutex_;
  bool open_ = false;
  bool done_ = false;  // range_end=stop after the first window, or the limit reached
  int64_t open_since_ = 0;
  std::vector<std::pair<int64_t, int64_t>> windows_;
  std::string failure_;  // why a window could not begin, once
  // NVTX: the thread whose range opened the window (0: none open) and its depth outside the range;
  // atomics so that every pop can test them without the lock.
  std::atomic<uint32_t> open_tid_{0};
  std::atomic<int> open_depth_{0};
  std::unordered_set<const void*> domains_;  // NVTX: handles of the configured domain
  std::mutex timer_mutex_;
  std::condition_variable timer_wake_;
  bool timer_stop_ = false;
  std::thread timer_;
};

}  // namespace gpuscope::capture

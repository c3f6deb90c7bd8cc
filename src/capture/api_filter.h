// The lean API trace (`--api lean`): CUDA API functions that are pure queries, called several
// times per PyTorch op (cudaGetDevice alone ~8 times per kernel with PyTorch 2.11), get no activity
// record: ~85 % fewer API records for a PyTorch training loop. It does not make tracing faster:
// CUPTI intercepts every call either way, and counting costs a callback (docs/performance.md has
// the measurements, which is why `full` is the default). The calls stay countable: a callback counts and times every
// call (calls and summed ns per function), and the first call of each function is kept as a full record, so a query
// that happens to be the process's first CUDA call (and pays for CUDA's initialisation) still shows in the timeline.
//
// Threads: on_callback runs on any program thread (lock-free, relaxed atomics); write() runs on
// the writer thread at the end of the capture.
#pragma once

#include <cupti.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

#include "capture/activity_decoder.h"
#include "capture/cupti_loader.h"
#include "capture/spool_writer.h"

namespace gpuscope::capture {

class ApiFilter {
 public:
  // How many functions the lean trace filters, runtime and driver together.
  static constexpr size_t kSlots = 32;

  // Turns off the activity records of the filtered functions. Call after enabling the RUNTIME
  // (and DRIVER) activity kinds: enabling a kind resets CUPTI's per-function choice. Returns ""
  // or one line on why the lean trace is off (then every call is recorded, as with --api full).
  std::string apply(const CuptiApi& api, bool driver_api);
  // Enables (or disables) callbacks for the filtered functions on `subscriber`.
  void enable_callbacks(const CuptiApi& api, CUpti_SubscriberHandle subscriber, bool driver_api, bool on = true) const;
  // Whether (domain, cbid) is a filtered function; then on_callback wants its callbacks.
  bool filters(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) const { return slot_of(domain, cbid) >= 0; }
  void on_callback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const CUpti_CallbackData& data);
  // Counting off while no capture window is open, and for good once the subscription is given up.
  void set_counting(bool on) { counting_.store(on, std::memory_order_relaxed); }

  // ApiCount records for every filtered function called at least once, and an Api record for the
  // first call of each. Only when apply() succeeded.
  // `name_id` interns a function's name as the activity decoder does (ActivityDecoder::api_name_id).
  void write(SpoolWriter& out, const std::function<uint32_t(CUpti_CallbackDomain, uint32_t)>& name_id) const;

 private:
  struct FirstCall {
    std::atomic<int> state{0};  // 0 free, 1 being filled, 2 complete
    int64_t start_ns = 0, end_ns = 0;
    uint32_t tid = 0, correlation_id = 0;
    int32_t return_code = 0;
  };
  struct Slot {
    std::atomic<uint64_t> calls{0};
    std::atomic<uint64_t> total_ns{0};
    FirstCall first;
  };
  int slot_of(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) const;

  std::array<Slot, kSlots> slots_{};
  bool active_ = false;
  bool driver_api_ = false;
  std::atomic<bool> counting_{true};
};

}  // namespace gpuscope::capture

// The core API trace (`--api core`): the CUDA calls the analyses use, recorded by gpuscope's own
// callbacks instead of CUPTI's RUNTIME and DRIVER activity kinds.
//
// Why: on the tiny-op loop CUPTI's runtime records of every call (about ten per PyTorch op, eight
// of them cudaGetDevice) cost ~2 µs per op; a record of our own at each launch cost ~1 µs less
// (docs/performance.md, "Where the cost goes"). Which functions: every runtime function whose
// name classify_api() puts in a class the analyses use, or that creates the context
// (gpuscope/api_class.h), and the driver's launch functions (launch_callbacks.h), so library
// kernels keep their launch call (not when a recorded runtime launch makes them: the runtime record
// already links the kernel). Everything else (cudaGetDevice, cudaGetLastError, ...) is
// neither recorded nor counted. The explicit synchronizations (cudaDeviceSynchronize,
// cudaStreamSynchronize, cudaEventSynchronize, cudaStreamWaitEvent) also become Sync records, as
// CUPTI's SYNCHRONIZATION kind (off with this trace) would give them, with their context and, for
// a stream synchronization or wait, the stream CUPTI names for the call's stream argument
// (cuptiGetStreamIdEx; 0, unknown, where it cannot).
//
// Threads: on_callback runs on the program's threads, each writing to a ring of its own
// (thread_rings.h); a record a full ring drops is counted. drain() runs on the writer thread.
#pragma once

#include <cupti.h>

#include <array>
#include <atomic>
#include <bitset>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "capture/cupti_loader.h"
#include "capture/drop_count.h"
#include "capture/spool_writer.h"
#include "capture/thread_rings.h"
#include "spool/format.h"

namespace gpuscope::capture {

class ApiRecorder {
 public:
  static constexpr uint32_t kRingRecords = 1u << 15;  // per thread: 32,768 x 48 bytes = 1.5 MiB
  static constexpr size_t kMaxRings = 64;

  ApiRecorder();
  ~ApiRecorder();
  ApiRecorder(const ApiRecorder&) = delete;
  ApiRecorder& operator=(const ApiRecorder&) = delete;

  // Chooses the recorded functions by name (`name` as cuptiGetCallbackName gives it; may
  // return null), and the driver's launch functions when `driver_launches` (not when CUPTI's
  // DRIVER kind records them, or nobody wants them). Call once, before enable_callbacks.
  void choose(const std::function<const char*(CUpti_CallbackDomain, CUpti_CallbackId)>& name, bool driver_launches);
  // The correlation id of the recorded call the calling thread is inside (0: none): what made a
  // CUDA graph node during stream capture (graph_nodes.h).
  static uint32_t call_in_flight();
  // How a synchronization's stream argument becomes CUPTI's stream id; without it, stream 0.
  void set_stream_ids(decltype(&::cuptiGetStreamIdEx) stream_id) { stream_id_ = stream_id; }
  bool records(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) const;
  size_t chosen() const { return runtime_.count() + driver_.count(); }
  // Enables (or disables) the callbacks of the chosen functions on `subscriber`.
  void enable_callbacks(const CuptiApi& api, CUpti_SubscriberHandle subscriber, bool on = true) const;
  // Off outside capture windows; calls in flight when it turns off are still recorded.
  void set_recording(bool on) { recording_.store(on, std::memory_order_relaxed); }

  // A chosen function's entry or exit, on the program's thread.
  void on_callback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const CUpti_CallbackData& data);

  // On the writer thread: every finished record as an Api record (named by `name_id`, as the
  // activity decoder names them), a Sync record for each explicit synchronization, and a Loss
  // record for the calls dropped since the last drain. Returns how many Api records it wrote.
  size_t drain(SpoolWriter& out, const std::function<uint32_t(CUpti_CallbackDomain, uint32_t)>& name_id);

 private:
  struct Entry {
    spool::ApiRecord api;
    uint32_t context;  // CUPTI's context id; kept for the synchronizations' Sync records
    uint32_t stream;   // a stream synchronization's or wait's CUPTI stream id; 0: unknown
  };

  std::bitset<CUPTI_RUNTIME_TRACE_CBID_SIZE> runtime_;
  std::bitset<CUPTI_DRIVER_TRACE_CBID_SIZE> driver_;
  std::array<spool::SyncCode, CUPTI_RUNTIME_TRACE_CBID_SIZE> sync_of_{};  // Unknown: not a synchronization
  std::bitset<CUPTI_RUNTIME_TRACE_CBID_SIZE> per_thread_;  // _ptsz functions: a null stream is the thread's
  decltype(&::cuptiGetStreamIdEx) stream_id_ = nullptr;
  std::atomic<bool> recording_{true};
  ThreadRings<Entry, kRingRecords, kMaxRings> rings_;
  DropCount dropped_;
};

}  // namespace gpuscope::capture

// Turning CUPTI activity tracing on, the same way for the capture library and for the
// overhead-floor injector (bench/floor_injector.cpp): one list of activity kinds, one
// buffer size, one flush policy, so the benchmark compares like with like.
#pragma once

#include <cupti.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "capture/cupti_loader.h"

namespace gpuscope::capture {

struct SessionSettings {
  // CUPTI's RUNTIME kind: every runtime call. Off for the core API trace, whose API records are
  // gpuscope's own (api_recorder.h).
  bool runtime_api = true;
  // CUPTI's SYNCHRONIZATION kind. Off for the core API trace, which records the explicit
  // synchronizations from its own callbacks: the kind alone costs ~1.4 us per op on the tiny-op
  // loop, which never synchronizes inside a block (H200, docs/performance.md).
  bool synchronizations = true;
  bool driver_api = false;  // also record CUDA driver API calls
  // Without driver_api: record the driver API's launch functions only (cuLaunchKernel[Ex],
  // cooperative and graph launches), so library kernels keep their launch call.
  bool driver_launches = true;
  uint32_t flush_ms = 500;  // cuptiActivityFlushPeriod; 0 = CUPTI's heuristics
  // Kernel records. Off while PM sampling runs: on CUDA 13.0 (H200) PM sampling's decode
  // fails (CUPTI_ERROR_UNKNOWN) from the first kernel launch on when kernel activity is on;
  // both use the GPU's instrumentation.
  bool kernels = true;
  // The buffers handed to CUPTI are already zero (BufferPool zeroes them on the writer thread).
  // Otherwise CUPTI zeroes each new buffer itself, in the program's thread: ~1 ms for 8 MiB on
  // an H200, after every flush (docs/performance.md, "Flush at synchronizations").
  bool buffers_zeroed = false;
};

struct SessionResult {
  bool ok = false;
  // "ok", or "partial: ..." naming the optional kinds CUPTI refused.
  std::string status;
  // When !ok: one line, what failed and what to do. Tracing is then fully off again.
  std::string error;
};

// Registers the buffer callbacks, sets thread ids to gettid() values, enables the
// activity kinds and the flush period. Kernels, memcpy, memset and (when on) the runtime API are
// essential: if CUPTI refuses one of them, everything enabled so far is disabled again.
// The callbacks stay registered (CUPTI cannot unregister them), so they must cope
// with being called after a failed start.
SessionResult start_activity(const CuptiApi& api, const SessionSettings& settings,
                             CUpti_BuffersCallbackRequestFunc on_request,
                             CUpti_BuffersCallbackCompleteFunc on_complete);

// start_activity in two steps, for capture ranges: the buffer callbacks, thread-id type and
// flush period once, then the kinds at each window's start (stop_activity at its end).
SessionResult register_buffers(const CuptiApi& api, const SessionSettings& settings,
                               CUpti_BuffersCallbackRequestFunc on_request,
                               CUpti_BuffersCallbackCompleteFunc on_complete);
SessionResult enable_kinds(const CuptiApi& api, const SessionSettings& settings);

// The kind start_activity enables under `name` (its CUPTI name without the prefix, e.g.
// "CONCURRENT_KERNEL", "DRIVER"); false for any other name. For the overhead floor's
// per-kind measurements.
bool activity_kind_named(std::string_view name, CUpti_ActivityKind& kind);

// Disables every kind start_activity enables (for a start that fails after it).
void stop_activity(const CuptiApi& api, const SessionSettings& settings);

}  // namespace gpuscope::capture

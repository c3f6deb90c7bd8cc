// The library's one CUPTI callback subscriber. CUPTI allows one subscriber per process (a
// program's own profiler may want it), so we subscribe only when a user needs callbacks, and
// dispatch to the users from one place:
//   kernel-launch API calls (runtime and driver)  -> KernelProfiler (range profiler)
//   context created / destroy starting            -> the DeviceSampler (which devices to sample)
//   the lean trace's filtered API functions       -> ApiFilter (counts and times them)
//   the core trace's API functions                -> ApiRecorder (records them)
//   cudaProfilerStart/Stop, NVTX push/pop         -> CaptureRange (recording windows)
//   NVTX domain creation and domain range pushes  -> NcclCalls (NCCL's calls and their bytes)
//   synchronizations returning (driver)           -> SyncFlush (records safe from a GPU fault)
//   CUDA graph nodes made or cloned               -> GraphNodes (replayed kernels' capture sites)
//   contexts made and destroyed, modules loaded   -> PcSampler (--source's PC sampling)
// When the program's own CUPTI client subscribes (libgpuscope_preload.so tells us, see
// release_callbacks), we unsubscribe first so that its subscription succeeds.
#pragma once

#include <string>

#include "capture/api_filter.h"
#include "capture/api_recorder.h"
#include "capture/capture_range.h"
#include "capture/cupti_loader.h"
#include "capture/device_sampler.h"
#include "capture/graph_nodes.h"
#include "capture/kernel_profiler.h"
#include "capture/nccl_calls.h"
#include "capture/pc_sampler.h"
#include "capture/sync_flush.h"

namespace gpuscope::capture {

struct CallbackUsers {
  KernelProfiler* kernels = nullptr;
  DeviceSampler* sampler = nullptr;
  ApiFilter* filter = nullptr;      // only when its filter is active
  ApiRecorder* recorder = nullptr;  // only with the core API trace
  CaptureRange* range = nullptr;    // only when it needs callbacks
  SyncFlush* sync_flush = nullptr;
  NcclCalls* nccl = nullptr;
  GraphNodes* graphs = nullptr;     // only when this libcupti can name graph nodes
  PcSampler* pc_sampler = nullptr;  // only with --source
  bool driver_api = false;          // the filter also covers driver functions
  // Enable the filter's and the recorder's callbacks at once (the whole run is recorded); else
  // enable_window_callbacks does at each window.
  bool window_open = true;
  bool any() const {
    return kernels || sampler || filter || recorder || range || sync_flush || nccl || graphs || pc_sampler;
  }
};

// Subscribes and enables the callbacks the users need (once per process). Returns "" or one
// line on why CUPTI refused (then no user gets callbacks).
std::string subscribe_callbacks(const CuptiApi& api, const CallbackUsers& users);

// Turns the filter's and the recorder's callbacks on or off (only while a capture window is open
// are calls counted or recorded: outside, each callback would cost the program for nothing).
void enable_window_callbacks(bool on);

// Gives the subscription up (the program's own CUPTI client wants it): the filter stops
// counting, metrics and capture ranges stop getting callbacks. Returns what was lost, one
// line, or "" when there was no subscription.
std::string release_callbacks();

}  // namespace gpuscope::capture

// libgpuscope_floor_inject.so: the overhead floor for benchmarks.
//
// A minimal raw-CUPTI injection library that turns on exactly what the capture library
// turns on - the same activity kinds, buffer size, flush period and periodic
// cuptiActivityFlushAll (shared code: cupti_session, buffer_pool, periodic_flusher) - and
// then throws the records away: the buffer-completed callback just puts the buffer back
// on the free list. Whatever gpuscope costs above this floor is the cost of our own
// decoding and writing.
//
// Reads the same GPUSCOPE_INJECT_CONFIG (spool= is ignored; unset: the defaults). Exports only
// InitializeInjection; for NVTX markers, point NVTX_INJECTION64_PATH at libcupti itself.
//
// To take the cost apart, two variables replace the capture's set (bench/pytorch_overhead.sh's
// floor: modes set them):
//   GPUSCOPE_FLOOR_KINDS      comma-separated activity kinds as cupti_session names them
//                             (CONCURRENT_KERNEL, RUNTIME, DRIVER, ...), plus RUNTIME_LAUNCHES:
//                             runtime activity records for the launch functions only
//                             (cuptiActivityEnableRuntimeApi, without the RUNTIME kind);
//                             empty: no activity at all
//   GPUSCOPE_FLOOR_CALLBACKS  runtime_launches, driver_launches: a CUPTI callback at each launch
//                             function's entry and exit that writes a 40-byte record (times,
//                             thread, correlation id) to a per-thread ring, the least a
//                             record of one's own costs
#include <cupti.h>

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <new>
#include <sstream>
#include <string>

#include "capture/buffer_pool.h"
#include "capture/config.h"
#include "capture/cupti_loader.h"
#include "capture/cupti_session.h"
#include "capture/launch_callbacks.h"
#include "capture/log.h"
#include "capture/periodic_flusher.h"
#include "capture/process_info.h"

namespace gpuscope::capture {
namespace {

struct Floor {
  explicit Floor(const InjectConfig& config, const CuptiLibrary& cupti)
      : cupti(cupti), pool(config.buffer_bytes(), BufferPool::max_buffers_for(config.buffer_bytes())) {}
  const CuptiLibrary& cupti;
  BufferPool pool;
  PeriodicFlusher flusher;
};

std::atomic<Floor*> g_floor{nullptr};  // never freed: CUPTI may call us during teardown

void CUPTIAPI on_request(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = nullptr;
  *size = 0;
  *max_records = 0;
  Floor* floor = g_floor.load(std::memory_order_acquire);
  if (floor == nullptr) return;
  try {
    *buffer = floor->pool.acquire(std::chrono::microseconds(2000));  // same wait as the capture library
    if (*buffer != nullptr) *size = floor->pool.buffer_bytes();
  } catch (...) {
  }
}

void CUPTIAPI on_complete(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid_size) {
  Floor* floor = g_floor.load(std::memory_order_acquire);
  if (floor == nullptr || buffer == nullptr) return;
  try {
    floor->pool.release(buffer, valid_size);
  } catch (...) {
  }
}

// --- Records of one's own, from callbacks ----------------------------------------------------

struct OwnRecord {
  int64_t start_ns, end_ns;
  uint32_t tid, cbid, correlation_id, domain;
  uint64_t pad;
};
constexpr uint32_t kRingRecords = 1u << 16;  // per thread; wraps (the floor keeps nothing)

thread_local OwnRecord* t_ring = nullptr;  // allocated at the thread's first launch, never freed
thread_local uint32_t t_next = 0;
thread_local int64_t t_entry_ns = 0;
thread_local uint32_t t_tid = 0;

void CUPTIAPI on_launch(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* cbdata) {
  const auto& data = *static_cast<const CUpti_CallbackData*>(cbdata);
  if (data.callbackSite == CUPTI_API_ENTER) {
    t_entry_ns = realtime_ns();
    return;
  }
  if (t_ring == nullptr) {
    t_ring = new (std::nothrow) OwnRecord[kRingRecords];
    t_tid = static_cast<uint32_t>(syscall(SYS_gettid));
    if (t_ring == nullptr) return;
  }
  t_ring[t_next++ % kRingRecords] = OwnRecord{
      t_entry_ns, realtime_ns(), t_tid, cbid, data.correlationId, static_cast<uint32_t>(domain), 0};
}

std::string split_error(const std::string& list, const std::function<bool(const std::string&)>& take) {
  std::stringstream in(list);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty() && !take(item)) return item;
  return "";
}

// GPUSCOPE_FLOOR_KINDS and GPUSCOPE_FLOOR_CALLBACKS instead of the capture's set. "" or what failed.
std::string start_parts(const CuptiApi& api, const char* kinds, const char* callbacks) {
  std::string bad = split_error(kinds ? kinds : "", [&](const std::string& name) {
    if (name == "RUNTIME_LAUNCHES") {
      if (api.ActivityEnableRuntimeApi == nullptr) return false;  // an older libcupti
      for (CUpti_CallbackId id : kRuntimeLaunches)
        if (api.ActivityEnableRuntimeApi(id, 1) != CUPTI_SUCCESS) return false;
      return true;
    }
    CUpti_ActivityKind kind;
    return activity_kind_named(name, kind) && api.ActivityEnable(kind) == CUPTI_SUCCESS;
  });
  if (!bad.empty()) return "GPUSCOPE_FLOOR_KINDS: cannot enable " + bad;
  if (callbacks == nullptr || callbacks[0] == '\0') return "";
  static CUpti_SubscriberHandle subscriber = nullptr;
  if (api.profiler.Subscribe == nullptr || api.profiler.EnableCallback == nullptr)
    return "this libcupti lacks the callback API";
  if (api.profiler.Subscribe(&subscriber, on_launch, nullptr) != CUPTI_SUCCESS) return "cuptiSubscribe failed";
  bad = split_error(callbacks, [&](const std::string& name) {
    if (name == "runtime_launches") {
      for (CUpti_CallbackId id : kRuntimeLaunches)
        api.profiler.EnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, id);
      return true;
    }
    if (name == "driver_launches") {
      for (CUpti_CallbackId id : kDriverLaunches)
        api.profiler.EnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id);
      return true;
    }
    return false;
  });
  return bad.empty() ? "" : "GPUSCOPE_FLOOR_CALLBACKS: unknown " + bad;
}

void on_exit() {
  Floor* floor = g_floor.load(std::memory_order_acquire);
  if (floor == nullptr) return;
  floor->flusher.stop();
  floor->cupti.api.ActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}

void start_floor() {
  // Without a config (a benchmark that loads the floor alone), the capture's defaults.
  const char* text = std::getenv(kConfigEnvVar);
  const ConfigResult parsed = parse_config(text != nullptr ? text : "", /*require_spool=*/false);
  if (!parsed.ok) {
    log_line("floor injector: %s", parsed.error.c_str());
    return;
  }
  const CuptiLibrary& cupti = load_cupti(parsed.config.options.cupti);
  if (!cupti.ok) {
    log_line("floor injector: %s", cupti.error.c_str());
    return;
  }
  auto* floor = new Floor(parsed.config, cupti);
  g_floor.store(floor, std::memory_order_release);
  // Zeroed buffers, as the capture library hands over (buffer_pool.h).
  const SessionSettings settings{.driver_api = parsed.config.options.driver_api,
                                 .driver_launches = parsed.config.options.driver_launches,
                                 .flush_ms = static_cast<uint32_t>(parsed.config.options.flush_ms),
                                 .kernels = true,
                                 .buffers_zeroed = true};
  const char* kinds = std::getenv("GPUSCOPE_FLOOR_KINDS");
  const char* callbacks = std::getenv("GPUSCOPE_FLOOR_CALLBACKS");
  const bool parts = kinds != nullptr || callbacks != nullptr;
  const SessionResult session = parts ? register_buffers(cupti.api, settings, on_request, on_complete)
                                      : start_activity(cupti.api, settings, on_request, on_complete);
  if (!session.ok) {
    log_line("floor injector: %s", session.error.c_str());
    return;
  }
  if (parts)
    if (const std::string error = start_parts(cupti.api, kinds, callbacks); !error.empty())
      log_line("floor injector: %s", error.c_str());
  const CuptiApi* api = &cupti.api;
  floor->flusher.start(static_cast<uint32_t>(parsed.config.options.flush_ms), [api] { api->ActivityFlushAll(0); });
  std::atexit(on_exit);
}

}  // namespace
}  // namespace gpuscope::capture

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  static std::atomic<bool> started{false};
  if (started.exchange(true)) return 1;
  try {
    gpuscope::capture::start_floor();
  } catch (...) {
  }
  return 1;
}

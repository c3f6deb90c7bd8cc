// libgpuscope_floor_inject.so: the overhead floor for benchmarks.
//
// A minimal raw-CUPTI injection library that turns on exactly what the capture library
// turns on - the same activity kinds, buffer size, flush period and periodic
// cuptiActivityFlushAll (shared code: cupti_session, buffer_pool, periodic_flusher) - and
// then throws the records away: the buffer-completed callback just puts the buffer back
// on the free list. Whatever gpuscope costs above this floor is the cost of our own
// decoding and writing.
//
// Reads the same GPUSCOPE_INJECT_CONFIG (spool= is ignored). Exports only
// InitializeInjection; for NVTX markers, point NVTX_INJECTION64_PATH at libcupti itself.
#include <cupti.h>

#include <atomic>
#include <chrono>
#include <cstdlib>

#include "capture/buffer_pool.h"
#include "capture/config.h"
#include "capture/cupti_loader.h"
#include "capture/cupti_session.h"
#include "capture/log.h"
#include "capture/periodic_flusher.h"

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

void on_exit() {
  Floor* floor = g_floor.load(std::memory_order_acquire);
  if (floor == nullptr) return;
  floor->flusher.stop();
  floor->cupti.api.ActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}

void start_floor() {
  const ConfigResult parsed = parse_config(std::getenv(kConfigEnvVar), /*require_spool=*/false);
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
  const SessionResult session = start_activity(cupti.api, settings, on_request, on_complete);
  if (!session.ok) {
    log_line("floor injector: %s", session.error.c_str());
    return;
  }
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

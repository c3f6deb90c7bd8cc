#include "capture/sync_flush.h"

#include <cupti_driver_cbid.h>

#include <chrono>

namespace gpuscope::capture {
namespace {

constexpr CUpti_CallbackId kSynchronizations[] = {
    CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize,         CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize,
    CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz, CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize,
    CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize_v2,
};

int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

SyncFlush::SyncFlush(uint32_t min_interval_ms, std::function<void()> flush)
    : min_interval_ns_(int64_t{min_interval_ms} * 1'000'000), flush_(std::move(flush)) {}

void SyncFlush::enable_callbacks(const CuptiApi& api, CUpti_SubscriberHandle subscriber) {
  constexpr const char* kCost = "kernels that end shortly before a GPU fault may lose their times";
  for (CUpti_CallbackId id : kSynchronizations)
    enable_callback(api, 1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id, kCost);
}

bool SyncFlush::watches(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  if (domain != CUPTI_CB_DOMAIN_DRIVER_API) return false;
  for (CUpti_CallbackId id : kSynchronizations)
    if (id == cbid) return true;
  return false;
}

void SyncFlush::on_callback(const CUpti_CallbackData& data) {
  if (data.callbackSite != CUPTI_API_EXIT || data.functionReturnValue == nullptr) return;
  if (*static_cast<const CUresult*>(data.functionReturnValue) != CUDA_SUCCESS) return;
  const int64_t now = steady_ns();
  int64_t last = last_flush_ns_.load(std::memory_order_relaxed);
  if (last != 0 && now - last < min_interval_ns_) return;
  // One thread flushes per interval; the others go on (CUPTI's flush is blocking).
  if (!last_flush_ns_.compare_exchange_strong(last, now, std::memory_order_relaxed)) return;
  flush_();
  flushes_.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace gpuscope::capture

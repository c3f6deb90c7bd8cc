#include "capture/api_filter.h"

#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "capture/cupti_compat.h"
#include "spool/format.h"

namespace gpuscope::capture {
namespace {

struct Filtered {
  CUpti_CallbackDomain domain;
  CUpti_CallbackId cbid;
};

// Pure queries of state the caller already has or could cache, made per op by frameworks. Not
// here on purpose: calls that may initialise CUDA or load code (cudaGetDeviceCount,
// cudaDriverGetVersion, cudaFuncGetAttributes, cudaOccupancy*), and anything that waits,
// launches, copies or allocates: the analyses need those.
constexpr Filtered kFiltered[] = {
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGetLastError_v3020},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaPeekAtLastError_v3020},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGetDeviceFlags_v7000},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceGetAttribute_v5000},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaPointerGetAttributes_v4000},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaStreamIsCapturing_v10000},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaStreamIsCapturing_ptsz_v10000},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaStreamGetCaptureInfo_v10010},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaStreamGetCaptureInfo_ptsz_v10010},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaStreamGetCaptureInfo_v2_v11030},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaStreamGetCaptureInfo_v2_ptsz_v11030},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaStreamGetCaptureInfo_v12030},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaStreamGetCaptureInfo_ptsz_v12030},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaThreadExchangeStreamCaptureMode_v10010},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaStreamGetId_v12000},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaStreamGetId_ptsz_v12000},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuCtxGetCurrent},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuCtxGetDevice},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxGetState},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuPointerGetAttribute},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuStreamIsCapturing},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuStreamGetCaptureInfo_v3},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGetErrorString},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGetErrorName},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuKernelGetFunction},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLibraryGetKernel},
};
static_assert(std::size(kFiltered) <= ApiFilter::kSlots);

// cbid -> its slot + 1 (0: not filtered), per domain, built at compile time: on_callback and
// filters() run on the program's threads for every call they see.
struct SlotIndex {
  std::array<uint8_t, CUPTI_RUNTIME_TRACE_CBID_SIZE> runtime{};
  std::array<uint8_t, CUPTI_DRIVER_TRACE_CBID_SIZE> driver{};
};
constexpr SlotIndex make_slot_index() {
  SlotIndex index;
  for (size_t i = 0; i < std::size(kFiltered); ++i) {
    const auto slot = static_cast<uint8_t>(i + 1);
    if (kFiltered[i].domain == CUPTI_CB_DOMAIN_RUNTIME_API) index.runtime[kFiltered[i].cbid] = slot;
    else index.driver[kFiltered[i].cbid] = slot;
  }
  return index;
}
constexpr SlotIndex kSlotIndex = make_slot_index();

int64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);  // the clock CUPTI stamps its records with on Linux
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace

int ApiFilter::slot_of(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) const {
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API)
    return cbid < kSlotIndex.runtime.size() ? kSlotIndex.runtime[cbid] - 1 : -1;
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API && driver_api_)
    return cbid < kSlotIndex.driver.size() ? kSlotIndex.driver[cbid] - 1 : -1;
  return -1;
}

std::string ApiFilter::apply(const CuptiApi& api, bool driver_api) {
  if (api.ActivityEnableRuntimeApi == nullptr || (driver_api && api.ActivityEnableDriverApi == nullptr))
    return "this libcupti cannot filter single API functions";
  for (const Filtered& f : kFiltered) {
    if (f.domain == CUPTI_CB_DOMAIN_DRIVER_API && !driver_api) continue;
    const CUptiResult rc = f.domain == CUPTI_CB_DOMAIN_RUNTIME_API ? api.ActivityEnableRuntimeApi(f.cbid, 0)
                                                                   : api.ActivityEnableDriverApi(f.cbid, 0);
    if (rc != CUPTI_SUCCESS) {
      // Undo: a half-filtered trace would be neither lean nor complete.
      for (const Filtered& g : kFiltered) {
        if (&g == &f) break;
        if (g.domain == CUPTI_CB_DOMAIN_RUNTIME_API) api.ActivityEnableRuntimeApi(g.cbid, 1);
        else if (driver_api) api.ActivityEnableDriverApi(g.cbid, 1);
      }
      return cupti_call_failure(api, "cuptiActivityEnableRuntimeApi", rc);
    }
  }
  driver_api_ = driver_api;
  active_ = true;
  return "";
}

void ApiFilter::enable_callbacks(const CuptiApi& api, CUpti_SubscriberHandle subscriber, bool driver_api,
                                 bool on) const {
  for (const Filtered& f : kFiltered)
    if (f.domain == CUPTI_CB_DOMAIN_RUNTIME_API || driver_api)
      enable_callback(api, on ? 1 : 0, subscriber, f.domain, f.cbid,
                      "calls the lean API trace leaves out of the trace may go uncounted");
}

void ApiFilter::on_callback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const CUpti_CallbackData& data) {
  if (!counting_.load(std::memory_order_relaxed)) return;
  const int index = slot_of(domain, cbid);
  if (index < 0 || data.correlationData == nullptr) return;
  Slot& slot = slots_[static_cast<size_t>(index)];
  if (data.callbackSite == CUPTI_API_ENTER) {
    *data.correlationData = static_cast<uint64_t>(now_ns());  // CUPTI keeps it for this call's exit
    return;
  }
  const int64_t end = now_ns();
  const int64_t start = static_cast<int64_t>(*data.correlationData);
  slot.total_ns.fetch_add(static_cast<uint64_t>(end > start ? end - start : 0), std::memory_order_relaxed);
  if (slot.calls.fetch_add(1, std::memory_order_relaxed) != 0) return;
  int expected = 0;
  if (!slot.first.state.compare_exchange_strong(expected, 1, std::memory_order_acquire)) return;
  slot.first.start_ns = start;
  slot.first.end_ns = end;
  slot.first.tid = static_cast<uint32_t>(::syscall(SYS_gettid));
  slot.first.correlation_id = data.correlationId;
  slot.first.return_code = data.functionReturnValue ? *static_cast<const int32_t*>(data.functionReturnValue) : 0;
  slot.first.state.store(2, std::memory_order_release);
}

void ApiFilter::write(SpoolWriter& out, const std::function<uint32_t(CUpti_CallbackDomain, uint32_t)>& name_id) const {
  if (!active_) return;
  for (size_t i = 0; i < std::size(kFiltered); ++i) {
    const Filtered& f = kFiltered[i];
    const Slot& slot = slots_[i];
    const uint64_t calls = slot.calls.load(std::memory_order_relaxed);
    if (calls == 0) continue;
    const uint8_t domain = static_cast<uint8_t>(f.domain == CUPTI_CB_DOMAIN_RUNTIME_API ? spool::ApiDomainCode::Runtime
                                                                                        : spool::ApiDomainCode::Driver);
    spool::ApiCountRecord count{};
    count.calls = calls;
    count.total_ns = slot.total_ns.load(std::memory_order_relaxed);
    count.name = name_id(f.domain, f.cbid);
    count.domain = domain;
    out.add(spool::RecordKind::ApiCount, count);
    if (slot.first.state.load(std::memory_order_acquire) != 2) continue;
    spool::ApiRecord first{};
    first.start_ns = slot.first.start_ns;
    first.end_ns = slot.first.end_ns;
    first.tid = slot.first.tid;
    first.cbid = f.cbid;
    first.name = count.name;
    first.return_code = slot.first.return_code;
    first.correlation_id = slot.first.correlation_id;
    first.domain = domain;
    out.add(spool::RecordKind::Api, first);
  }
}

}  // namespace gpuscope::capture

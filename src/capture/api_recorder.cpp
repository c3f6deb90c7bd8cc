#include "capture/api_recorder.h"

#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#include "capture/activity_decoder.h"
#include "capture/cupti_compat.h"
#include "capture/launch_callbacks.h"
#include "capture/process_info.h"
#include "gpuscope/api_class.h"

namespace gpuscope::capture {

namespace {

// The correlation id of the recorded runtime call in flight on this thread (0: none). The driver
// launch that a runtime launch makes inside it carries the same id, and the runtime record
// already links the kernel to its call: recording the driver call too would be a third record
// per launch (a third of a launch storm's records) that says nothing new.
thread_local uint32_t t_runtime_call = 0;
// The correlation id of the recorded call (runtime or driver) this thread is inside; 0: none.
thread_local uint32_t t_call_in_flight = 0;

// The kind of synchronization CUPTI's SYNCHRONIZATION records give the runtime function
// `function` (its name without the version suffix); Unknown for any other function.
spool::SyncCode explicit_sync(std::string_view function) {
  for (std::string_view per_thread : {"_ptsz", "_ptds"})
    if (function.ends_with(per_thread)) function.remove_suffix(per_thread.size());
  if (function == "cudaDeviceSynchronize" || function == "cudaThreadSynchronize")
    return spool::SyncCode::ContextSynchronize;
  if (function == "cudaStreamSynchronize") return spool::SyncCode::StreamSynchronize;
  if (function == "cudaEventSynchronize") return spool::SyncCode::EventSynchronize;
  if (function == "cudaStreamWaitEvent") return spool::SyncCode::StreamWaitEvent;
  return spool::SyncCode::Unknown;
}

// The CUPTI stream id of a call's stream argument (the first parameter of cudaStreamSynchronize
// and cudaStreamWaitEvent, and of their _ptsz forms); 0 when CUPTI cannot tell.
uint32_t stream_id(decltype(&::cuptiGetStreamIdEx) get, CUcontext context, const void* params,
                   bool per_thread_function) {
  if (get == nullptr || params == nullptr) return 0;
  auto stream = *static_cast<CUstream const*>(params);
  // The special handles: cudaStreamLegacy (1) and cudaStreamPerThread (2); null is the default
  // stream of the function's kind.
  bool per_thread = per_thread_function;
  if (stream == reinterpret_cast<CUstream>(1)) stream = nullptr, per_thread = false;
  if (stream == reinterpret_cast<CUstream>(2)) stream = nullptr, per_thread = true;
  uint32_t id = 0;
  // The context finds a null stream's default stream (CUPTI cannot without it, seen on an H200).
  return get(context, stream, per_thread ? 1 : 0, &id) == CUPTI_SUCCESS ? id : 0;
}

}  // namespace

uint32_t ApiRecorder::call_in_flight() { return t_call_in_flight; }

ApiRecorder::ApiRecorder() = default;
ApiRecorder::~ApiRecorder() = default;

void ApiRecorder::choose(const std::function<const char*(CUpti_CallbackDomain, CUpti_CallbackId)>& name,
                         bool driver_launches) {
  for (CUpti_CallbackId cbid = 1; cbid < CUPTI_RUNTIME_TRACE_CBID_SIZE; ++cbid) {
    const char* raw = name(CUPTI_CB_DOMAIN_RUNTIME_API, cbid);
    if (raw == nullptr || raw[0] == '\0') continue;
    const std::string_view function = runtime_api_base_name(raw);
    if (classify_api(function) != ApiClass::Other || creates_context(function)) runtime_.set(cbid);
    sync_of_[cbid] = explicit_sync(function);
    per_thread_[cbid] = std::string_view(raw).find("_ptsz") != std::string_view::npos;
  }
  if (!driver_launches) return;
  for (CUpti_CallbackId cbid : kDriverLaunches) driver_.set(cbid);
  for (CUpti_CallbackId cbid : kDriverGraphLaunches) driver_.set(cbid);
}

bool ApiRecorder::records(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) const {
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) return cbid < runtime_.size() && runtime_.test(cbid);
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API) return cbid < driver_.size() && driver_.test(cbid);
  return false;
}

void ApiRecorder::enable_callbacks(const CuptiApi& api, CUpti_SubscriberHandle subscriber, bool on) const {
  constexpr const char* kCost = "calls of this function are missing from the core API trace";
  for (CUpti_CallbackId cbid = 1; cbid < CUPTI_RUNTIME_TRACE_CBID_SIZE; ++cbid)
    if (runtime_.test(cbid)) enable_callback(api, on ? 1 : 0, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, cbid, kCost);
  for (CUpti_CallbackId cbid = 1; cbid < CUPTI_DRIVER_TRACE_CBID_SIZE; ++cbid)
    if (driver_.test(cbid)) enable_callback(api, on ? 1 : 0, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, cbid, kCost);
}

void ApiRecorder::on_callback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const CUpti_CallbackData& data) {
  if (data.correlationData == nullptr) return;
  const bool runtime = domain == CUPTI_CB_DOMAIN_RUNTIME_API;
  if (data.callbackSite == CUPTI_API_ENTER) {
    if (runtime) t_runtime_call = data.correlationId;
    t_call_in_flight = data.correlationId;
    const bool inside_runtime_call = !runtime && t_runtime_call != 0 && data.correlationId == t_runtime_call;
    // CUPTI keeps this for the same call's exit; 0: not recorded (outside a window, or nested).
    *data.correlationData = recording_.load(std::memory_order_relaxed) && !inside_runtime_call
                                ? static_cast<uint64_t>(realtime_ns())
                                : 0;
    return;
  }
  if (runtime && data.correlationId == t_runtime_call) t_runtime_call = 0;
  if (data.correlationId == t_call_in_flight) t_call_in_flight = 0;
  const int64_t start = static_cast<int64_t>(*data.correlationData);
  if (start == 0) return;
  const int64_t end = realtime_ns();
  const bool pushed = rings_.push([&](Entry& entry, uint32_t tid) {
    entry.context = data.contextUid;
    const spool::SyncCode sync = runtime ? sync_of_[cbid] : spool::SyncCode::Unknown;
    entry.stream = sync == spool::SyncCode::StreamSynchronize || sync == spool::SyncCode::StreamWaitEvent
                       ? stream_id(stream_id_, data.context, data.functionParams, per_thread_[cbid])
                       : 0;
    spool::ApiRecord& r = entry.api;
    r = spool::ApiRecord{};
    r.start_ns = start;
    r.end_ns = end;
    r.tid = tid;
    r.cbid = cbid;
    r.return_code = data.functionReturnValue ? *static_cast<const int32_t*>(data.functionReturnValue) : 0;
    r.correlation_id = data.correlationId;
    r.domain = static_cast<uint8_t>(runtime ? spool::ApiDomainCode::Runtime : spool::ApiDomainCode::Driver);
  });
  if (!pushed) dropped_.add();
}

size_t ApiRecorder::drain(SpoolWriter& out, const std::function<uint32_t(CUpti_CallbackDomain, uint32_t)>& name_id) {
  const size_t written = rings_.drain([&](const Entry& entry) {
    spool::ApiRecord record = entry.api;
    const bool runtime = record.domain == static_cast<uint8_t>(spool::ApiDomainCode::Runtime);
    record.name = name_id(runtime ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API, record.cbid);
    out.add(spool::RecordKind::Api, record);
    const spool::SyncCode sync = runtime ? sync_of_[record.cbid] : spool::SyncCode::Unknown;
    if (sync != spool::SyncCode::Unknown && record.return_code == 0)
      out.add(spool::RecordKind::Sync, spool::SyncRecord{record.start_ns,
                                                         record.end_ns,
                                                         entry.context,
                                                         entry.stream,
                                                         record.correlation_id,
                                                         static_cast<uint8_t>(sync),
                                                         {}});
  });
  dropped_.write(out, "api_records_dropped",
                 "API calls of the core trace dropped: a thread's ring was full, or more threads than rings made "
                 "calls");
  return written;
}

}  // namespace gpuscope::capture

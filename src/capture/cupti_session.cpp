#include "capture/cupti_session.h"

#include <algorithm>
#include <vector>

#include "capture/cupti_compat.h"
#include "capture/failed_calls.h"
#include "capture/launch_callbacks.h"

namespace gpuscope::capture {
namespace {

struct KindSpec {
  CUpti_ActivityKind kind;
  const char* name;
  bool essential;
};

// What gpuscope records. DRIVER is added with driver_api=1 (every driver function) or
// driver_launches=1 (its launch functions only, restrict_to_launches). MEMCPY2 carries
// peer-to-peer copies, which MEMCPY does not report.
constexpr KindSpec kKinds[] = {
    {CUPTI_ACTIVITY_KIND_RUNTIME, "RUNTIME", true},
    {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "CONCURRENT_KERNEL", true},
    {CUPTI_ACTIVITY_KIND_MEMCPY, "MEMCPY", true},
    {CUPTI_ACTIVITY_KIND_MEMSET, "MEMSET", true},
    {CUPTI_ACTIVITY_KIND_MEMCPY2, "MEMCPY2", false},
    {CUPTI_ACTIVITY_KIND_MEMORY2, "MEMORY2", false},
    {CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, "SYNCHRONIZATION", false},
    {CUPTI_ACTIVITY_KIND_MARKER, "MARKER", false},
    {CUPTI_ACTIVITY_KIND_OVERHEAD, "OVERHEAD", false},
    {CUPTI_ACTIVITY_KIND_DEVICE, "DEVICE", false},
    {CUPTI_ACTIVITY_KIND_STREAM, "STREAM", false},
};
constexpr KindSpec kDriverKind{CUPTI_ACTIVITY_KIND_DRIVER, "DRIVER", false};

std::string failure_line(const CuptiApi& api, const std::string& call, CUptiResult rc) {
  return "CUPTI cannot start: " + call + " returned " + cupti_result_text(api, rc) + "; " + cupti_error_advice(rc);
}

// A kind CUPTI will not turn off goes on recording: outside a capture range, or after a
// capture that could not start (its buffers are then refused, and the records dropped).
void disable(const CuptiApi& api, CUpti_ActivityKind kind) {
  if (const CUptiResult rc = api.ActivityDisable(kind); rc != CUPTI_SUCCESS)
    note_failed_call("cuptiActivityDisable", cupti_result_text(api, rc),
                     "CUPTI goes on recording activity gpuscope meant to stop (outside the capture range, or "
                     "after the capture gave up)");
}

void append_partial(std::string& partial, const std::string& what) {
  partial += partial.empty() ? "partial: " : ", ";
  partial += what;
}

bool is_kept_driver_function(CUpti_CallbackId cbid) {
  for (CUpti_CallbackId id : kDriverLaunches)
    if (id == cbid) return true;
  for (CUpti_CallbackId id : kDriverGraphLaunches)
    if (id == cbid) return true;
  return false;
}

// Libraries (cuBLAS, cuDNN, NCCL, Triton) launch through the driver API, which the runtime trace
// never sees: without these records their kernels have no launch call, so no thread, op, NVTX
// range or step. Every other driver function is switched off one by one (CUPTI checks the switch
// per call, so the program pays only for the launches). "" or why the launches are not recorded.
std::string restrict_to_launches(const CuptiApi& api) {
  if (api.ActivityEnableDriverApi == nullptr) return "this libcupti cannot trace single driver functions";
  bool any_off = false;
  for (CUpti_CallbackId cbid = 1; cbid < CUPTI_DRIVER_TRACE_CBID_SIZE; ++cbid) {
    if (is_kept_driver_function(cbid)) continue;
    // The ids are CUDA 13's, which the loaded libcupti is (cupti_loader.h): a refusal is a failure.
    const CUptiResult rc = api.ActivityEnableDriverApi(cbid, 0);
    if (rc == CUPTI_SUCCESS) any_off = true;
    else
      note_failed_call("cuptiActivityEnableDriverApi", cupti_result_text(api, rc),
                       "a driver function besides the launches is recorded too");
  }
  return any_off ? "" : "cuptiActivityEnableDriverApi refused every driver function";
}

}  // namespace

SessionResult start_activity(const CuptiApi& api, const SessionSettings& settings,
                             CUpti_BuffersCallbackRequestFunc on_request,
                             CUpti_BuffersCallbackCompleteFunc on_complete) {
  SessionResult result = register_buffers(api, settings, on_request, on_complete);
  if (!result.ok) return result;
  SessionResult kinds = enable_kinds(api, settings);
  if (!kinds.ok) return kinds;
  if (kinds.status != "ok") result.status = result.status == "ok" ? kinds.status : result.status + "; " + kinds.status;
  return result;
}

SessionResult register_buffers(const CuptiApi& api, const SessionSettings& settings,
                               CUpti_BuffersCallbackRequestFunc on_request,
                               CUpti_BuffersCallbackCompleteFunc on_complete) {
  SessionResult result;
  std::string partial;

  // Thread ids as the kernel numbers them (gettid), so they match /proc and our own
  // writer thread can recognise (and drop) its records.
  if (api.SetThreadIdType != nullptr) {
    CUptiResult rc = api.SetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
    if (rc != CUPTI_SUCCESS)
      append_partial(partial,
                     "thread ids are pthread ids (cuptiSetThreadIdType returned " + cupti_result_text(api, rc) + ")");
  }

  CUptiResult rc = api.ActivityRegisterCallbacks(on_request, on_complete);
  if (rc != CUPTI_SUCCESS) {
    result.error = failure_line(api, "cuptiActivityRegisterCallbacks", rc);
    return result;
  }

  // Stream and event *queries* also make SYNCHRONIZATION records by default; a polling
  // loop (PyTorch's caching allocator polls events) would flood the trace. Keep only
  // queries that found the work complete, plus the real waits.
  if (api.ActivityEnableAllSyncRecords != nullptr) {
    rc = api.ActivityEnableAllSyncRecords(0);
    if (rc != CUPTI_SUCCESS)
      append_partial(partial, "stream and event queries are recorded too (cuptiActivityEnableAllSyncRecords returned " +
                                  cupti_result_text(api, rc) + ")");
  }

  if (settings.buffers_zeroed && api.ActivitySetAttribute != nullptr) {
    uint8_t zeroed = 1;
    size_t size = sizeof zeroed;
    rc = api.ActivitySetAttribute(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, &size, &zeroed);
    if (rc != CUPTI_SUCCESS)
      note_failed_call("cuptiActivitySetAttribute", cupti_result_text(api, rc),
                       "CUPTI zeroes each activity buffer itself, in the program's thread");
  }

  if (settings.flush_ms > 0 && api.ActivityFlushPeriod != nullptr) {
    rc = api.ActivityFlushPeriod(settings.flush_ms);
    if (rc != CUPTI_SUCCESS)
      append_partial(partial, "no flush period (cuptiActivityFlushPeriod returned " + cupti_result_text(api, rc) + ")");
  }
  result.ok = true;
  result.status = partial.empty() ? "ok" : partial;
  return result;
}

SessionResult enable_kinds(const CuptiApi& api, const SessionSettings& settings) {
  SessionResult result;
  std::string partial;
  std::vector<KindSpec> kinds;
  for (const KindSpec& spec : kKinds) {
    if (!settings.kernels && spec.kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) continue;
    if (!settings.runtime_api && spec.kind == CUPTI_ACTIVITY_KIND_RUNTIME) continue;
    if (!settings.synchronizations && spec.kind == CUPTI_ACTIVITY_KIND_SYNCHRONIZATION) continue;
    kinds.push_back(spec);
  }
  if (!settings.kernels) append_partial(partial, "CONCURRENT_KERNEL off (PM sampling needs the instrumentation)");
  const bool driver_launches_only = !settings.driver_api && settings.driver_launches;
  if (settings.driver_api || driver_launches_only) kinds.push_back(kDriverKind);
  std::vector<CUpti_ActivityKind> enabled;
  for (const KindSpec& spec : kinds) {
    const CUptiResult rc = api.ActivityEnable(spec.kind);
    if (rc == CUPTI_SUCCESS) {
      enabled.push_back(spec.kind);
      continue;
    }
    if (spec.essential) {
      for (CUpti_ActivityKind kind : enabled) disable(api, kind);
      result.error = failure_line(api, std::string("cuptiActivityEnable(") + spec.name + ")", rc);
      return result;
    }
    append_partial(partial,
                   std::string(spec.name) + " off (cuptiActivityEnable returned " + cupti_result_text(api, rc) + ")");
  }
  const bool driver_on = std::find(enabled.begin(), enabled.end(), kDriverKind.kind) != enabled.end();
  if (driver_launches_only && driver_on) {
    // Every driver call recorded would be a much larger trace than the user asked for.
    if (const std::string why = restrict_to_launches(api); !why.empty()) {
      disable(api, kDriverKind.kind);
      append_partial(partial, "library kernels launched through the driver API have no launch call (" + why + ")");
    }
  }
  result.ok = true;
  result.status = partial.empty() ? "ok" : partial;
  return result;
}

bool activity_kind_named(std::string_view name, CUpti_ActivityKind& kind) {
  for (const KindSpec& spec : kKinds)
    if (name == spec.name) {
      kind = spec.kind;
      return true;
    }
  if (name != kDriverKind.name) return false;
  kind = kDriverKind.kind;
  return true;
}

void stop_activity(const CuptiApi& api, const SessionSettings& settings) {
  for (const KindSpec& spec : kKinds) disable(api, spec.kind);
  if (settings.driver_api || settings.driver_launches) disable(api, kDriverKind.kind);
}

}  // namespace gpuscope::capture

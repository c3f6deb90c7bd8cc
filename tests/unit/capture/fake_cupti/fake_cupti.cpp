// A stand-in for libcupti.so.13, for CPU tests of libgpuscope_inject.so itself: the
// injection loads it through cupti=, and the test drives it through the fake_cupti_*
// control functions. It implements the handful of CUPTI calls the library makes, with
// the buffer protocol of the real one: records wait in CUPTI until a flush, which asks
// the client for a buffer (request callback), fills it, and hands it back (complete
// callback). Records use the mock layout of capture_test_support.h.
//
// Built twice: libgpuscope_test_fake_cupti.so has the activity API (with the driver API's
// per-function switch) only, a libcupti without the callback API, as the e2e tests want it; with
// FAKE_CUPTI_CALLBACKS (..._callbacks.so) it also has the callback API and the runtime API's
// per-function switch, so GPU-wide sampling (which learns its devices from context callbacks)
// and the lean API trace run against it.
//
// Environment (read at enable time):
//   FAKE_CUPTI_FAIL_KIND=<CUpti_ActivityKind>  cuptiActivityEnable of that kind fails with
//                                             CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED
//   FAKE_CUPTI_FAIL=<function>[:<code>[:<nth>]],...  any call fails (fault_plan.h)
#include <cupti_callbacks.h>
#include <cupti_runtime_cbid.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <vector>

#include "../capture_test_support.h"
#include "../fault_plan.h"

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

using gpuscope::capture::test::MockActivityBuffer;

std::mutex g_mutex;
CUpti_BuffersCallbackRequestFunc g_request = nullptr;
CUpti_BuffersCallbackCompleteFunc g_complete = nullptr;
std::vector<CUpti_ActivityKernel10> g_kernels;  // recorded, not yet delivered
std::vector<CUpti_ActivityAPI> g_apis;
uint32_t g_next_correlation = 1;  // guarded by g_mutex
std::atomic<int> g_flushes{0}, g_nvtx_inits{0}, g_enabled{0};
std::atomic<bool> g_dropped_reported{false};
std::atomic<bool> g_runtime_activity{false};  // the RUNTIME kind is on: launches make API records

uint32_t tid() { return static_cast<uint32_t>(::syscall(SYS_gettid)); }

// Every function below that can be made to fail (FAKE_CUPTI_FAIL), for the fault matrix.
constexpr const char* kFaultable[] = {"cuptiGetVersion",
                                      "cuptiGetResultString",
                                      "cuptiGetCallbackName",
                                      "cuptiSetThreadIdType",
                                      "cuptiActivityFlushPeriod",
                                      "cuptiActivityEnableAllSyncRecords",
                                      "cuptiActivityRegisterCallbacks",
                                      "cuptiActivityEnable",
                                      "cuptiActivityDisable",
                                      "cuptiActivityGetNumDroppedRecords",
                                      "cuptiActivityGetNextRecord",
                                      "cuptiActivityFlushAll",
                                      "InitializeInjectionNvtx2",
#ifdef FAKE_CUPTI_CALLBACKS
                                      "cuptiSubscribe",
                                      "cuptiUnsubscribe",
                                      "cuptiEnableCallback",
                                      "cuptiGetDeviceId",
                                      "cuptiActivityEnableRuntimeApi",
#endif
                                      "cuptiActivityEnableDriverApi",
                                      nullptr};

// Every CUptiResult error of cupti_result.h, generated from it at configure time.
struct Code {
  const char* name;
  int value;
};
constexpr Code kCodes[] = {
#include "fake_cupti_codes.inc"
};
constexpr int kCodeCount = sizeof(kCodes) / sizeof(kCodes[0]);

// Never destroyed: the capture calls CUPTI from its exit handler and threads.
fake::FaultPlan& plan() {
  static auto* p = fake::FaultPlan::make<plan>("FAKE_CUPTI_FAIL", kFaultable);
  return *p;
}
#define FAULT_POINT() \
  if (const int fault = plan().check(__func__)) return static_cast<CUptiResult>(fault)

}  // namespace

FAKE_EXPORT CUptiResult cuptiGetVersion(uint32_t* version) {
  FAULT_POINT();
  *version = 130001;
  return CUPTI_SUCCESS;
}
FAKE_EXPORT CUptiResult cuptiGetResultString(CUptiResult rc, const char** text) {
  FAULT_POINT();
  for (const Code& code : kCodes) {
    if (code.value != static_cast<int>(rc)) continue;
    *text = code.name;
    return CUPTI_SUCCESS;
  }
  return CUPTI_ERROR_INVALID_PARAMETER;
}
FAKE_EXPORT CUptiResult cuptiGetCallbackName(CUpti_CallbackDomain, uint32_t cbid, const char** name) {
  FAULT_POINT();
  *name = cbid == 211                                                    ? "cudaLaunchKernel_v7000"
          : cbid == CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020 ? "cudaDeviceSynchronize_v3020"
                                                                         : "cudaSomething_v3020";
  return CUPTI_SUCCESS;
}
FAKE_EXPORT CUptiResult cuptiSetThreadIdType(CUpti_ActivityThreadIdType) {
  FAULT_POINT();
  return CUPTI_SUCCESS;
}
FAKE_EXPORT CUptiResult cuptiActivityFlushPeriod(uint32_t) {
  FAULT_POINT();
  return CUPTI_SUCCESS;
}
FAKE_EXPORT CUptiResult cuptiActivityEnableAllSyncRecords(uint8_t) {
  FAULT_POINT();
  return CUPTI_SUCCESS;
}
FAKE_EXPORT CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc request,
                                                       CUpti_BuffersCallbackCompleteFunc complete) {
  FAULT_POINT();
  g_request = request;
  g_complete = complete;
  return CUPTI_SUCCESS;
}
FAKE_EXPORT CUptiResult cuptiActivityEnable(CUpti_ActivityKind kind) {
  FAULT_POINT();
  const char* fail = std::getenv("FAKE_CUPTI_FAIL_KIND");
  if (fail != nullptr && std::atoi(fail) == static_cast<int>(kind))
    return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
  ++g_enabled;
  if (kind == CUPTI_ACTIVITY_KIND_RUNTIME) g_runtime_activity = true;
  return CUPTI_SUCCESS;
}
FAKE_EXPORT CUptiResult cuptiActivityDisable(CUpti_ActivityKind kind) {
  FAULT_POINT();
  --g_enabled;
  if (kind == CUPTI_ACTIVITY_KIND_RUNTIME) g_runtime_activity = false;
  return CUPTI_SUCCESS;
}
// Every libcupti 13 has it: the default capture keeps only the driver's launch functions with it.
FAKE_EXPORT CUptiResult cuptiActivityEnableDriverApi(CUpti_CallbackId, uint8_t) {
  FAULT_POINT();
  return CUPTI_SUCCESS;
}
FAKE_EXPORT CUptiResult cuptiActivityGetNumDroppedRecords(CUcontext, uint32_t, size_t* dropped) {
  FAULT_POINT();
  *dropped = g_dropped_reported.exchange(true) ? 0 : 5;  // "dropped 5 records" once
  return CUPTI_SUCCESS;
}
FAKE_EXPORT CUptiResult cuptiActivityGetNextRecord(uint8_t* buffer, size_t valid, CUpti_Activity** record) {
  FAULT_POINT();
  return gpuscope::capture::test::mock_next_record(buffer, valid, record);
}
FAKE_EXPORT CUptiResult cuptiActivityFlushAll(uint32_t) {
  FAULT_POINT();
  ++g_flushes;
  std::vector<CUpti_ActivityKernel10> kernels;
  std::vector<CUpti_ActivityAPI> apis;
  {
    std::lock_guard lock(g_mutex);
    kernels.swap(g_kernels);
    apis.swap(g_apis);
  }
  if (g_request == nullptr || (kernels.empty() && apis.empty())) return CUPTI_SUCCESS;
  size_t k = 0, a = 0;
  while (k < kernels.size() || a < apis.size()) {
    MockActivityBuffer records;
    for (int n = 0; n < 100 && a < apis.size(); ++n) records.add(apis[a++]);
    for (int n = 0; n < 100 && k < kernels.size(); ++n) records.add(kernels[k++]);
    uint8_t* buffer = nullptr;
    size_t size = 0, max_records = 0;
    g_request(&buffer, &size, &max_records);
    if (buffer == nullptr) continue;  // the real CUPTI would drop and count these
    const size_t used = records.copy_to(buffer, size);
    g_complete(nullptr, 0, buffer, size, used);
  }
  return CUPTI_SUCCESS;
}
FAKE_EXPORT int InitializeInjectionNvtx2(const void* (*)(uint32_t)) {
  if (plan().check(__func__) != 0) return 0;  // NVTX's "injection failed"
  ++g_nvtx_inits;
  return 1;
}

#ifdef FAKE_CUPTI_CALLBACKS
// --- The callback API: one subscriber, resource callbacks on request (fake_cupti_context_created).
namespace {
CUpti_CallbackFunc g_callback = nullptr;  // the subscriber's
void* g_callback_data = nullptr;
bool g_context_callbacks = false;  // CONTEXT_CREATED enabled
bool g_launch_callbacks = false;   // cudaLaunchKernel_v7000 (cbid 211) enabled
bool g_sync_callbacks = false;     // cudaDeviceSynchronize_v3020 enabled
int g_subscriber;                  // its address is the subscriber handle
}  // namespace

FAKE_EXPORT CUptiResult cuptiSubscribe(CUpti_SubscriberHandle* subscriber, CUpti_CallbackFunc callback, void* data) {
  FAULT_POINT();
  std::lock_guard lock(g_mutex);
  if (g_callback != nullptr) return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
  g_callback = callback;
  g_callback_data = data;
  *subscriber = reinterpret_cast<CUpti_SubscriberHandle>(&g_subscriber);
  return CUPTI_SUCCESS;
}
FAKE_EXPORT CUptiResult cuptiUnsubscribe(CUpti_SubscriberHandle) {
  FAULT_POINT();
  std::lock_guard lock(g_mutex);
  g_callback = nullptr;
  g_context_callbacks = false;
  g_launch_callbacks = false;
  g_sync_callbacks = false;
  return CUPTI_SUCCESS;
}
FAKE_EXPORT CUptiResult cuptiEnableCallback(uint32_t enable, CUpti_SubscriberHandle, CUpti_CallbackDomain domain,
                                            CUpti_CallbackId cbid) {
  FAULT_POINT();
  std::lock_guard lock(g_mutex);
  if (domain == CUPTI_CB_DOMAIN_RESOURCE && cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED) g_context_callbacks = enable;
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && cbid == 211) g_launch_callbacks = enable;
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && cbid == CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020)
    g_sync_callbacks = enable;
  return CUPTI_SUCCESS;
}
FAKE_EXPORT CUptiResult cuptiGetDeviceId(CUcontext, uint32_t* device) {
  FAULT_POINT();
  *device = 0;
  return CUPTI_SUCCESS;
}
FAKE_EXPORT CUptiResult cuptiActivityEnableRuntimeApi(CUpti_CallbackId, uint8_t) {
  FAULT_POINT();
  return CUPTI_SUCCESS;
}

// The program created a context on device 0: the subscriber hears of it if it asked to.
FAKE_EXPORT void fake_cupti_context_created() {
  CUpti_CallbackFunc callback = nullptr;
  {
    std::lock_guard lock(g_mutex);
    if (g_context_callbacks) callback = g_callback;
  }
  CUpti_ResourceData data{};
  data.context = reinterpret_cast<CUcontext>(&g_subscriber);  // any non-null context
  if (callback != nullptr)
    callback(g_callback_data, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED, &data);
}

namespace {
// A runtime call's entry and exit for the subscriber, when it enabled them (`enabled`; outside
// g_mutex: the subscriber may call back into CUPTI). Context id 1.
void runtime_callbacks(const bool& enabled, CUpti_CallbackId cbid, const char* name, uint32_t correlation) {
  CUpti_CallbackFunc callback = nullptr;
  {
    std::lock_guard lock(g_mutex);
    if (enabled) callback = g_callback;
  }
  if (callback == nullptr) return;
  uint64_t shared = 0;
  int32_t result = 0;  // cudaSuccess
  CUpti_CallbackData data{};
  data.functionName = name;
  data.correlationId = correlation;
  data.correlationData = &shared;
  data.functionReturnValue = &result;
  data.contextUid = 1;
  for (CUpti_ApiCallbackSite site : {CUPTI_API_ENTER, CUPTI_API_EXIT}) {
    data.callbackSite = site;
    callback(g_callback_data, CUPTI_CB_DOMAIN_RUNTIME_API, cbid, &data);
  }
}
}  // namespace
#endif

// --- Test controls -------------------------------------------------------------------

// What FAKE_CUPTI_FAIL can name, null-terminated, and the codes it can return.
FAKE_EXPORT const char* const* fake_fault_functions() { return kFaultable; }
FAKE_EXPORT int fake_fault_code_count() { return kCodeCount; }
FAKE_EXPORT int fake_fault_code(int i, const char** name) {
  *name = kCodes[i].name;
  return kCodes[i].value;
}

// Records `count` kernel launches made on the calling thread: a kernel record each, an API record
// while the RUNTIME kind is on, and (with the callback API) the launch's callbacks.
FAKE_EXPORT void fake_cupti_launch(int count) {
  for (int i = 0; i < count; ++i) {
    uint32_t correlation = 0;
    {
      std::lock_guard lock(g_mutex);
      correlation = g_next_correlation++;
    }
#ifdef FAKE_CUPTI_CALLBACKS
    runtime_callbacks(g_launch_callbacks, 211, "cudaLaunchKernel", correlation);
#endif
    std::lock_guard lock(g_mutex);
    CUpti_ActivityAPI api{};
    api.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
    api.cbid = 211;
    api.start = 1000 + correlation;
    api.end = 1010 + correlation;
    api.threadId = tid();
    api.correlationId = correlation;
    if (g_runtime_activity) g_apis.push_back(api);
    CUpti_ActivityKernel10 kernel{};
    kernel.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    kernel.start = 2000 + correlation;
    kernel.end = 2100 + correlation;
    kernel.correlationId = correlation;
    kernel.name = "_Z6kernelv";
    kernel.gridX = kernel.gridY = kernel.gridZ = 1;
    kernel.blockX = kernel.blockY = kernel.blockZ = 32;
    g_kernels.push_back(kernel);
  }
}
// A cudaDeviceSynchronize on the calling thread: its callbacks (with the callback API) and an API
// record while the RUNTIME kind is on. No SYNCHRONIZATION record: the capture's own are tested.
FAKE_EXPORT void fake_cupti_synchronize() {
  uint32_t correlation = 0;
  {
    std::lock_guard lock(g_mutex);
    correlation = g_next_correlation++;
  }
#ifdef FAKE_CUPTI_CALLBACKS
  runtime_callbacks(g_sync_callbacks, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020, "cudaDeviceSynchronize",
                    correlation);
#endif
  std::lock_guard lock(g_mutex);
  CUpti_ActivityAPI api{};
  api.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  api.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020;
  api.start = 1000 + correlation;
  api.end = 1500 + correlation;
  api.threadId = tid();
  api.correlationId = correlation;
  if (g_runtime_activity) g_apis.push_back(api);
}
FAKE_EXPORT int fake_cupti_flushes() { return g_flushes.load(); }
FAKE_EXPORT int fake_cupti_nvtx_inits() { return g_nvtx_inits.load(); }
FAKE_EXPORT int fake_cupti_enabled_kinds() { return g_enabled.load(); }

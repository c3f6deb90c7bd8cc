// A stand-in for libcupti.so.13, for CPU tests of libgpuscope_inject.so itself: the
// injection loads it through cupti=, and the test drives it through the fake_cupti_*
// control functions. It implements the handful of CUPTI calls the library makes, with
// the buffer protocol of the real one: records wait in CUPTI until a flush, which asks
// the client for a buffer (request callback), fills it, and hands it back (complete
// callback). Records use the mock layout of capture_test_support.h.
//
// Environment (read at enable time):
//   FAKE_CUPTI_FAIL_KIND=<CUpti_ActivityKind>  cuptiActivityEnable of that kind fails with
//                                             CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <vector>

#include "../capture_test_support.h"

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

uint32_t tid() { return static_cast<uint32_t>(::syscall(SYS_gettid)); }

}  // namespace

FAKE_EXPORT CUptiResult cuptiGetVersion(uint32_t* version) {
  *version = 130001;
  return CUPTI_SUCCESS;
}
FAKE_EXPORT CUptiResult cuptiGetResultString(CUptiResult rc, const char** text) {
  *text = rc == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED ? "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED"
                                                               : "CUPTI_ERROR_FAKE";
  return CUPTI_SUCCESS;
}
FAKE_EXPORT CUptiResult cuptiGetCallbackName(CUpti_CallbackDomain, uint32_t cbid, const char** name) {
  *name = cbid == 211 ? "cudaLaunchKernel_v7000" : "cudaSomething_v3020";
  return CUPTI_SUCCESS;
}
FAKE_EXPORT CUptiResult cuptiSetThreadIdType(CUpti_ActivityThreadIdType) { return CUPTI_SUCCESS; }
FAKE_EXPORT CUptiResult cuptiActivityFlushPeriod(uint32_t) { return CUPTI_SUCCESS; }
FAKE_EXPORT CUptiResult cuptiActivityEnableAllSyncRecords(uint8_t) { return CUPTI_SUCCESS; }
FAKE_EXPORT CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc request,
                                                       CUpti_BuffersCallbackCompleteFunc complete) {
  g_request = request;
  g_complete = complete;
  return CUPTI_SUCCESS;
}
FAKE_EXPORT CUptiResult cuptiActivityEnable(CUpti_ActivityKind kind) {
  const char* fail = std::getenv("FAKE_CUPTI_FAIL_KIND");
  if (fail != nullptr && std::atoi(fail) == static_cast<int>(kind)) return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
  ++g_enabled;
  return CUPTI_SUCCESS;
}
FAKE_EXPORT CUptiResult cuptiActivityDisable(CUpti_ActivityKind) {
  --g_enabled;
  return CUPTI_SUCCESS;
}
FAKE_EXPORT CUptiResult cuptiActivityGetNumDroppedRecords(CUcontext, uint32_t, size_t* dropped) {
  *dropped = g_dropped_reported.exchange(true) ? 0 : 5;  // "dropped 5 records" once
  return CUPTI_SUCCESS;
}
FAKE_EXPORT CUptiResult cuptiActivityGetNextRecord(uint8_t* buffer, size_t valid, CUpti_Activity** record) {
  return gpuscope::capture::test::mock_next_record(buffer, valid, record);
}
FAKE_EXPORT CUptiResult cuptiActivityFlushAll(uint32_t) {
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
  ++g_nvtx_inits;
  return 1;
}

// --- Test controls -------------------------------------------------------------------

// Records `count` kernel launches (API record + kernel record) made on the calling thread.
FAKE_EXPORT void fake_cupti_launch(int count) {
  std::lock_guard lock(g_mutex);
  for (int i = 0; i < count; ++i) {
    const uint32_t correlation = g_next_correlation++;
    CUpti_ActivityAPI api{};
    api.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
    api.cbid = 211;
    api.start = 1000 + correlation;
    api.end = 1010 + correlation;
    api.threadId = tid();
    api.correlationId = correlation;
    g_apis.push_back(api);
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
FAKE_EXPORT int fake_cupti_flushes() { return g_flushes.load(); }
FAKE_EXPORT int fake_cupti_nvtx_inits() { return g_nvtx_inits.load(); }
FAKE_EXPORT int fake_cupti_enabled_kinds() { return g_enabled.load(); }

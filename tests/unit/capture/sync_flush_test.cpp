// The flush at synchronizations (sync_flush.h) on a CPU: CUPTI's callback data is stood in for,
// the decisions (which calls, which returns, how often) are real.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "capture/sync_flush.h"

namespace gpuscope::capture {
namespace {

CUpti_CallbackData sync_return(CUresult* result, CUpti_ApiCallbackSite site = CUPTI_API_EXIT) {
  CUpti_CallbackData data{};
  data.callbackSite = site;
  data.functionReturnValue = result;
  return data;
}

TEST(SyncFlush, WatchesTheDriversSynchronizationsOnly) {
  EXPECT_TRUE(SyncFlush::watches(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize));
  EXPECT_TRUE(SyncFlush::watches(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize));
  EXPECT_TRUE(SyncFlush::watches(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize));
  EXPECT_FALSE(SyncFlush::watches(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel));
  // The runtime's synchronizations reach the driver's: watching both would flush twice.
  EXPECT_FALSE(SyncFlush::watches(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020));
}

TEST(SyncFlush, FlushesAfterEverySuccessfulReturnWithoutAnInterval) {
  int flushed = 0;
  SyncFlush flush(0, [&] { ++flushed; });
  CUresult ok = CUDA_SUCCESS, fault = CUDA_ERROR_ILLEGAL_ADDRESS;
  flush.on_callback(sync_return(&ok, CUPTI_API_ENTER));  // entering: the work is not done yet
  EXPECT_EQ(flushed, 0);
  flush.on_callback(sync_return(&ok));
  flush.on_callback(sync_return(&ok));
  EXPECT_EQ(flushed, 2);
  flush.on_callback(sync_return(&fault));  // after a fault there is nothing left to save
  flush.on_callback(sync_return(nullptr));
  EXPECT_EQ(flushed, 2);
  EXPECT_EQ(flush.flushes(), 2u);
}

TEST(SyncFlush, FlushesAtMostOncePerInterval) {
  int flushed = 0;
  SyncFlush flush(50, [&] { ++flushed; });
  CUresult ok = CUDA_SUCCESS;
  for (int i = 0; i < 100; ++i) flush.on_callback(sync_return(&ok));
  EXPECT_EQ(flushed, 1);  // the first return flushes, the next 99 fall within 50 ms
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  flush.on_callback(sync_return(&ok));
  EXPECT_EQ(flushed, 2);
}

}  // namespace
}  // namespace gpuscope::capture

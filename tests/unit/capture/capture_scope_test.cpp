// The lean API filter (api_filter.h) and capture ranges (capture_range.h) on a CPU: CUPTI's
// per-function switch and callbacks are stood in for, the decisions and counts are real.
#include <gtest/gtest.h>
#include <nvtx3/nvToolsExt.h>
// After nvToolsExt.h, which defines the types it uses.
#include <generated_nvtx_meta.h>

#include <algorithm>
#include <string>
#include <vector>

#include "capture/api_filter.h"
#include "capture/capture_range.h"

namespace gpuscope::capture {
namespace {

std::vector<std::pair<CUpti_CallbackId, uint8_t>> g_runtime_switches;
CUptiResult CUPTIAPI record_runtime_switch(CUpti_CallbackId cbid, uint8_t enable) {
  g_runtime_switches.emplace_back(cbid, enable);
  return CUPTI_SUCCESS;
}

CUpti_CallbackData call(CUpti_ApiCallbackSite site, uint64_t* scratch) {
  CUpti_CallbackData data{};
  data.callbackSite = site;
  data.correlationData = scratch;
  return data;
}

TEST(ApiFilter, TurnsOffOnlyTheQueriesAndCountsTheirCalls) {
  CuptiApi api;
  EXPECT_NE(ApiFilter().apply(api, false), "");  // a libcupti without the per-function switch
  api.ActivityEnableRuntimeApi = record_runtime_switch;
  ApiFilter filter;
  g_runtime_switches.clear();
  ASSERT_EQ(filter.apply(api, false), "");
  EXPECT_FALSE(g_runtime_switches.empty());
  for (const auto& [cbid, enable] : g_runtime_switches) EXPECT_EQ(enable, 0) << cbid;
  EXPECT_TRUE(filter.filters(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020));
  EXPECT_FALSE(filter.filters(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000));
  EXPECT_FALSE(filter.filters(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGetDeviceCount_v3020))
      << "may initialise CUDA: never filtered";
  EXPECT_FALSE(filter.filters(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuCtxGetCurrent))
      << "driver functions only with driver_api";
  EXPECT_FALSE(filter.filters(CUPTI_CB_DOMAIN_RUNTIME_API, 100000)) << "an id past CUPTI's table";

  uint64_t scratch = 0;
  for (int i = 0; i < 3; ++i) {
    filter.on_callback(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020,
                       call(CUPTI_API_ENTER, &scratch));
    EXPECT_GT(scratch, 0u) << "the enter time is kept for the exit";
    filter.on_callback(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020,
                       call(CUPTI_API_EXIT, &scratch));
  }
  filter.set_counting(false);  // outside a capture window
  filter.on_callback(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020,
                     call(CUPTI_API_EXIT, &scratch));

  const std::string path = ::testing::TempDir() + "/api_filter.1.spool";
  SpoolWriter out;
  ASSERT_TRUE(out.open(path, 1, 0, 1));
  std::vector<uint32_t> named;
  filter.write(out, [&](CUpti_CallbackDomain, uint32_t cbid) {
    named.push_back(cbid);
    return out.intern("cudaGetDevice");
  });
  // One function was called: its count and its first call, both named.
  EXPECT_EQ(named, std::vector<uint32_t>{CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020});
  EXPECT_EQ(out.pending_records(), 3u) << "the name, one ApiCount and the first call's Api record";
}

struct Window {
  int begun = 0, ended = 0;
  CaptureRange range;
  explicit Window(const RecordingWindow& window)
      : range(
            window,
            [this] {
              ++begun;
              return std::string();
            },
            [this] { ++ended; }) {}
};

CUpti_CallbackData site(CUpti_ApiCallbackSite where) {
  CUpti_CallbackData data{};
  data.callbackSite = where;
  return data;
}

TEST(CaptureRange, ProfilerApiOpensBetweenStartAndStopOnce) {
  RecordingWindow window;
  window.kind = RecordingWindow::Kind::ProfilerApi;
  Window w(window);
  EXPECT_TRUE(w.range.needs_callbacks());
  const auto start = CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000,
             stop = CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000;
  w.range.on_api_callback(CUPTI_CB_DOMAIN_RUNTIME_API, start, site(CUPTI_API_ENTER));
  EXPECT_EQ(w.begun, 0) << "the window opens when cudaProfilerStart returns";
  w.range.on_api_callback(CUPTI_CB_DOMAIN_RUNTIME_API, start, site(CUPTI_API_EXIT));
  w.range.on_api_callback(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStart, site(CUPTI_API_EXIT));
  EXPECT_EQ(w.begun, 1) << "cuProfilerStart inside cudaProfilerStart opens nothing more";
  w.range.on_api_callback(CUPTI_CB_DOMAIN_RUNTIME_API, stop, site(CUPTI_API_ENTER));
  EXPECT_EQ(w.ended, 1);
  w.range.on_api_callback(CUPTI_CB_DOMAIN_RUNTIME_API, start, site(CUPTI_API_EXIT));
  EXPECT_EQ(w.begun, 1) << "range_end=stop: one window only";
}

TEST(CaptureRange, NvtxRangeOpensAtItsPushAndClosesAtItsOwnPop) {
  RecordingWindow window;
  window.kind = RecordingWindow::Kind::Nvtx;
  window.nvtx_message = "train";
  window.repeat = true;
  window.repeat_limit = 2;
  Window w(window);
  const auto push = [&](const char* message) {
    nvtxRangePushA_params params{message};
    w.range.on_nvtx_callback(CUPTI_CBID_NVTX_nvtxRangePushA, &params, nullptr);
  };
  const auto pop = [&] {
    nvtxRangePop_params params{};
    w.range.on_nvtx_callback(CUPTI_CBID_NVTX_nvtxRangePop, &params, nullptr);
  };
  push("setup");
  pop();
  EXPECT_EQ(w.begun, 0);
  for (int step = 0; step < 3; ++step) {
    push("outer");
    push("train");
    push("aten::mm");
    pop();
    EXPECT_EQ(w.ended, std::min(step, 2)) << "a nested pop does not end the window";
    pop();  // train's own pop
    pop();
  }
  EXPECT_EQ(w.begun, 2) << "repeat:2";
  EXPECT_EQ(w.ended, 2);
}

}  // namespace
}  // namespace gpuscope::capture

// The core API trace's recorder (api_recorder.h) on a CPU: which functions it chooses, the records
// its callbacks make on several threads, windows, full rings and rings reused after their thread.
#include "capture/api_recorder.h"

#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "capture_test_support.h"

namespace gpuscope::capture {
namespace {

namespace fs = std::filesystem;
namespace sp = gpuscope::spool;

const char* name_of(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  if (domain != CUPTI_CB_DOMAIN_RUNTIME_API) return nullptr;
  switch (cbid) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000: return "cudaLaunchKernel_v7000";
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020: return "cudaMemcpyAsync_v3020";
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020: return "cudaStreamSynchronize_v3020";
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000: return "cudaStreamSynchronize_ptsz_v7000";
    case CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020: return "cudaDeviceSynchronize_v3020";
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020: return "cudaStreamWaitEvent_v3020";
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamQuery_v3020: return "cudaStreamQuery_v3020";
    case CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020: return "cudaMalloc_v3020";
    case CUPTI_RUNTIME_TRACE_CBID_cudaSetDevice_v3020: return "cudaSetDevice_v3020";
    case CUPTI_RUNTIME_TRACE_CBID_cudaFuncGetAttributes_v3020: return "cudaFuncGetAttributes_v3020";
    case CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020: return "cudaGetDevice_v3020";
    case CUPTI_RUNTIME_TRACE_CBID_cudaGetLastError_v3020: return "cudaGetLastError_v3020";
    default: return nullptr;
  }
}

// One call of `cbid` on the calling thread, as CUPTI delivers it: entry, then exit with the same
// correlation data.
void call(ApiRecorder& recorder, CUpti_CallbackId cbid, uint32_t correlation, int32_t result = 0,
          CUpti_CallbackDomain domain = CUPTI_CB_DOMAIN_RUNTIME_API, uint32_t context = 0) {
  uint64_t shared = 0;
  CUpti_CallbackData data{};
  data.correlationId = correlation;
  data.contextUid = context;
  data.correlationData = &shared;
  data.functionReturnValue = &result;
  data.callbackSite = CUPTI_API_ENTER;
  recorder.on_callback(domain, cbid, data);
  data.callbackSite = CUPTI_API_EXIT;
  recorder.on_callback(domain, cbid, data);
}

class ApiRecorderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (fs::temp_directory_path() / ("gpuscope_api_recorder_" + std::to_string(::getpid()) + "_" +
                                          ::testing::UnitTest::GetInstance()->current_test_info()->name()))
                .string();
    recorder_.choose(name_of, /*driver_launches=*/true);
  }
  void TearDown() override { fs::remove(path_); }

  // Drains the recorder into a new spool and reads it back.
  test::ReadSpool drained(size_t* written = nullptr) {
    SpoolWriter out;
    EXPECT_TRUE(out.open(path_, 7, 1, 123));
    const size_t n = recorder_.drain(out, [&](CUpti_CallbackDomain domain, uint32_t cbid) {
      const char* name = name_of(domain, cbid);
      return out.intern(name ? name : "driver");
    });
    if (written) *written = n;
    out.finish(sp::EndRecord{});
    return test::read_spool(path_);
  }

  std::string path_;
  ApiRecorder recorder_;
};

TEST_F(ApiRecorderTest, ChoosesTheCallsTheAnalysesUseAndTheDriversLaunches) {
  for (CUpti_CallbackId cbid :
       {CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020,
        CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020,
        CUPTI_RUNTIME_TRACE_CBID_cudaSetDevice_v3020, CUPTI_RUNTIME_TRACE_CBID_cudaFuncGetAttributes_v3020})
    EXPECT_TRUE(recorder_.records(CUPTI_CB_DOMAIN_RUNTIME_API, cbid)) << cbid;
  // Pure queries, made several times per PyTorch op: the cost the core trace avoids.
  EXPECT_FALSE(recorder_.records(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020));
  EXPECT_FALSE(recorder_.records(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGetLastError_v3020));
  EXPECT_TRUE(recorder_.records(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx));
  EXPECT_TRUE(recorder_.records(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch));
  EXPECT_FALSE(recorder_.records(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuCtxGetCurrent));
  EXPECT_FALSE(recorder_.records(CUPTI_CB_DOMAIN_NVTX, 1));
  EXPECT_FALSE(recorder_.records(CUPTI_CB_DOMAIN_RUNTIME_API, 1u << 20));  // out of range, not a crash
}

TEST_F(ApiRecorderTest, WithoutDriverLaunchesOnlyRuntimeFunctionsAreChosen) {
  ApiRecorder recorder;
  recorder.choose(name_of, /*driver_launches=*/false);
  EXPECT_TRUE(recorder.records(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000));
  EXPECT_FALSE(recorder.records(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx));
  EXPECT_EQ(recorder.chosen(), 10u);
}

TEST_F(ApiRecorderTest, EachThreadsCallsBecomeApiRecordsWithTimesThreadAndResult) {
  call(recorder_, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 1);
  uint32_t other_tid = 0;
  std::thread([&] {
    other_tid = static_cast<uint32_t>(::syscall(SYS_gettid));
    call(recorder_, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, 2, /*result=*/2);
    call(recorder_, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, 3, 0, CUPTI_CB_DOMAIN_DRIVER_API);
  }).join();
  size_t written = 0;
  const test::ReadSpool spool = drained(&written);
  const auto apis = spool.of(sp::RecordKind::Api);
  ASSERT_EQ(apis.size(), 3u);
  EXPECT_EQ(written, 3u);
  for (const auto& record : apis) {
    const auto api = record.as<sp::ApiRecord>();
    EXPECT_GT(api.start_ns, 0);
    EXPECT_GE(api.end_ns, api.start_ns);
    if (api.correlation_id == 1) {
      EXPECT_EQ(api.tid, static_cast<uint32_t>(::syscall(SYS_gettid)));
      EXPECT_EQ(spool.strings.at(api.name), "cudaLaunchKernel_v7000");
      EXPECT_EQ(api.domain, static_cast<uint8_t>(sp::ApiDomainCode::Runtime));
    } else {
      EXPECT_EQ(api.tid, other_tid);
      EXPECT_EQ(api.return_code, api.correlation_id == 2 ? 2 : 0);
      EXPECT_EQ(api.domain,
                static_cast<uint8_t>(api.correlation_id == 2 ? sp::ApiDomainCode::Runtime : sp::ApiDomainCode::Driver));
    }
  }
  EXPECT_TRUE(drained().of(sp::RecordKind::Api).empty());  // each record is drained once
}

TEST_F(ApiRecorderTest, TheDriverLaunchInsideARuntimeLaunchIsNotASecondRecord) {
  // cudaLaunchKernel calls cuLaunchKernel, and CUPTI calls back for both with one correlation id.
  uint64_t runtime_shared = 0, driver_shared = 0;
  int32_t result = 0;
  CUpti_CallbackData runtime{}, driver{};
  for (auto [data, shared] : {std::pair{&runtime, &runtime_shared}, std::pair{&driver, &driver_shared}}) {
    data->correlationId = 5;
    data->correlationData = shared;
    data->functionReturnValue = &result;
  }
  const auto site = [](CUpti_CallbackData& data, CUpti_ApiCallbackSite at) -> const CUpti_CallbackData& {
    data.callbackSite = at;
    return data;
  };
  constexpr CUpti_CallbackId kLaunch = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
  constexpr CUpti_CallbackId kDriverLaunch = CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel;
  recorder_.on_callback(CUPTI_CB_DOMAIN_RUNTIME_API, kLaunch, site(runtime, CUPTI_API_ENTER));
  recorder_.on_callback(CUPTI_CB_DOMAIN_DRIVER_API, kDriverLaunch, site(driver, CUPTI_API_ENTER));
  recorder_.on_callback(CUPTI_CB_DOMAIN_DRIVER_API, kDriverLaunch, site(driver, CUPTI_API_EXIT));
  recorder_.on_callback(CUPTI_CB_DOMAIN_RUNTIME_API, kLaunch, site(runtime, CUPTI_API_EXIT));
  // A library's own driver launch (cuBLAS, Triton), and one after the runtime call has returned.
  call(recorder_, kDriverLaunch, 6, 0, CUPTI_CB_DOMAIN_DRIVER_API);
  call(recorder_, kDriverLaunch, 5, 0, CUPTI_CB_DOMAIN_DRIVER_API);
  std::vector<std::pair<uint32_t, uint8_t>> recorded;  // (correlation id, domain)
  for (const auto& record : drained().of(sp::RecordKind::Api))
    recorded.emplace_back(record.as<sp::ApiRecord>().correlation_id, record.as<sp::ApiRecord>().domain);
  const auto runtime_code = static_cast<uint8_t>(sp::ApiDomainCode::Runtime);
  const auto driver_code = static_cast<uint8_t>(sp::ApiDomainCode::Driver);
  EXPECT_EQ(recorded,
            (std::vector<std::pair<uint32_t, uint8_t>>{{5, runtime_code}, {6, driver_code}, {5, driver_code}}));
}

TEST_F(ApiRecorderTest, ExplicitSynchronizationsAlsoBecomeSyncRecordsAsCuptiWouldGiveThem) {
  call(recorder_, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, 1, 0, CUPTI_CB_DOMAIN_RUNTIME_API, 5);
  call(recorder_, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000, 2, 0, CUPTI_CB_DOMAIN_RUNTIME_API, 5);
  call(recorder_, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020, 3, 0, CUPTI_CB_DOMAIN_RUNTIME_API, 6);
  call(recorder_, CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020, 4, 0, CUPTI_CB_DOMAIN_RUNTIME_API, 6);
  call(recorder_, CUPTI_RUNTIME_TRACE_CBID_cudaStreamQuery_v3020, 5);  // a query, not a synchronization
  call(recorder_, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020, 6, /*result=*/700);  // failed
  call(recorder_, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 7);
  const test::ReadSpool spool = drained();
  EXPECT_EQ(spool.of(sp::RecordKind::Api).size(), 7u) << "every call is an API record too";
  const auto syncs = spool.of(sp::RecordKind::Sync);
  ASSERT_EQ(syncs.size(), 4u);
  const sp::SyncCode expected[] = {sp::SyncCode::StreamSynchronize, sp::SyncCode::StreamSynchronize,
                                   sp::SyncCode::ContextSynchronize, sp::SyncCode::StreamWaitEvent};
  for (size_t i = 0; i < syncs.size(); ++i) {
    const auto sync = syncs[i].as<sp::SyncRecord>();
    EXPECT_EQ(sync.correlation_id, i + 1);
    EXPECT_EQ(sync.sync_kind, static_cast<uint8_t>(expected[i])) << i;
    EXPECT_EQ(sync.context, i < 2 ? 5u : 6u);
    EXPECT_EQ(sync.stream, 0u) << "the callbacks do not resolve stream ids";
    EXPECT_GT(sync.start_ns, 0);
    EXPECT_GE(sync.end_ns, sync.start_ns);
  }
}

TEST_F(ApiRecorderTest, CallsThatBeginOutsideAWindowAreNotRecorded) {
  recorder_.set_recording(false);
  call(recorder_, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 1);
  recorder_.set_recording(true);
  call(recorder_, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 2);
  const auto apis = drained().of(sp::RecordKind::Api);
  ASSERT_EQ(apis.size(), 1u);
  EXPECT_EQ(apis[0].as<sp::ApiRecord>().correlation_id, 2u);
}

TEST_F(ApiRecorderTest, AFullRingDropsAndCountsInsteadOfWaiting) {
  const uint32_t extra = 5;
  for (uint32_t i = 0; i < ApiRecorder::kRingRecords + extra; ++i)
    call(recorder_, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, i + 1);
  const test::ReadSpool spool = drained();
  EXPECT_EQ(spool.of(sp::RecordKind::Api).size(), ApiRecorder::kRingRecords);
  uint64_t dropped = 0;
  for (const auto& loss : spool.of(sp::RecordKind::Loss)) {
    const auto l = loss.as<sp::LossRecord>();
    if (spool.strings.at(l.what) == "api_records_dropped") dropped += l.count;
  }
  EXPECT_EQ(dropped, extra);
  // Drained, the ring takes records again, and the loss is not written twice.
  call(recorder_, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 1);
  const test::ReadSpool again = drained();
  EXPECT_EQ(again.of(sp::RecordKind::Api).size(), 1u);
  EXPECT_TRUE(again.of(sp::RecordKind::Loss).empty());
}

TEST_F(ApiRecorderTest, ThreadsThatComeAndGoReuseDrainedRings) {
  // More short-lived threads than rings: each takes the ring of one that has exited.
  for (size_t i = 0; i < ApiRecorder::kMaxRings + 10; ++i) {
    std::thread([&] { call(recorder_, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 1); }).join();
    drained();
  }
  std::thread([&] { call(recorder_, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 9); }).join();
  const test::ReadSpool spool = drained();
  ASSERT_EQ(spool.of(sp::RecordKind::Api).size(), 1u);
  EXPECT_TRUE(spool.of(sp::RecordKind::Loss).empty());
}

TEST_F(ApiRecorderTest, ThreadsBeyondTheRingsLoseTheirCallsCounted) {
  // kMaxRings threads alive at once hold every ring; one more has none.
  std::vector<std::thread> holders;
  std::atomic<size_t> ready{0};
  std::atomic<bool> release{false};
  for (size_t i = 0; i < ApiRecorder::kMaxRings; ++i)
    holders.emplace_back([&] {
      call(recorder_, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 1);
      ++ready;
      while (!release) std::this_thread::yield();
    });
  while (ready < ApiRecorder::kMaxRings) std::this_thread::yield();
  drained();  // rings empty, but their threads are alive: not reusable
  std::thread([&] { call(recorder_, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 2); }).join();
  release = true;
  for (std::thread& t : holders) t.join();
  const test::ReadSpool spool = drained();
  EXPECT_TRUE(spool.of(sp::RecordKind::Api).empty());
  ASSERT_EQ(spool.of(sp::RecordKind::Loss).size(), 1u);
  EXPECT_EQ(spool.of(sp::RecordKind::Loss)[0].as<sp::LossRecord>().count, 1u);
}

}  // namespace
}  // namespace gpuscope::capture

// GPU faults (analysis_faults.h) and what the report's Run section says about them.
#include <gtest/gtest.h>

#include "gpuscope/analysis_faults.h"
#include "gpuscope/report.h"
#include "trace_builder.h"

namespace gpuscope {
namespace {

constexpr TimeNs kRun = 1'000'000'000'000;  // the run's start, ns since the epoch

// A program that ran two kernels, then faulted: its synchronization and a later copy return
// cudaErrorIllegalAddress; an earlier allocation failed with a plain (not sticky) error.
Trace faulted_run() {
  testing::TraceBuilder b;
  b.run(kRun, kRun + 100'000'000);
  b.kernel("good_kernel", kRun + 1'000'000, kRun + 2'000'000,
           b.api("cudaLaunchKernel", kRun + 900'000, kRun + 950'000));
  b.kernel("last_good", kRun + 3'000'000, kRun + 4'000'000,
           b.api("cudaLaunchKernel", kRun + 2'900'000, kRun + 2'950'000));
  b.api("cudaMalloc", kRun + 500'000, kRun + 600'000);
  b.trace().api_calls.back().return_code = 2;  // cudaErrorMemoryAllocation: the context lives on
  b.api("cudaDeviceSynchronize", kRun + 5'000'000, kRun + 10'000'000);
  b.trace().api_calls.back().return_code = 700;
  b.api("cudaMemcpy", kRun + 11'000'000, kRun + 11'100'000);
  b.trace().api_calls.back().return_code = 700;
  b.trace().data_loss.push_back({1, "cupti_missing_timestamps", 3, "GPU records without start or end time"});
  return b.trace();
}

TEST(GpuFaults, TheFirstStickyErrorIsTheFault) {
  const auto faults = analysis::find_gpu_faults(faulted_run());
  ASSERT_EQ(faults.size(), 1u);
  const analysis::GpuFault& f = faults[0];
  EXPECT_EQ(f.pid, 1u);
  EXPECT_EQ(f.call, "cudaDeviceSynchronize");
  EXPECT_EQ(f.error, "cudaErrorIllegalAddress");
  EXPECT_EQ(f.at, kRun + 10'000'000);
  EXPECT_EQ(f.failed_calls, 2u);
  ASSERT_TRUE(f.last_timed_end.has_value());
  EXPECT_EQ(*f.last_timed_end, kRun + 4'000'000);
  EXPECT_EQ(f.last_timed_kernel, "last_good");
  EXPECT_EQ(f.untimed_records, 3u);
}

TEST(GpuFaults, PlainErrorsAreNotFaults) {
  Trace t = faulted_run();
  for (ApiCall& c : t.api_calls)
    if (c.return_code == 700) c.return_code = 1;  // cudaErrorInvalidValue
  EXPECT_TRUE(analysis::find_gpu_faults(t).empty());
  EXPECT_STREQ(analysis::sticky_error_name(700, ApiDomain::Driver), "CUDA_ERROR_ILLEGAL_ADDRESS");
  EXPECT_EQ(analysis::sticky_error_name(2, ApiDomain::Runtime), nullptr);
}

TEST(GpuFaults, TheRunSectionSaysWhereAndWhatWasKept) {
  const std::string text = render_report(faulted_run(), {}, parse_report_format("text"));
  EXPECT_NE(text.find("GPU fault           cudaDeviceSynchronize returned cudaErrorIllegalAddress"), std::string::npos)
      << text;
  EXPECT_NE(text.find("10.00 ms into the run"), std::string::npos);
  EXPECT_NE(text.find("2 calls returned the error"), std::string::npos);
  EXPECT_NE(text.find("ended 6.00 ms before: last_good"), std::string::npos);
  EXPECT_NE(text.find("3 GPU records lost their times"), std::string::npos);
  const std::string clean = render_report(testing::TraceBuilder().trace(), {}, parse_report_format("text"));
  EXPECT_EQ(clean.find("GPU fault"), std::string::npos);
}

}  // namespace
}  // namespace gpuscope

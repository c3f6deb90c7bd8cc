// Data quality: a possible loss that gpuscope cannot confirm must still be shown; a loss it
// saw (the takeover of CUPTI's records) is shown as such.
#include <gtest/gtest.h>

#include "gpuscope/analysis.h"
#include "gpuscope/report.h"

namespace gpuscope {
namespace {

// A PyTorch-like process: it loaded CUPTI itself, its records stop at 1 s, it ends at 12 s.
Trace shared_cupti_trace(bool shared, TimeNs end) {
  Trace t;
  Process p;
  p.pid = 666;
  p.start = 0;
  p.end = end;
  p.clean_shutdown = true;
  p.capture_status = "ok";
  p.cupti_shared = shared;
  t.processes.push_back(p);
  Kernel k;
  k.pid = 666;
  k.start = 900'000'000;
  k.end = 1'000'000'000;
  t.kernels.push_back(k);
  t.run.start = 0;
  t.run.end = end;
  return t;
}

TEST(DataQuality, LongSilenceAfterSharedCuptiIsAPossibleLoss) {
  const auto q = analysis::assess_data_quality(shared_cupti_trace(true, 12'000'000'000));
  ASSERT_EQ(q.shared_cupti_silences.size(), 1u);
  EXPECT_EQ(q.shared_cupti_silences[0].pid, 666u);
  EXPECT_EQ(q.shared_cupti_silences[0].silent_ns, 11'000'000'000);
  EXPECT_FALSE(q.complete());
  const std::string text = render_report(shared_cupti_trace(true, 12'000'000'000), {}, parse_report_format("text"));
  EXPECT_NE(text.find("torch.profiler"), std::string::npos);
}

TEST(DataQuality, NoWarningWithoutSharedCuptiOrWithoutSilence) {
  EXPECT_TRUE(analysis::assess_data_quality(shared_cupti_trace(false, 12'000'000'000)).complete())
      << "our own CUPTI: nobody else can take the records";
  EXPECT_TRUE(analysis::assess_data_quality(shared_cupti_trace(true, 1'500'000'000)).complete())
      << "0.5 s of silence is ordinary";
}

// With the preload library the capture knows when the takeover happened: the losses table
// says so exactly, and the guess from the silence is not repeated.
TEST(DataQuality, AKnownTakeoverReplacesTheGuess) {
  Trace t = shared_cupti_trace(true, 12'000'000'000);
  t.data_loss.push_back({666, "cupti_taken_over", 1, "another CUPTI client in this process took them at 1.000 s"});
  const auto q = analysis::assess_data_quality(t);
  EXPECT_TRUE(q.shared_cupti_silences.empty());
  ASSERT_EQ(q.losses.size(), 1u);
  EXPECT_EQ(q.losses[0].what, "cupti_taken_over");
  EXPECT_FALSE(q.complete());
  const std::string text = render_report(t, {}, parse_report_format("text"));
  EXPECT_EQ(text.find("Possible loss"), std::string::npos);
  EXPECT_NE(text.find("took them at 1.000 s"), std::string::npos);
}

}  // namespace
}  // namespace gpuscope

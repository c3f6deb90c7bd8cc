// Kernels replayed by the range profiler come without CUPTI timestamps; finalize_trace places
// them at the end of their launch call with their measured duration.
#include <gtest/gtest.h>

#include "importers/finalize.h"

namespace gpuscope {
namespace {

Trace replayed_trace() {
  Trace t;
  const StringId duration = t.strings.intern("gpu__time_duration.sum");
  ApiCall launch;
  launch.pid = 7;
  launch.start = 1'000'000;
  launch.end = 9'000'000;  // the call lasted through every replay pass
  launch.correlation_id = 42;
  t.api_calls.push_back(launch);
  Kernel replayed;
  replayed.pid = 7;
  replayed.correlation_id = 42;  // start = end = 0, as CUPTI delivers it
  t.kernels.push_back(replayed);
  t.kernel_metrics.push_back({7, 42, duration, 250'000.0, 0});
  return t;
}

TEST(FinalizeReplayedKernels, PlacedAtTheEndOfTheirLaunchWithTheMeasuredDuration) {
  Trace t = replayed_trace();
  finalize_trace(t);
  ASSERT_EQ(t.kernels.size(), 1u);
  EXPECT_EQ(t.kernels[0].end, 9'000'000);
  EXPECT_EQ(t.kernels[0].start, 8'750'000);
  bool noted = false;
  for (const DataLoss& loss : t.data_loss) noted |= loss.what == "kernel_times_from_metrics" && loss.count == 1;
  EXPECT_TRUE(noted);
}

TEST(FinalizeReplayedKernels, KernelsWithTimesOrWithoutDurationAreLeftAlone) {
  Trace t = replayed_trace();
  t.kernels[0].start = 5'000'000;  // a real record: never moved
  t.kernels[0].end = 5'100'000;
  Kernel other;  // no duration metric for it: stays at 0
  other.pid = 7;
  other.correlation_id = 43;
  t.kernels.push_back(other);
  finalize_trace(t);
  EXPECT_EQ(t.kernels[0].start, 0);  // sorted first: the untimed one
  EXPECT_EQ(t.kernels[1].start, 5'000'000);
  for (const DataLoss& loss : t.data_loss) EXPECT_NE(loss.what, "kernel_times_from_metrics");
}

}  // namespace
}  // namespace gpuscope

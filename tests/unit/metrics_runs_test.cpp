// `gpuscope bench` with metrics: every metric row of a run gets that run's id,
// names are re-interned into the bench's string table, and one run comes back out.
#include <gtest/gtest.h>

#include "gpuscope/runs.h"
#include "gpuscope/store.h"
#include "metrics_builder.h"
#include "spool_builder.h"

namespace gpuscope {
namespace {

using testing::kDramBytes;
using testing::kSmThroughput;

// One single capture with a kernel, its metrics, a GPU sample and a status row.
Trace run_with_metrics(const std::string& filler, double dram) {
  testing::TraceBuilder b;
  b.trace().strings.intern(filler);  // so string ids differ between runs
  testing::launches_with_metrics(b, "gemm", {{kDramBytes, {dram}}, {kSmThroughput, {50}}});
  Trace& t = b.trace();
  t.gpu_metric_samples.push_back({1, 0, 0, 100, t.strings.intern(kSmThroughput), dram / 100, 0});
  testing::kernel_collection(t, "ok", 1);
  return t;
}

TEST(MetricsRuns, BenchStampsRunIdsOnMetricRowsAndReinternsNames) {
  Trace bench;
  append_run(bench, run_with_metrics("a", 1000), 1);
  append_run(bench, run_with_metrics("bb-longer-filler", 2000), 2);
  bench.runs = {{1, 0, 100, 0, 0}, {2, 100, 200, 0, 0}};

  ASSERT_EQ(bench.kernel_metrics.size(), 4u);
  EXPECT_EQ(bench.kernel_metrics[0].run_id, 1u);
  EXPECT_EQ(bench.kernel_metrics[3].run_id, 2u);
  EXPECT_EQ(bench.strings.get(bench.kernel_metrics[2].metric), kDramBytes);
  EXPECT_EQ(bench.kernel_metrics[0].metric, bench.kernel_metrics[2].metric) << "one id per name in the bench";
  ASSERT_EQ(bench.gpu_metric_samples.size(), 2u);
  EXPECT_EQ(bench.gpu_metric_samples[1].run_id, 2u);
  EXPECT_EQ(bench.strings.get(bench.gpu_metric_samples[1].metric), kSmThroughput);
  ASSERT_EQ(bench.metric_collections.size(), 2u);
  EXPECT_EQ(bench.metric_collections[1].run_id, 2u);

  const Trace two = select_run(bench, 2);
  ASSERT_EQ(two.kernel_metrics.size(), 2u);
  EXPECT_DOUBLE_EQ(two.kernel_metrics[0].value, 2000);
  EXPECT_EQ(two.gpu_metric_samples.size(), 1u);
  EXPECT_EQ(two.metric_collections.size(), 1u);

  const std::string path = testing::scratch_dir("metrics_bench") + "/b.gpuscope";
  write_trace(path, bench);
  const Trace back = read_trace(path);
  ASSERT_EQ(back.kernel_metrics.size(), 4u);
  for (size_t i = 0; i < back.kernel_metrics.size(); ++i)
    EXPECT_EQ(back.kernel_metrics[i].run_id, bench.kernel_metrics[i].run_id);
  EXPECT_EQ(back.metric_collections[1].run_id, 2u);
}

}  // namespace
}  // namespace gpuscope

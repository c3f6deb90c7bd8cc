// Kernel metrics, GPU metric samples and collection status through the store; the
// kernel_metrics_named view; captures without metrics read with none.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "gpuscope/store.h"
#include "metrics_builder.h"
#include "spool_builder.h"
#include "sql_rows.h"

namespace gpuscope {
namespace {

using testing::kDramBytes;
using testing::kSmThroughput;

Trace metrics_trace() {
  testing::TraceBuilder b;
  testing::launches_with_metrics(b, "gemm", {{kDramBytes, {4096, 1e12 + 0.5}}, {kSmThroughput, {87.25, -0.0}}});
  Trace& t = b.trace();
  t.kernel_metrics.push_back({1, 999, t.strings.intern(kDramBytes), 7, 0});  // no kernel 999
  t.gpu_metric_samples.push_back({1, 0, 100, 200, t.strings.intern(kSmThroughput), 12.5, 0});
  t.gpu_metric_samples.push_back({1, 1, 200, 300, t.strings.intern(kSmThroughput), 1.0 / 3.0, 0});
  testing::kernel_collection(t, "ok", 2);
  MetricCollection sampling;
  sampling.pid = 1;
  sampling.kind = "sampling";
  sampling.status = "PM sampling is not supported on this GPU";
  sampling.interval_ns = 100'000;
  t.metric_collections.push_back(sampling);
  return t;
}

using testing::query;

TEST(MetricsStore, RoundTripKeepsEveryField) {
  const std::string path = testing::scratch_dir("metrics_roundtrip") + "/m.gpuscope";
  const Trace original = metrics_trace();
  write_trace(path, original);
  const Trace back = read_trace(path);

  ASSERT_EQ(back.kernel_metrics.size(), original.kernel_metrics.size());
  for (size_t i = 0; i < back.kernel_metrics.size(); ++i) {
    const KernelMetric &a = original.kernel_metrics[i], &b = back.kernel_metrics[i];
    EXPECT_EQ(b.pid, a.pid);
    EXPECT_EQ(b.correlation_id, a.correlation_id);
    EXPECT_EQ(back.strings.get(b.metric), original.strings.get(a.metric));
    EXPECT_EQ(b.value, a.value) << "REAL keeps every bit of a double";
    EXPECT_EQ(b.run_id, a.run_id);
  }
  EXPECT_EQ(back.kernel_metrics[2].value, 1e12 + 0.5);  // launch 1, first metric
  ASSERT_EQ(back.gpu_metric_samples.size(), 2u);
  EXPECT_EQ(back.gpu_metric_samples[1].device, 1u);
  EXPECT_EQ(back.gpu_metric_samples[1].start, 200);
  EXPECT_EQ(back.gpu_metric_samples[1].end, 300);
  EXPECT_EQ(back.gpu_metric_samples[1].value, 1.0 / 3.0);
  EXPECT_EQ(back.strings.get(back.gpu_metric_samples[1].metric), kSmThroughput);
  ASSERT_EQ(back.metric_collections.size(), 2u);
  const MetricCollection& k = back.metric_collections[0];
  EXPECT_EQ(k.kind, "kernel");
  EXPECT_EQ(k.status, "ok");
  EXPECT_EQ(k.chip, "GH100");
  EXPECT_EQ(k.passes, 2u);
  EXPECT_EQ(k.metrics, 2u);
  EXPECT_EQ(k.kernels_profiled, 2u);
  EXPECT_EQ(back.metric_collections[1].status, "PM sampling is not supported on this GPU");
  EXPECT_EQ(back.metric_collections[1].interval_ns, 100'000u);
  EXPECT_EQ(query(path, "SELECT value FROM meta WHERE key = 'schema_version'"),
            std::vector<std::string>{std::to_string(kSchemaVersion)});
}

TEST(MetricsStore, NamedViewJoinsEachValueWithItsKernel) {
  const std::string path = testing::scratch_dir("metrics_view") + "/m.gpuscope";
  write_trace(path, metrics_trace());
  // Launch 0: kernel 3..4 us into the trace; launch 1 10 us later (metrics_builder.h).
  EXPECT_EQ(query(path,
                  "SELECT kernel, start_ns, duration_ns, metric, value FROM kernel_metrics_named "
                  "WHERE metric = 'sm__throughput.avg.pct_of_peak_sustained_elapsed' ORDER BY start_ns"),
            (std::vector<std::string>{"gemm\t3000\t1000\t" + std::string(kSmThroughput) + "\t87.25",
                                      "gemm\t13000\t1000\t" + std::string(kSmThroughput) + "\t0.0"}));
  // A value whose kernel is not in the capture still shows, without a kernel.
  EXPECT_EQ(query(path, "SELECT kernel, correlation_id, value FROM kernel_metrics_named WHERE kernel IS NULL"),
            std::vector<std::string>{"NULL\t999\t7.0"});
  EXPECT_EQ(query(path,
                  "SELECT kernel, metric, AVG(value) FROM kernel_metrics_named "
                  "WHERE metric = 'dram__bytes_read.sum' AND kernel IS NOT NULL GROUP BY kernel, metric"),
            std::vector<std::string>{"gemm\tdram__bytes_read.sum\t500000002048.25"});
  EXPECT_EQ(query(path, "SELECT device, metric, value FROM gpu_metric_samples_named ORDER BY start_ns LIMIT 1"),
            std::vector<std::string>{"0\t" + std::string(kSmThroughput) + "\t12.5"});
  // The store writes no index (SQLite builds a transient one for the join when it pays off).
  EXPECT_EQ(query(path, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"),
            std::vector<std::string>{"0"});
}

TEST(MetricsStore, ViewKeepsBenchRunsApart) {
  // Two runs of a bench reuse pid 1 and correlation id 1: each value joins its own run's kernel.
  Trace bench;
  for (uint32_t run = 1; run <= 2; ++run) {
    Kernel k;
    k.pid = 1;
    k.correlation_id = 1;
    k.name = k.mangled_name = bench.strings.intern(run == 1 ? "first" : "second");
    k.start = run * 1000;
    k.end = k.start + 10 * run;
    k.run_id = run;
    bench.kernels.push_back(k);
    testing::add_kernel_metric(bench, k, kDramBytes, run * 100.0);
  }
  bench.runs = {{1, 0, 1500, 0, 0}, {2, 1500, 3000, 0, 0}};
  const std::string path = testing::scratch_dir("metrics_view_runs") + "/b.gpuscope";
  write_trace(path, bench);
  EXPECT_EQ(query(path, "SELECT run_id, kernel, duration_ns, value FROM kernel_metrics_named ORDER BY run_id"),
            (std::vector<std::string>{"1\tfirst\t10\t100.0", "2\tsecond\t20\t200.0"}));
  const Trace back = read_trace(path);
  ASSERT_EQ(back.kernel_metrics.size(), 2u);
  EXPECT_EQ(back.kernel_metrics[1].run_id, 2u);
}

TEST(MetricsStore, BundledCapturesWithoutMetricsReadWithNone) {
  for (const char* name : {"bsr_spmm_baseline", "bsr_spmm_fixed", "crash_segv", "spawn"}) {
    const std::string path = std::string(GPUSCOPE_TEST_DATA_DIR) + "/" + name + ".gpuscope";
    SCOPED_TRACE(path);
    EXPECT_EQ(query(path, "SELECT value FROM meta WHERE key = 'schema_version'"),
              std::vector<std::string>{std::to_string(kSchemaVersion)});
    const Trace t = read_trace(path);
    EXPECT_FALSE(t.processes.empty());
    EXPECT_TRUE(t.kernel_metrics.empty());
    EXPECT_TRUE(t.gpu_metric_samples.empty());
    EXPECT_TRUE(t.metric_collections.empty());
  }
}

TEST(MetricsStore, QueryCommandReadsTheView) {
  const std::string dir = testing::scratch_dir("metrics_query");
  write_trace(dir + "/m.gpuscope", metrics_trace());
  const std::string cmd = std::string(GPUSCOPE_BINARY) + " query '" + dir +
                          "/m.gpuscope' \"SELECT kernel, COUNT(*) FROM kernel_metrics_named "
                          "WHERE kernel IS NOT NULL GROUP BY kernel\" > '" +
                          dir + "/out.txt'";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  std::ifstream in(dir + "/out.txt");
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "gemm\t4");
}

}  // namespace
}  // namespace gpuscope

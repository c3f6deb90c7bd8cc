// Report behaviour of the hardware-metric sections beyond the golden files: sections appear
// only with their data, --top cuts their tables, a failed collection says the trace was still
// captured, and the FLOP/s and FLOP/byte units format like the others.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "gpuscope/report.h"
#include "metrics_trace.h"
#include "report/units.h"
#include "time_units.h"

namespace gpuscope {
namespace {

using nlohmann::json;
using testing::kMs;
using testing::TraceBuilder;
const char* const kMetricSections[] = {"speed_of_light", "memory_workload", "achieved_occupancy", "warp_stalls",
                                       "tensor_cores",   "roofline",        "gpu_utilization"};

json report_json(const Trace& t, size_t top = 15) {
  ReportOptions options;
  options.top = top;
  return json::parse(render_report(t, options, parse_report_format("json")));
}

std::vector<std::string> section_keys(const json& r) {
  std::vector<std::string> keys;
  for (const json& s : r["sections"]) keys.push_back(s["key"]);
  return keys;
}

bool has(const std::vector<std::string>& keys, const std::string& key) {
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

const json& section(const json& r, const std::string& key) {
  for (const json& s : r["sections"])
    if (s["key"] == key) return s;
  throw std::runtime_error("no section " + key);
}

TraceBuilder two_kernels(const testing::Metrics& m) {
  TraceBuilder b;
  b.run(0, 50 * kMs);
  const TimeNs t = testing::launches(b, "first", 3, 1 * kMs, 2 * kMs, m);
  testing::launches(b, "second", 2, t, 1 * kMs, m);
  return b;
}

TEST(MetricsReport, NoMetricsNoMetricSectionsOrLines) {
  TraceBuilder b;
  b.run(0, 10 * kMs);
  testing::launches(b, "k", 2, 1 * kMs, kMs, {});
  const json r = report_json(b.trace());
  const auto keys = section_keys(r);
  for (const char* key : kMetricSections) EXPECT_FALSE(has(keys, key)) << key;
  for (const json& l : section(r, "data_quality")["lines"]) {
    EXPECT_NE(l["key"], "metric_collection");
    EXPECT_NE(l["key"], "gpu_metric_sampling");
  }
}

TEST(MetricsReport, OnlyTheSectionsWhoseMetricsWereCollected) {
  const auto keys = section_keys(report_json(two_kernels(testing::sol(70, 30, 30, 20, 10, 2e6)).trace()));
  EXPECT_TRUE(has(keys, "speed_of_light"));
  for (const char* key : {"memory_workload", "achieved_occupancy", "warp_stalls", "tensor_cores", "roofline"})
    EXPECT_FALSE(has(keys, key)) << key;
  // The sections sit after Launch configuration, before Memory operations.
  const auto at = [&](const std::string& k) { return std::find(keys.begin(), keys.end(), k) - keys.begin(); };
  EXPECT_EQ(at("speed_of_light"), at("launch_configuration") + 1);
  EXPECT_EQ(at("memory"), at("speed_of_light") + 1);  // Memory operations
}

TEST(MetricsReport, TopCutsTheMetricTables) {
  const json r = report_json(two_kernels(testing::sol(70, 30, 30, 20, 10, 2e6) + testing::occupancy(40, 25)).trace(),
                             1);
  const json& sol = section(r, "speed_of_light")["tables"][0];
  EXPECT_EQ(sol["rows"].size(), 1u);
  EXPECT_EQ(sol["rows_omitted"], 1);
  EXPECT_EQ(sol["rows"][0]["name"], "first");
  EXPECT_EQ(sol["rows"][0]["bound"], "compute");
  EXPECT_EQ(section(r, "achieved_occupancy")["tables"][0]["rows_omitted"], 1);
}

TEST(MetricsReport, KernelsWithoutMetricsAreCounted) {
  TraceBuilder b = two_kernels({});
  testing::add_metrics(b.trace(), b.trace().kernels.front().correlation_id, testing::sol(70, 30, 30, 20, 10, 2e6));
  const json r = report_json(b.trace());
  const json& s = section(r, "speed_of_light");
  ASSERT_EQ(s["notes"].size(), 1u);
  EXPECT_EQ(s["notes"][0], "1 kernel without metrics (not profiled, or their measurement failed: see Data quality).");
}

TEST(MetricsReport, FailedCollectionSaysTheTraceWasStillCaptured) {
  TraceBuilder b;
  b.run(0, 10 * kMs);
  testing::launches(b, "k", 2, 1 * kMs, kMs, {});
  MetricCollection m;
  m.pid = 1;
  m.kind = "kernel";
  m.status =
      "ERR_NVGPUCTRPERM: no permission to read GPU performance counters (run as root, or set "
      "NVreg_RestrictProfilingToAdminUsers=0)";
  b.trace().metric_collections.push_back(m);
  const std::string text = render_report(b.trace(), {}, parse_report_format("text"));
  EXPECT_NE(text.find("Metric collection    failed    pid 1: ERR_NVGPUCTRPERM: no permission"), std::string::npos)
      << text;
  EXPECT_NE(text.find("the trace was still captured, without kernel metrics"), std::string::npos);
  EXPECT_EQ(text.find("Speed of light"), std::string::npos);
}

TEST(MetricsReport, PartialCollectionCountsTheFailedLaunches) {
  TraceBuilder b;
  b.run(0, 10 * kMs);
  b.trace().metric_collections.push_back({1, "kernel", "ok", "GH100", 12, 40, 98, 2, 0, 0, ""});
  const json r = report_json(b.trace());
  const json& q = section(r, "data_quality");
  const json& line = q["lines"].back();
  EXPECT_EQ(line["key"], "metric_collection");
  EXPECT_EQ(line["value"], "partial");
  EXPECT_EQ(line["note"],
            "pid 1, GH100, 12 passes per kernel, 40 metrics, 98 launches profiled, 2 failed: failed "
            "launches have no metrics; their timings are in the trace");
}

TEST(MetricsReport, GpuUtilizationSeriesInBaseUnits) {
  TraceBuilder b;
  b.run(0, 10 * kMs);
  for (int i = 0; i < 4; ++i)
    testing::add_sample(b.trace(), "dram__bytes_read.sum.per_second", i * kMs, (i + 1) * kMs, 1e12 * (i + 1));
  const json r = report_json(b.trace());
  const json& s = section(r, "gpu_utilization");
  const json& stats = s["tables"][0]["rows"][0];
  EXPECT_EQ(stats["metric"], "DRAM read bandwidth");
  EXPECT_EQ(stats["unit"], "bytes/s");
  EXPECT_EQ(stats["max"], 4e12);
  EXPECT_EQ(stats["over_time"], "\u2583\u2585\u2586\u2588");  // 1..4 TB/s on 0..4 TB/s: levels 2, 4, 5, 7 of 0..7
  const json& series = s["tables"][1];
  EXPECT_EQ(series["rows"].size(), 4u);
  EXPECT_EQ(series["rows"][2]["dram__bytes_read.sum.per_second"], 3e12);
  EXPECT_EQ(series["columns"][1]["unit"], "bytes/s");
}

TEST(MetricsReport, GpmSamplesAreLabelledAndNamedAsSuch) {
  // NVML GPM's ~100 ms windows: GPM's own labels and short column titles, and a note that says
  // where the samples come from.
  TraceBuilder b;
  b.run(0, 500 * kMs);
  for (int i = 0; i < 4; ++i) {
    testing::add_sample(b.trace(), "gpm__sm_active.pct", i * 100 * kMs, (i + 1) * 100 * kMs, 25.0 * i);
    testing::add_sample(b.trace(), "gpm__pcie_to_gpu_bytes.per_second", i * 100 * kMs, (i + 1) * 100 * kMs, 1e9);
  }
  const json r = report_json(b.trace());
  const json& s = section(r, "gpu_utilization");
  const json& stats = s["tables"][0];
  EXPECT_EQ(stats["rows"][0]["metric"], "SM active");
  EXPECT_EQ(stats["rows"][1]["metric"], "PCIe to the GPU");
  EXPECT_EQ(stats["rows"][0]["mean"], 37.5);
  EXPECT_EQ(stats["notes"][0].get<std::string>().rfind("NVML GPM samples every 100.0 ms over 400.0 ms", 0), 0u)
      << stats["notes"][0];
  EXPECT_EQ(s["tables"][1]["columns"][1]["title"], "SM");
  EXPECT_EQ(s["tables"][1]["columns"][2]["title"], "PCIe in");
}

TEST(MetricsUnits, FlopRatesAndIntensity) {
  using report::format_value;
  using report::Unit;
  EXPECT_EQ(format_value({687.5e12, Unit::FlopsPerSecond}), "687.5 TFLOP/s");
  EXPECT_EQ(format_value({1.63e12, Unit::FlopsPerSecond}), "1.63 TFLOP/s");
  EXPECT_EQ(format_value({812.5e9, Unit::FlopsPerSecond}), "812.5 GFLOP/s");
  EXPECT_EQ(format_value({0.625, Unit::FlopsPerByte}), "0.62 FLOP/B");
  EXPECT_EQ(format_value({9.996, Unit::FlopsPerByte}), "10.0 FLOP/B");
  EXPECT_EQ(format_value({673.53, Unit::FlopsPerByte}), "674 FLOP/B");
  EXPECT_STREQ(report::unit_name(Unit::FlopsPerSecond), "flop/s");
  EXPECT_STREQ(report::unit_name(Unit::FlopsPerByte), "flop/byte");
}

}  // namespace
}  // namespace gpuscope

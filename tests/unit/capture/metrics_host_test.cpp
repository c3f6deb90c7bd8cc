// MetricsHost against the real libcupti's host API, for GH100 on a CPU (no GPU needed):
// every name in gpuscope's metric table exists on the chip, each set builds a configuration,
// and bad chips and names give errors that name the culprit. This is what keeps
// src/model/metric_sets.cpp honest. Skipped where libcupti (CUDA 13) cannot be loaded.
#include "capture/metrics_host.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "gpuscope/metric_sets.h"

namespace gpuscope::capture {
namespace {

constexpr const char* kChip = "GH100";

class MetricsHostTest : public ::testing::Test {
 protected:
  void SetUp() override {
#if defined(__SANITIZE_ADDRESS__)
    // libcupti dlopens libnvperf_host.so with RTLD_DEEPBIND, which AddressSanitizer refuses by
    // aborting the process (google/sanitizers#611): CI's ASan build runs these tests skipped.
    GTEST_SKIP() << "CUPTI's host API cannot load under AddressSanitizer (RTLD_DEEPBIND)";
#endif
    const CuptiLibrary& cupti = load_cupti("");
    if (!cupti.ok) GTEST_SKIP() << "libcupti not loadable here: " << cupti.error;
    if (!cupti.api.profiler.has_host()) GTEST_SKIP() << "this libcupti has no profiler host API";
    api_ = &cupti.api;
  }

  std::unique_ptr<MetricsHost> host(ProfilerKind kind = ProfilerKind::RangeProfiler) {
    std::string error;
    auto made = MetricsHost::create(*api_, kChip, kind, error);
    EXPECT_TRUE(made) << error;
    return made;
  }

  // Builds a configuration of `names` on a fresh host object; returns its pass count (0 on error).
  size_t passes(const std::vector<std::string>& names, ProfilerKind kind = ProfilerKind::RangeProfiler) {
    auto h = host(kind);
    if (!h) return 0;
    MetricConfig config;
    const std::string error = h->build_config(names, config);
    EXPECT_EQ(error, "");
    EXPECT_FALSE(config.image.empty());
    return error.empty() ? config.passes : 0;
  }

  const CuptiApi* api_ = nullptr;
};

std::vector<std::string> names_of(const MetricSet& set) {
  std::vector<std::string> names;
  for (const MetricInfo& m : set.metrics) names.push_back(m.name);
  return names;
}

TEST_F(MetricsHostTest, SupportedChipsIncludeHopper) {
  std::vector<std::string> chips;
  ASSERT_EQ(supported_chips(*api_, chips), "");
  EXPECT_NE(std::find(chips.begin(), chips.end(), kChip), chips.end());
}

TEST_F(MetricsHostTest, EverySetValidatesAndBuildsAConfiguration) {
  auto h = host();
  ASSERT_TRUE(h);
  for (const MetricSet& set : metric_sets()) {
    // Each name alone first, so a failure names the metric, not just the set.
    for (const MetricInfo& m : set.metrics) EXPECT_EQ(h->validate({m.name}), "") << set.name;
    const size_t n = passes(names_of(set));
    EXPECT_GE(n, 1u) << set.name;
    std::printf("[ passes   ] %-10s %2zu metrics: %zu pass(es) on %s\n", set.name, set.metrics.size(), n, kChip);
  }
}

TEST_F(MetricsHostTest, FullBuildsToo) {
  std::vector<std::string> full;
  std::string error;
  ASSERT_TRUE(expand_metric_sets("full", {}, full, error)) << error;
  const size_t n = passes(full);
  EXPECT_GE(n, 1u);
  std::printf("[ passes   ] full       %2zu metrics: %zu pass(es) on %s\n", full.size(), n, kChip);
}

TEST_F(MetricsHostTest, GpuSampleMetricsFitOnePmSamplingPass) {
  auto h = host(ProfilerKind::PmSampling);
  ASSERT_TRUE(h);
  std::vector<std::string> names;
  for (const MetricInfo& m : gpu_sample_metrics()) {
    EXPECT_EQ(h->validate({m.name}), "");
    names.push_back(m.name);
  }
  // PM sampling collects one pass only, so the whole list must fit in one.
  EXPECT_EQ(passes(names, ProfilerKind::PmSampling), 1u);
}

TEST_F(MetricsHostTest, PmSamplingRefusesMultiPassMetrics) {
  // CUPTI configures sm__throughput for PM sampling in many passes, which it cannot sample.
  auto h = host(ProfilerKind::PmSampling);
  ASSERT_TRUE(h);
  const std::string error = h->validate(
      {"dram__throughput.avg.pct_of_peak_sustained_elapsed", "sm__throughput.avg.pct_of_peak_sustained_elapsed"});
  EXPECT_EQ(error.rfind("metric 'sm__throughput.avg.pct_of_peak_sustained_elapsed' needs ", 0), 0u) << error;
  EXPECT_NE(error.find("PM sampling collects in one"), std::string::npos) << error;
}

TEST_F(MetricsHostTest, UnknownMetricIsNamed) {
  auto h = host();
  ASSERT_TRUE(h);
  const std::string error = h->validate({"dram__bytes_read.sum", "foo.sum", "sm__cycles_active.avg"});
  EXPECT_EQ(error.rfind("metric 'foo.sum' is not available on GH100", 0), 0u) << error;
  EXPECT_NE(error.find("CUPTI_ERROR"), std::string::npos) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos);

  MetricConfig config;
  EXPECT_NE(h->build_config({"foo.sum"}, config), "");
  EXPECT_TRUE(config.image.empty());
}

TEST_F(MetricsHostTest, UnknownChipListsTheSupportedOnes) {
  std::string error;
  EXPECT_FALSE(MetricsHost::create(*api_, "XX100", ProfilerKind::RangeProfiler, error));
  EXPECT_EQ(error.rfind("chip 'XX100' is not supported by this CUPTI (supported: ", 0), 0u) << error;
  EXPECT_NE(error.find("GH100"), std::string::npos) << error;
}

TEST_F(MetricsHostTest, ListsDescribedMetricsOfEveryType) {
  auto h = host();
  ASSERT_TRUE(h);
  std::vector<MetricDescription> metrics;
  ASSERT_EQ(h->list_metrics(true, metrics), "");
  EXPECT_GT(metrics.size(), 1000u);
  auto dram = std::find_if(metrics.begin(), metrics.end(),
                           [](const MetricDescription& m) { return m.name == "dram__throughput"; });
  ASSERT_NE(dram, metrics.end());
  EXPECT_EQ(dram->type, "throughput");
  EXPECT_FALSE(dram->description.empty());
  EXPECT_NE(std::find(dram->submetrics.begin(), dram->submetrics.end(), ".avg.pct_of_peak_sustained_elapsed"),
            dram->submetrics.end());
  for (const char* type : {"counter", "ratio", "throughput"}) {
    EXPECT_TRUE(std::any_of(metrics.begin(), metrics.end(), [&](const MetricDescription& m) { return m.type == type; }))
        << type;
  }
}

TEST_F(MetricsHostTest, OneConfigurationPerObject) {
  auto h = host();
  ASSERT_TRUE(h);
  MetricConfig config;
  ASSERT_EQ(h->build_config({"gpu__time_duration.sum"}, config), "");
  EXPECT_EQ(config.passes, 1u);
  EXPECT_NE(h->build_config({"dram__bytes_read.sum"}, config), "");
}

// Other chips lack some of the Hopper-written sets' metrics: what select_for_chip keeps still
// builds a configuration there, and the sets lose only what the chip does not have.
TEST_F(MetricsHostTest, TheSetsAdaptToChipsThatLackSomeOfTheirMetrics) {
  std::vector<std::string> full;
  std::string error;
  ASSERT_TRUE(expand_metric_sets("full", {}, full, error)) << error;
  for (const char* chip : {"GA100", "AD102", "GB100"}) {
    auto h = MetricsHost::create(*api_, chip, ProfilerKind::RangeProfiler, error);
    ASSERT_TRUE(h) << error;
    std::vector<std::string> on_chip;
    ASSERT_EQ(h->base_metric_names(on_chip), "");
    const ChipSelection sel = select_for_chip(full, {}, on_chip);
    EXPECT_FALSE(sel.dropped.empty()) << chip;
    EXPECT_TRUE(sel.missing_required.empty());
    EXPECT_NE(std::find(sel.dropped.begin(), sel.dropped.end(), "sm__ops_path_tensor_src_fp16.sum"), sel.dropped.end())
        << chip;
    EXPECT_NE(std::find(sel.kept.begin(), sel.kept.end(), "gpu__time_duration.sum"), sel.kept.end()) << chip;
    EXPECT_EQ(sel.kept.size() + sel.dropped.size(), full.size());
    MetricConfig config;
    EXPECT_EQ(h->build_config(sel.kept, config), "") << chip;
    EXPECT_GT(config.passes, 0u) << chip;
  }
  // On the chip the sets are written for, nothing is dropped.
  std::vector<std::string> gh100;
  ASSERT_EQ(host()->base_metric_names(gh100), "");
  EXPECT_TRUE(select_for_chip(full, {}, gh100).dropped.empty());
}

// What the capture library does at its first measured launch (kernel_profiler.cpp).
TEST_F(MetricsHostTest, ConfigureForChipAdaptsTheSetsButNotTheUsersMetrics) {
  std::vector<std::string> full;
  std::string error;
  ASSERT_TRUE(expand_metric_sets("full", {}, full, error)) << error;

  ChipConfig hopper = configure_for_chip(*api_, kChip, full, {});
  ASSERT_TRUE(hopper.host) << hopper.error;
  EXPECT_EQ(hopper.collected, full);
  EXPECT_TRUE(hopper.dropped.empty());
  EXPECT_EQ(hopper.config.passes, 22u);

  ChipConfig ada = configure_for_chip(*api_, "AD102", full, {"dram__bytes_read.sum"});
  ASSERT_TRUE(ada.host) << ada.error;
  EXPECT_FALSE(ada.dropped.empty());
  EXPECT_EQ(ada.collected.size() + ada.dropped.size(), full.size());
  EXPECT_GT(ada.config.passes, 0u);
  EXPECT_NE(std::find(ada.collected.begin(), ada.collected.end(), "dram__bytes_read.sum"), ada.collected.end());

  ChipConfig refused = configure_for_chip(*api_, "AD102", full, {"sm__ops_path_tensor_src_fp16.sum"});
  EXPECT_FALSE(refused.host);
  EXPECT_NE(refused.error.find("sm__ops_path_tensor_src_fp16.sum"), std::string::npos) << refused.error;

  // A name no chip has: dropped from the sets' list; named in the error when it is the user's.
  ChipConfig typo = configure_for_chip(*api_, kChip, {"gpu__time_duration.sum", "sm__no_such_metric.sum"}, {});
  ASSERT_TRUE(typo.host) << typo.error;
  EXPECT_EQ(typo.dropped, std::vector<std::string>{"sm__no_such_metric.sum"});
  typo = configure_for_chip(*api_, kChip, {"gpu__time_duration.sum", "sm__no_such_metric.sum"},
                            {"sm__no_such_metric.sum"});
  EXPECT_FALSE(typo.host);
  EXPECT_NE(typo.error.find("sm__no_such_metric.sum"), std::string::npos) << typo.error;
}

TEST(SelectForChip, TheUsersOwnMetricsAreNeverDropped) {
  const ChipSelection sel = select_for_chip({"a__x.sum", "b__y.avg.pct", "c__z.sum"}, {"c__z.sum"}, {"a__x"});
  EXPECT_EQ(sel.kept, std::vector<std::string>{"a__x.sum"});
  EXPECT_EQ(sel.dropped, std::vector<std::string>{"b__y.avg.pct"});
  EXPECT_EQ(sel.missing_required, std::vector<std::string>{"c__z.sum"});
}

}  // namespace
}  // namespace gpuscope::capture

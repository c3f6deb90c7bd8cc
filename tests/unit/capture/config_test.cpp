// GPUSCOPE_INJECT_CONFIG parsing, process helpers and CUPTI compatibility checks.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "capture/config.h"
#include "capture/cupti_compat.h"
#include "capture/process_info.h"

namespace gpuscope::capture {
namespace {

TEST(CaptureConfig, FullConfig) {
  ConfigResult r = parse_config(
      "spool=/tmp/run/cap;driver_api=1;flush_ms=250;sync_flush_ms=0;buffer_kb=4096;cupti=/opt/libcupti.so.13;nccl_calls=0",
      true);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_FALSE(r.config.nccl_calls);
  EXPECT_EQ(r.config.sync_flush_ms, 0u);
  EXPECT_EQ(r.config.spool_prefix, "/tmp/run/cap");
  EXPECT_TRUE(r.config.driver_api);
  EXPECT_EQ(r.config.flush_ms, 250u);
  EXPECT_EQ(r.config.buffer_kb, 4096u);
  EXPECT_EQ(r.config.buffer_bytes(), 4096u * 1024u);
  EXPECT_EQ(r.config.cupti_path, "/opt/libcupti.so.13");
}

TEST(CaptureConfig, Defaults) {
  ConfigResult r = parse_config("spool=/a/b", true);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_FALSE(r.config.driver_api);
  EXPECT_TRUE(r.config.nccl_calls);
  EXPECT_EQ(r.config.flush_ms, 500u);
  EXPECT_EQ(r.config.sync_flush_ms, 10u);
  EXPECT_EQ(r.config.buffer_kb, 8192u);
  EXPECT_TRUE(r.config.cupti_path.empty());
}

TEST(CaptureConfig, EmptySegmentsAreIgnored) {
  ConfigResult r = parse_config(";spool=/a;;flush_ms=0;", true);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.config.flush_ms, 0u);
}

TEST(CaptureConfig, ValueMayContainEquals) {
  ConfigResult r = parse_config("spool=/tmp/a=b", true);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.config.spool_prefix, "/tmp/a=b");
}

TEST(CaptureConfig, UnsetOrEmpty) {
  ConfigResult r = parse_config(nullptr, true);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("GPUSCOPE_INJECT_CONFIG is not set"), std::string::npos);
  r = parse_config("", true);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("no spool="), std::string::npos);
}

TEST(CaptureConfig, SpoolOptionalForTheFloor) {
  ConfigResult r = parse_config("flush_ms=100", false);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(r.config.spool_prefix.empty());
  EXPECT_EQ(r.config.flush_ms, 100u);
  EXPECT_TRUE(parse_config(nullptr, false).ok == false);
}

struct BadCase {
  const char* text;
  const char* message_part;
};

class CaptureConfigBad : public ::testing::TestWithParam<BadCase> {};

TEST_P(CaptureConfigBad, IsRejectedWithAUsefulMessage) {
  ConfigResult r = parse_config(GetParam().text, true);
  EXPECT_FALSE(r.ok) << GetParam().text;
  EXPECT_NE(r.error.find(GetParam().message_part), std::string::npos) << r.error;
  EXPECT_EQ(r.error.find('\n'), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(
    Inputs, CaptureConfigBad,
    ::testing::Values(BadCase{"spool=relative/path", "absolute path"},
                      BadCase{"spool=", "absolute path"},
                      BadCase{"spool=/a;driver_api=2", "0 or 1"},
                      BadCase{"spool=/a;driver_api=", "0 or 1"},
                      BadCase{"spool=/a;nccl_calls=yes", "0 or 1"},
                      BadCase{"spool=/a;flush_ms=-1", "0..60000"},
                      BadCase{"spool=/a;flush_ms=60001", "0..60000"},
                      BadCase{"spool=/a;flush_ms=12ms", "0..60000"},
                      BadCase{"spool=/a;sync_flush_ms=60001", "0..60000"},
                      BadCase{"spool=/a;sync_flush_ms=1;sync_flush_ms=2", "given twice"},
                      BadCase{"spool=/a;flush_ms=99999999999999999999", "0..60000"},
                      BadCase{"spool=/a;buffer_kb=63", "64..262144"},
                      BadCase{"spool=/a;buffer_kb=262145", "64..262144"},
                      BadCase{"spool=/a;buffer_kb= 8", "64..262144"},
                      BadCase{"spool=/a;cupti=", "libcupti"},
                      BadCase{"spool=/a;colour=blue", "unknown key 'colour'"},
                      BadCase{"spool=/a;spool=/b", "given twice"},
                      BadCase{"spool=/a;noequals", "expected key=value"},
                      BadCase{"spool=/a;=x", "expected key=value"},
                      BadCase{"driver_api=1", "no spool="},
                      BadCase{"spool=/a;api=thin", "lean or full"},
                      BadCase{"spool=/a;range=nvtx_hex:zz", "profiler_api or nvtx_hex"},
                      BadCase{"spool=/a;range=nvtx_hex:", "profiler_api or nvtx_hex"},
                      BadCase{"spool=/a;range=nvtx_hex:4074", "non-empty message"},
                      BadCase{"spool=/a;range_end=repeat", "need range="},
                      BadCase{"spool=/a;range=profiler_api;range_repeat=2", "needs range_end=repeat"},
                      BadCase{"spool=/a;range=profiler_api;range_end=repeat;range_repeat=0", "a count >= 1"},
                      BadCase{"spool=/a;range=profiler_api;delay_ms=5", "cannot be combined"},
                      BadCase{"spool=/a;delay_ms=0", "1..86400000"}));

TEST(CaptureConfig, ScopeKeys) {
  // "train@dom" hex-encoded: the message and its domain.
  ConfigResult r = parse_config("spool=/a;api=lean;range=nvtx_hex:747261696e40646f6d;range_end=repeat;range_repeat=3", true);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_FALSE(r.config.api_full);
  EXPECT_EQ(r.config.range, InjectConfig::Range::Nvtx);
  EXPECT_EQ(r.config.range_nvtx, "train");
  EXPECT_EQ(r.config.range_domain, "dom");
  EXPECT_TRUE(r.config.range_repeat);
  EXPECT_EQ(r.config.range_repeat_limit, 3u);
  r = parse_config("spool=/a;duration_ms=2500", true);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.config.range, InjectConfig::Range::Timer);
  EXPECT_EQ(r.config.delay_ms, 0u);
  EXPECT_EQ(r.config.duration_ms, 2500u);
  r = parse_config("spool=/a", true);
  EXPECT_TRUE(r.config.api_full);
  EXPECT_EQ(r.config.range, InjectConfig::Range::Whole);
}

TEST(CaptureConfig, SpoolPath) { EXPECT_EQ(spool_path("/tmp/cap", 4242), "/tmp/cap.4242.spool"); }

TEST(CaptureProcessInfo, CommandLineFromRaw) {
  using namespace std::string_literals;
  EXPECT_EQ(command_line_from_raw("python\0train.py\0--lr\0" "0.1\0"s), "python train.py --lr 0.1");
  EXPECT_EQ(command_line_from_raw(""), "");
  EXPECT_EQ(command_line_from_raw("./a.out\0"s), "./a.out");
  EXPECT_FALSE(read_command_line().empty());  // this test binary's own command line
}

// The launcher's environment as the test sets it (a lambda without captures: a plain function).
const std::map<std::string, std::string>* g_env = nullptr;
const char* fake_getenv(const char* name) {
  const auto it = g_env->find(name);
  return it == g_env->end() ? nullptr : it->second.c_str();
}

TEST(CaptureProcessInfo, DistributedIdentityFromTheLauncher) {
  const std::map<std::string, std::string> torchrun{{"RANK", "3"}, {"LOCAL_RANK", "1"}, {"WORLD_SIZE", "8"}},
      mpi{{"OMPI_COMM_WORLD_RANK", "5"}, {"OMPI_COMM_WORLD_SIZE", "6"}},
      slurm{{"SLURM_PROCID", "2"}, {"SLURM_LOCALID", "0"}, {"SLURM_NTASKS", "4"}},
      junk{{"RANK", "three"}, {"SLURM_PROCID", "-1"}}, none{};
  g_env = &torchrun;
  EXPECT_EQ(distributed_identity(fake_getenv), "3 1 8");
  g_env = &mpi;
  EXPECT_EQ(distributed_identity(fake_getenv), "5 -1 6");  // no local rank set
  g_env = &slurm;
  EXPECT_EQ(distributed_identity(fake_getenv), "2 0 4");
  g_env = &junk;  // not numbers: no rank rather than a wrong one
  EXPECT_EQ(distributed_identity(fake_getenv), "");
  g_env = &none;
  EXPECT_EQ(distributed_identity(fake_getenv), "");
}

TEST(CaptureProcessInfo, RealtimeIsNanosecondsSinceEpoch) {
  const int64_t now = realtime_ns();
  EXPECT_GT(now, int64_t{1600000000} * 1000000000);  // after 2020
}

TEST(CuptiCompat, VersionCheck) {
  EXPECT_TRUE(cupti_version_supported(130000));
  EXPECT_TRUE(cupti_version_supported(130001));
  EXPECT_TRUE(cupti_version_supported(130105));
  EXPECT_FALSE(cupti_version_supported(28));      // CUDA 12.9
  EXPECT_FALSE(cupti_version_supported(24));      // CUDA 12.6
  EXPECT_FALSE(cupti_version_supported(140000));  // a future major: record layouts may differ
  EXPECT_FALSE(cupti_version_supported(0));
}

TEST(CuptiCompat, AdviceNamesTheLikelyCause) {
  EXPECT_NE(std::string(cupti_error_advice(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)).find("Nsight"),
            std::string::npos);
  EXPECT_NE(std::string(cupti_error_advice(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)).find("ERR_NVGPUCTRPERM"),
            std::string::npos);
  EXPECT_NE(std::string(cupti_error_advice(CUPTI_ERROR_NOT_INITIALIZED)).find("GPU is visible"), std::string::npos);
  EXPECT_STREQ(cupti_error_name(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED),
               "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED");
}


TEST(CaptureConfig, MetricKeys) {
  // kernel_hex: "gemm|spmm" in hex.
  ConfigResult r = parse_config(
      "spool=/tmp/c;metrics=gpu__time_duration.sum,dram__bytes_read.sum;kernel_hex=67656d6d7c73706d6d;"
      "launch_skip=3;launch_count=2;gpu_metrics_hz=10000;required=dram__bytes_read.sum",
      true);
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(r.config.metrics.size(), 2u);
  EXPECT_EQ(r.config.required_metrics, std::vector<std::string>{"dram__bytes_read.sum"});
  EXPECT_EQ(r.config.metrics[1], "dram__bytes_read.sum");
  EXPECT_EQ(r.config.kernel_regex, "gemm|spmm");
  EXPECT_EQ(r.config.launch_skip, 3u);
  EXPECT_EQ(r.config.launch_count, 2u);
  EXPECT_EQ(r.config.gpu_metrics_hz, 10000u);
  EXPECT_FALSE(r.config.gpu_metrics_pm);  // NVML GPM unless asked for PM sampling
  r = parse_config("spool=/tmp/c;gpu_metrics_hz=1;gpu_metrics_source=pm", true);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.config.gpu_metrics_hz, 1u);
  EXPECT_TRUE(r.config.gpu_metrics_pm);
}

TEST(CaptureConfig, MetricKeyDefaultsAndErrors) {
  ConfigResult r = parse_config("spool=/tmp/c", true);
  ASSERT_TRUE(r.ok);
  EXPECT_TRUE(r.config.metrics.empty());
  EXPECT_EQ(r.config.launch_count, UINT64_MAX);
  EXPECT_EQ(r.config.gpu_metrics_hz, 0u);
  EXPECT_FALSE(parse_config("spool=/tmp/c;kernel_hex=6", true).ok);         // odd length
  EXPECT_FALSE(parse_config("spool=/tmp/c;kernel_hex=zz", true).ok);        // not hex
  EXPECT_FALSE(parse_config("spool=/tmp/c;launch_count=0", true).ok);       // nothing to measure
  EXPECT_FALSE(parse_config("spool=/tmp/c;gpu_metrics_hz=0", true).ok);     // below 1 Hz
  EXPECT_FALSE(parse_config("spool=/tmp/c;gpu_metrics_hz=20001", true).ok);
  EXPECT_FALSE(parse_config("spool=/tmp/c;gpu_metrics_source=nvml", true).ok);
  EXPECT_FALSE(parse_config("spool=/tmp/c;gpu_metrics_source=pm;gpu_metrics_source=pm", true).ok);
  EXPECT_FALSE(parse_config("spool=/tmp/c;metrics=,", true).ok);            // no names
  EXPECT_FALSE(parse_config("spool=/tmp/c;required=", true).ok);
  EXPECT_TRUE(r.config.required_metrics.empty());
  EXPECT_FALSE(parse_config("spool=/tmp/c;launch_skip=-1", true).ok);
}

}  // namespace
}  // namespace gpuscope::capture

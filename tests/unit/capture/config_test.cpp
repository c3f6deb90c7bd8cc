// GPUSCOPE_INJECT_CONFIG parsing, process helpers and CUPTI compatibility checks.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>

#include "capture/config.h"
#include "capture/cupti_compat.h"
#include "capture/process_info.h"

namespace gpuscope::capture {
namespace {

TEST(CaptureConfig, FullConfig) {
  ConfigResult r = parse_config(
      "spool=/tmp/run/cap;driver_api=1;flush_ms=250;sync_flush_ms=0;buffer_kb=4096;cupti=/opt/"
      "libcupti.so.13;nccl_calls=0",
      true);
  ASSERT_TRUE(r.ok) << r.error;
  const CaptureOptions& o = r.config.options;
  EXPECT_FALSE(o.nccl_calls);
  EXPECT_EQ(o.sync_flush_ms, 0u);
  EXPECT_EQ(o.spool, "/tmp/run/cap");
  EXPECT_TRUE(o.driver_api);
  EXPECT_EQ(o.flush_ms, 250u);
  EXPECT_EQ(o.buffer_kb, 4096u);
  EXPECT_EQ(r.config.buffer_bytes(), 4096u * 1024u);
  EXPECT_EQ(o.cupti, "/opt/libcupti.so.13");
}

TEST(CaptureConfig, Defaults) {
  ConfigResult r = parse_config("spool=/a/b", true);
  ASSERT_TRUE(r.ok) << r.error;
  const CaptureOptions& o = r.config.options;
  EXPECT_FALSE(o.driver_api);
  EXPECT_TRUE(o.nccl_calls);
  EXPECT_EQ(o.flush_ms, 500u);
  EXPECT_EQ(o.sync_flush_ms, 10u);
  EXPECT_EQ(o.buffer_kb, 8192u);
  EXPECT_TRUE(o.cupti.empty());
  EXPECT_TRUE(r.config.metrics.empty());
  EXPECT_EQ(r.config.window.kind, RecordingWindow::Kind::Whole);
  EXPECT_EQ(describe(o), "");  // the spool is no user option
}

TEST(CaptureConfig, EmptySegmentsAreIgnored) {
  ConfigResult r = parse_config(";spool=/a;;flush_ms=0;", true);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.config.options.flush_ms, 0u);
}

TEST(CaptureConfig, ValueMayContainEquals) {
  ConfigResult r = parse_config("spool=/tmp/a=b", true);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.config.options.spool, "/tmp/a=b");
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
  EXPECT_TRUE(r.config.options.spool.empty());
  EXPECT_EQ(r.config.options.flush_ms, 100u);
  EXPECT_TRUE(parse_config(nullptr, false).ok == false);
}

// Every option away from its default, with text that needs escaping: what the CLI writes, the
// library reads back unchanged. Two sets of options, since some exclude others (--delay and
// --capture-range; --gpu-metrics and --metrics); the loop over the table makes a new option fail
// here until it is given a value below.
TEST(CaptureConfig, EveryOptionSurvivesTheRoundTrip) {
  CaptureOptions ranged;
  ranged.spool = "/tmp/a;b%c,d";
  ranged.cupti = "/opt/cupti dir/libcupti.so";
  ranged.buffer_kb = 64;
  ranged.driver_api = true;
  ranged.driver_launches = false;
  ranged.nccl_calls = false;
  ranged.flush_ms = 0;
  ranged.sync_flush_ms = 60000;
  ranged.api = "lean";
  ranged.pytorch = "modules";
  ranged.capture_range = "nvtx:st;ep,1%@dom\tx";
  ranged.capture_range_end = "repeat:7";
  ranged.metric_sets = "sol,stalls";
  ranged.metrics = {"dram__bytes_read.sum", "lts__t_bytes.sum"};
  ranged.kernel = "gemm;|spmm,%";
  ranged.launch_skip = UINT64_MAX;
  ranged.launch_count = 1;
  CaptureOptions timed;
  timed.spool = "/tmp/t";
  timed.delay_ms = 1500;
  timed.duration_ms = 86'400'000;
  timed.gpu_metrics_hz = 20000;
  timed.gpu_metrics_source = "pm";
  timed.source = true;
  timed.source_period = 31;
  for (const OptionSpec& spec : capture_option_table())
    EXPECT_FALSE(is_default(ranged, spec) && is_default(timed, spec)) << spec.name << " has no test value";
  for (const CaptureOptions* options : {&ranged, &timed}) {
    const std::string text = config_string(*options);
    EXPECT_EQ(text.find('\t'), std::string::npos) << text;
    const ConfigResult r = parse_config(text.c_str(), true);
    ASSERT_TRUE(r.ok) << r.error;
    for (const OptionSpec& spec : capture_option_table())
      EXPECT_EQ(option_text(r.config.options, spec), option_text(*options, spec)) << spec.name;
  }
  const ConfigResult r = parse_config(config_string(ranged).c_str(), true);
  EXPECT_EQ(r.config.window.kind, RecordingWindow::Kind::Nvtx);
  EXPECT_EQ(r.config.window.nvtx_message, "st;ep,1%");
  EXPECT_EQ(r.config.window.nvtx_domain, "dom\tx");
  EXPECT_TRUE(r.config.window.repeat);
  EXPECT_EQ(r.config.window.repeat_limit, 7u);
  // The library refuses the combinations the CLI refuses.
  timed.metric_sets = "sol";
  const ConfigResult both = parse_config(config_string(timed).c_str(), true);
  EXPECT_FALSE(both.ok);
  EXPECT_NE(both.error.find("cannot be combined"), std::string::npos) << both.error;
}

TEST(CaptureConfig, SecondsAreWrittenAsTheyAreGiven) {
  CaptureOptions o;
  const OptionSpec& delay = *find_capture_option("delay");
  EXPECT_EQ(set_option(o, delay, "1.5"), "");
  EXPECT_EQ(o.delay_ms, 1500u);
  EXPECT_EQ(option_text(o, delay), "1.5");
  EXPECT_EQ(set_option(o, delay, "0.0015"), "");
  EXPECT_EQ(o.delay_ms, 2u) << "rounded to the ms";
  EXPECT_EQ(option_text(o, delay), "0.002");
  EXPECT_EQ(set_option(o, delay, "2"), "");
  EXPECT_EQ(option_text(o, delay), "2");
  EXPECT_NE(set_option(o, delay, "0.0004"), "") << "more than 0 but below a ms";
  EXPECT_NE(set_option(o, delay, "86400.001"), "");
  EXPECT_NE(set_option(o, delay, "1e3"), "");
  EXPECT_NE(set_option(o, delay, "-1"), "");
  EXPECT_NE(set_option(o, delay, "1."), "");
}

TEST(CaptureConfig, FlagsComeFromTheNames) {
  EXPECT_EQ(option_flag(*find_capture_option("flush_ms")), "--flush-ms");
  EXPECT_EQ(option_flag(*find_capture_option("driver_api")), "--driver-api");
  EXPECT_EQ(option_flag(*find_capture_option("nccl_calls")), "--no-nccl-calls") << "a default-on switch";
  EXPECT_EQ(find_capture_option("colour"), nullptr);
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
    ::testing::Values(BadCase{"spool=relative/path", "absolute path"}, BadCase{"spool=", "absolute path"},
                      BadCase{"spool=/a;driver_api=2", "0 or 1"}, BadCase{"spool=/a;driver_api=", "0 or 1"},
                      BadCase{"spool=/a;nccl_calls=yes", "0 or 1"},
                      BadCase{"spool=/a;flush_ms=-1", "between 0 and 60000"},
                      BadCase{"spool=/a;flush_ms=60001", "between 0 and 60000"},
                      BadCase{"spool=/a;flush_ms=12ms", "between 0 and 60000"},
                      BadCase{"spool=/a;sync_flush_ms=60001", "between 0 and 60000"},
                      BadCase{"spool=/a;sync_flush_ms=1;sync_flush_ms=2", "given twice"},
                      BadCase{"spool=/a;flush_ms=99999999999999999999", "between 0 and 60000"},
                      BadCase{"spool=/a;buffer_kb=63", "between 64 and 262144"},
                      BadCase{"spool=/a;buffer_kb=262145", "between 64 and 262144"},
                      BadCase{"spool=/a;buffer_kb= 8", "between 64 and 262144"}, BadCase{"spool=/a;cupti=", "a path"},
                      BadCase{"spool=/a;colour=blue", "unknown key 'colour'"},
                      BadCase{"spool=/a;spool=/b", "given twice"}, BadCase{"spool=/a;noequals", "expected key=value"},
                      BadCase{"spool=/a;=x", "expected key=value"}, BadCase{"driver_api=1", "no spool="},
                      BadCase{"spool=/a;api=thin", "one of core,full,lean"},
                      BadCase{"spool=/a;kernel=a%2", "bad %-escape"}, BadCase{"spool=/a;kernel=a%zz", "bad %-escape"},
                      BadCase{"spool=/a;capture_range=nvtx:", "cudaProfilerApi or nvtx:NAME[@DOMAIN]"},
                      BadCase{"spool=/a;capture_range=nvtx:x@", "cudaProfilerApi or nvtx:NAME[@DOMAIN]"},
                      BadCase{"spool=/a;capture_range=nvtx:@dom", "cudaProfilerApi or nvtx:NAME[@DOMAIN]"},
                      BadCase{"spool=/a;capture_range_end=repeat", "needs --capture-range"},
                      BadCase{"spool=/a;capture_range=cudaProfilerApi;capture_range_end=repeat:0", "N >= 1"},
                      BadCase{"spool=/a;capture_range=cudaProfilerApi;delay=5", "cannot be combined"},
                      BadCase{"spool=/a;delay=0.0001", "at least 0.001 s"}));

TEST(CaptureConfig, ScopeKeys) {
  ConfigResult r = parse_config("spool=/a;api=lean;capture_range=nvtx:train@dom;capture_range_end=repeat:3", true);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.config.options.api, "lean");
  EXPECT_EQ(r.config.window.kind, RecordingWindow::Kind::Nvtx);
  EXPECT_EQ(r.config.window.nvtx_message, "train");
  EXPECT_EQ(r.config.window.nvtx_domain, "dom");
  EXPECT_TRUE(r.config.window.repeat);
  EXPECT_EQ(r.config.window.repeat_limit, 3u);
  r = parse_config("spool=/a;duration=2.5", true);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.config.window.kind, RecordingWindow::Kind::Timer);
  EXPECT_EQ(r.config.window.delay_ms, 0u);
  EXPECT_EQ(r.config.window.duration_ms, 2500u);
  r = parse_config("spool=/a;capture_range=cudaProfilerApi", true);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.config.window.kind, RecordingWindow::Kind::ProfilerApi);
  EXPECT_FALSE(r.config.window.repeat);
}

TEST(CaptureConfig, SpoolPath) { EXPECT_EQ(spool_path("/tmp/cap", 4242), "/tmp/cap.4242.spool"); }

TEST(CaptureProcessInfo, CommandLineFromRaw) {
  using namespace std::string_literals;
  EXPECT_EQ(command_line_from_raw("python\0train.py\0--lr\0"
                                  "0.1\0"s),
            "python train.py --lr 0.1");
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
  ConfigResult r = parse_config(
      "spool=/tmp/c;metrics=occupancy;metric=dram__bytes_read.sum;kernel=gemm|spmm;launch_skip=3;launch_count=2", true);
  ASSERT_TRUE(r.ok) << r.error;
  const std::vector<std::string>& names = r.config.metrics;
  ASSERT_GE(names.size(), 3u);
  EXPECT_EQ(names.front(), "gpu__time_duration.sum") << "always, and first: a replayed kernel is placed by it";
  EXPECT_NE(std::find(names.begin(), names.end(), "sm__warps_active.avg.pct_of_peak_sustained_active"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "dram__bytes_read.sum"), names.end());
  EXPECT_EQ(r.config.options.metrics, std::vector<std::string>{"dram__bytes_read.sum"}) << "the required ones";
  EXPECT_EQ(r.config.options.kernel, "gemm|spmm");
  EXPECT_EQ(r.config.options.launch_skip, 3u);
  EXPECT_EQ(r.config.options.launch_count, 2u);
  r = parse_config("spool=/tmp/c;gpu_metrics=1;gpu_metrics_source=pm", true);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.config.options.gpu_metrics_hz, 1u);
  EXPECT_EQ(r.config.options.gpu_metrics_source, "pm");
}

TEST(CaptureConfig, MetricKeyErrors) {
  EXPECT_FALSE(parse_config("spool=/tmp/c;metrics=sol;kernel=(", true).ok);        // not a regex
  EXPECT_FALSE(parse_config("spool=/tmp/c;kernel=gemm", true).ok);                 // no metrics to choose kernels for
  EXPECT_FALSE(parse_config("spool=/tmp/c;metrics=sol;launch_count=0", true).ok);  // nothing to measure
  EXPECT_FALSE(parse_config("spool=/tmp/c;gpu_metrics=0", true).ok);               // below 1 Hz
  EXPECT_FALSE(parse_config("spool=/tmp/c;gpu_metrics=20001", true).ok);
  EXPECT_FALSE(parse_config("spool=/tmp/c;gpu_metrics_source=nvml", true).ok);
  EXPECT_FALSE(parse_config("spool=/tmp/c;gpu_metrics_source=pm;gpu_metrics_source=pm", true).ok);
  EXPECT_FALSE(parse_config("spool=/tmp/c;metrics=bogus", true).ok);
  EXPECT_FALSE(parse_config("spool=/tmp/c;metrics=", true).ok);
  EXPECT_FALSE(parse_config("spool=/tmp/c;metric=a b", true).ok);
  EXPECT_FALSE(parse_config("spool=/tmp/c;metrics=sol;launch_skip=-1", true).ok);
}

}  // namespace
}  // namespace gpuscope::capture

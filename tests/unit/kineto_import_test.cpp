// The torch.profiler (Kineto) JSON importer on real traces (tests/data/kineto, README there):
// counts equal what the JSON holds (counted here with nlohmann::json on the whole file), times
// are exact, gzip and plain give the same trace, ops link to their kernels; and the CLI reports,
// diffs and imports them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "gpuscope/analysis_host_ops.h"
#include "gpuscope/analysis_steps.h"
#include "gpuscope/model.h"
#include "importers/importer.h"
#include "spool_builder.h"
#include "test_files.h"

namespace gpuscope {
namespace {

const std::string kPlain = testing::test_data("kineto/mlp_train.json");
const std::string kGzip = testing::test_data("kineto/mlp_train.json.gz");
const std::string kFused = testing::test_data("kineto/mlp_train_fused.json.gz");

// What the JSON holds, counted the obvious way.
struct Counts {
  size_t kernels = 0, runtime = 0, driver = 0, host_ops = 0, annotations = 0, memcpys = 0, memsets = 0;
  size_t gpu_memory_events = 0, steps = 0, external_ids_on_calls = 0;
  uint64_t memcpy_bytes = 0, memset_bytes = 0;
  int64_t base = 0;
  double first_kernel_ts = 0;
};

Counts count_json(const std::string& path) {
  const nlohmann::json doc = nlohmann::json::parse(testing::read_text_file(path));
  Counts c;
  c.base = doc.at("baseTimeNanoseconds").get<int64_t>();
  bool first = true;
  for (const nlohmann::json& e : doc.at("traceEvents")) {
    const std::string cat = e.value("cat", ""), name = e.value("name", ""), ph = e.value("ph", "");
    const nlohmann::json args = e.value("args", nlohmann::json::object());
    if (cat == "kernel") {
      ++c.kernels;
      if (first) c.first_kernel_ts = e.at("ts").get<double>(), first = false;
    }
    if (cat == "cuda_runtime") ++c.runtime;
    if (cat == "cuda_driver") ++c.driver;
    if ((cat == "cuda_runtime" || cat == "cuda_driver") && args.contains("External id")) ++c.external_ids_on_calls;
    if (cat == "cpu_op" || cat == "user_annotation" || cat == "python_function") ++c.host_ops;
    if (cat == "user_annotation") ++c.annotations;
    if (cat == "gpu_memcpy") ++c.memcpys, c.memcpy_bytes += args.at("bytes").get<uint64_t>();
    if (cat == "gpu_memset") ++c.memsets, c.memset_bytes += args.at("bytes").get<uint64_t>();
    if (ph == "i" && name == "[memory]" && args.value("Device Id", -1) >= 0) ++c.gpu_memory_events;
    if (ph == "X" && cat == "user_annotation" && name.rfind("ProfilerStep#", 0) == 0) ++c.steps;
  }
  return c;
}

template <class T>
uint64_t sum_bytes(const std::vector<T>& v) {
  uint64_t n = 0;
  for (const T& x : v) n += x.bytes;
  return n;
}

TEST(KinetoImport, CountsEqualTheJson) {
  const Counts c = count_json(kPlain);
  const Trace t = load_trace(kPlain);
  EXPECT_EQ(t.kernels.size(), c.kernels);
  size_t runtime = 0, driver = 0;
  for (const ApiCall& a : t.api_calls) (a.domain == ApiDomain::Runtime ? runtime : driver)++;
  EXPECT_EQ(runtime, c.runtime);
  EXPECT_EQ(driver, c.driver);
  EXPECT_EQ(t.host_ops.size(), c.host_ops);
  EXPECT_EQ(t.memcpys.size(), c.memcpys);
  EXPECT_EQ(sum_bytes(t.memcpys), c.memcpy_bytes);
  EXPECT_EQ(t.memsets.size(), c.memsets);
  EXPECT_EQ(sum_bytes(t.memsets), c.memset_bytes);
  EXPECT_EQ(t.memory_events.size(), c.gpu_memory_events);
  EXPECT_GE(t.external_correlations.size(), c.external_ids_on_calls);
  EXPECT_EQ(t.processes.size(), 1u);
  ASSERT_EQ(t.devices.size(), 1u);
  EXPECT_EQ(t.devices[0].name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(t.devices[0].sm_count, 132u);
  EXPECT_EQ(t.devices[0].compute_major, 9u);
  EXPECT_EQ(t.devices[0].max_warps_per_sm, 64u);
  EXPECT_EQ(t.devices[0].max_blocks_per_sm, 32u);  // from compute capability 9.0
  EXPECT_EQ(t.run.source_tool, "torch.profiler");
  EXPECT_EQ(t.run.source_file, kPlain);
  EXPECT_TRUE(t.lacks(kGapSynchronization));
  EXPECT_FALSE(t.lacks(kGapMemoryEvents));  // profile_memory was on
  EXPECT_FALSE(t.lacks(kGapLaunchConfig));
  // Every GPU activity belongs to the one process, whatever device "pid" Kineto gave it.
  for (const Kernel& k : t.kernels) ASSERT_EQ(k.pid, t.processes[0].pid);
  // No record was lost: every ac2g flow ends on a record with its correlation id.
  for (const DataLoss& loss : t.data_loss) EXPECT_NE(loss.what, "kineto_flow_unmatched") << loss.detail;
}

TEST(KinetoImport, TimesAreAbsoluteNanoseconds) {
  const Counts c = count_json(kPlain);
  const Trace t = load_trace(kPlain);
  // The file's first kernel (the trace is sorted after import): base + ts µs, to the ns.
  const TimeNs expected = c.base + std::llround(c.first_kernel_ts * 1000.0);
  const bool found = std::any_of(t.kernels.begin(), t.kernels.end(),
                                 [&](const Kernel& k) { return std::llabs(k.start - expected) <= 1; });
  EXPECT_TRUE(found) << expected;
  EXPECT_GT(t.kernels.front().start, int64_t{1'700'000'000} * 1'000'000'000);  // after 2023: absolute
}

TEST(KinetoImport, AnnotationsAndStepsAreRanges) {
  const Counts c = count_json(kPlain);
  const Trace t = load_trace(kPlain);
  size_t cpu_ranges = 0, gpu_ranges = 0;
  for (const NvtxRange& r : t.nvtx_ranges) {
    const std::string& domain = t.strings.get(r.domain);
    if (domain == "torch.profiler") {
      ++cpu_ranges;
      EXPECT_EQ(r.kind, NvtxKind::PushPop);
    }
    if (domain == "torch.profiler (GPU)") {
      ++gpu_ranges;
      EXPECT_EQ(r.kind, NvtxKind::StartEnd);
      EXPECT_EQ(t.strings.get(r.name).rfind("GPU: ", 0), 0u);
    }
  }
  EXPECT_EQ(cpu_ranges, c.annotations);
  EXPECT_GT(gpu_ranges, 0u);
  const auto steps = analysis::summarize_steps(t);
  ASSERT_TRUE(steps.has_value());
  EXPECT_TRUE(steps->problem.empty()) << steps->problem;
  EXPECT_EQ(steps->steps.size(), c.steps);
  for (const analysis::Step& s : steps->steps) {
    EXPECT_GT(s.kernels, 0u);
    EXPECT_GT(s.gpu_busy_ns, 0);
    EXPECT_LE(s.gpu_busy_ns, s.end - s.start);
  }
}

TEST(KinetoImport, GzipAndPlainGiveTheSameTrace) {
  const Trace a = load_trace(kPlain), b = load_trace(kGzip);
  ASSERT_EQ(a.kernels.size(), b.kernels.size());
  for (size_t i = 0; i < a.kernels.size(); ++i) {
    EXPECT_EQ(a.kernels[i].start, b.kernels[i].start);
    EXPECT_EQ(a.kernels[i].end, b.kernels[i].end);
    EXPECT_EQ(a.strings.get(a.kernels[i].name), b.strings.get(b.kernels[i].name));
    EXPECT_EQ(a.kernels[i].correlation_id, b.kernels[i].correlation_id);
  }
  ASSERT_EQ(a.host_ops.size(), b.host_ops.size());
  for (size_t i = 0; i < a.host_ops.size(); ++i) {
    EXPECT_EQ(a.host_ops[i].start, b.host_ops[i].start);
    EXPECT_EQ(a.host_ops[i].external_id, b.host_ops[i].external_id);
    EXPECT_EQ(a.strings.get(a.host_ops[i].input_shapes), b.strings.get(b.host_ops[i].input_shapes));
  }
  EXPECT_EQ(a.api_calls.size(), b.api_calls.size());
  EXPECT_EQ(a.memory_events.size(), b.memory_events.size());
  EXPECT_EQ(a.external_correlations.size(), b.external_correlations.size());
}

TEST(HostOps, SelfTimesAndUnlinkedAddUpToAllGpuWork) {
  const Trace t = load_trace(kPlain);
  const analysis::HostOpSummary s = analysis::summarize_host_ops(t);
  double all = 0;
  for (const Kernel& k : t.kernels) all += static_cast<double>(k.end - k.start);
  for (const Memcpy& m : t.memcpys) all += static_cast<double>(m.end - m.start);
  for (const Memset& m : t.memsets) all += static_cast<double>(m.end - m.start);
  double self = 0;
  size_t kernels = 0;
  for (const analysis::OpGroup& g : s.ops) {
    self += g.self_gpu_ns;
    kernels += g.kernels;
    EXPECT_GE(g.total_gpu_ns + 1e-6, g.self_gpu_ns) << g.name;
  }
  EXPECT_DOUBLE_EQ(s.gpu_ns, all);
  EXPECT_NEAR(self, s.linked_gpu_ns, 1e-6);
  EXPECT_EQ(s.gpu_activities, t.kernels.size() + t.memcpys.size() + t.memsets.size());
  // A training loop launches everything from ops: the trace links every kernel.
  EXPECT_EQ(s.unlinked_activities, 0u);
  EXPECT_EQ(kernels, t.kernels.size());
  const auto addmm = std::find_if(s.ops.begin(), s.ops.end(), [](const auto& g) { return g.name == "aten::addmm"; });
  ASSERT_NE(addmm, s.ops.end());
  EXPECT_GT(addmm->self_gpu_ns, 0);
  ASSERT_FALSE(addmm->top_kernels.empty());
  // aten::linear launches through aten::addmm: no self time, but its total holds addmm's.
  const auto linear = std::find_if(s.ops.begin(), s.ops.end(), [](const auto& g) { return g.name == "aten::linear"; });
  ASSERT_NE(linear, s.ops.end());
  EXPECT_EQ(linear->self_gpu_ns, 0);
  EXPECT_GE(linear->total_gpu_ns, addmm->self_gpu_ns);
}

// A hand-made trace whose links are known: the innermost op with the launch call's External id
// owns the kernel, totals include nested ops once, and an op nested in one of its own name is
// not counted twice.
TEST(HostOps, InnermostOpOwnsTheKernel) {
  Trace t;
  auto op = [&](const char* name, TimeNs start, TimeNs end, uint64_t id) {
    HostOp o;
    o.pid = 1;
    o.tid = 1;
    o.name = t.strings.intern(name);
    o.category = t.strings.intern("cpu_op");
    o.start = start;
    o.end = end;
    o.external_id = id;
    t.host_ops.push_back(o);
  };
  op("aten::to", 0, 100, 1);
  op("aten::to", 10, 90, 2);
  op("aten::copy_", 20, 80, 3);
  auto kernel = [&](uint32_t correlation, TimeNs ns) {
    Kernel k;
    k.pid = 1;
    k.name = t.strings.intern("copy_kernel");
    k.start = 200;
    k.end = 200 + ns;
    k.correlation_id = correlation;
    t.kernels.push_back(k);
  };
  kernel(7, 50);  // launched by aten::copy_
  kernel(8, 30);  // launched by the inner aten::to
  kernel(9, 20);  // launched outside every op
  t.external_correlations = {{1, 7, 3, 0}, {1, 8, 2, 0}};
  const analysis::HostOpSummary s = analysis::summarize_host_ops(t);
  ASSERT_EQ(s.ops.size(), 2u);
  EXPECT_EQ(s.ops[0].name, "aten::copy_");
  EXPECT_EQ(s.ops[0].self_gpu_ns, 50);
  EXPECT_EQ(s.ops[1].name, "aten::to");
  EXPECT_EQ(s.ops[1].calls, 2u);
  EXPECT_EQ(s.ops[1].self_gpu_ns, 30);
  EXPECT_EQ(s.ops[1].total_gpu_ns, 80);  // the outer instance only: 30 + 50
  EXPECT_EQ(s.unlinked_activities, 1u);
  EXPECT_EQ(s.linked_gpu_ns, 80);
  EXPECT_EQ(s.gpu_ns, 100);
}

TEST(KinetoImport, ReportShowsOpsAndSteps) {
  const std::string dir = testing::scratch_dir("kineto_report");
  const testing::CliResult text = testing::run_gpuscope(dir, "report " + kGzip);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  for (const char* expected : {"PyTorch ops", "Ops by self GPU time", "aten::addmm", "Top kernels of the top ops",
                               "Steps", "Step time (median)", "ProfilerStep#2", "torch.profiler", "Not in the source"})
    EXPECT_NE(text.out.find(expected), std::string::npos) << expected;

  const testing::CliResult json = testing::run_gpuscope(dir, "report " + kGzip + " --format json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json report = nlohmann::json::parse(json.out);
  std::vector<std::string> keys;
  for (const auto& s : report.at("sections")) keys.push_back(s.at("key").get<std::string>());
  EXPECT_NE(std::find(keys.begin(), keys.end(), "ops"), keys.end());
  EXPECT_NE(std::find(keys.begin(), keys.end(), "steps"), keys.end());
}

TEST(KinetoImport, DiffOfTwoTraces) {
  const std::string dir = testing::scratch_dir("kineto_diff");
  const testing::CliResult r = testing::run_gpuscope(dir, "diff " + kGzip + " " + kFused);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(r.out.empty());
}

TEST(KinetoImport, ImportedCaptureReportsTheSame) {
  const std::string dir = testing::scratch_dir("kineto_import");
  const testing::CliResult imported = testing::run_gpuscope(dir, "import -o mlp " + kGzip);
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  const testing::CliResult direct = testing::run_gpuscope(dir, "report " + kGzip + " --format json");
  const testing::CliResult stored = testing::run_gpuscope(dir, "report mlp.gpuscope --format json");
  ASSERT_EQ(direct.exit_code, 0) << direct.err;
  ASSERT_EQ(stored.exit_code, 0) << stored.err;
  EXPECT_EQ(direct.out, stored.out);
}

}  // namespace
}  // namespace gpuscope

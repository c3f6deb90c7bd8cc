// NVTX GPU projection (gpuscope/analysis_nvtx_gpu.h): the GPU work launched inside each NVTX
// range, on synthetic traces, a real capture (checked against a brute-force recount) and an
// nsys export through the CLI.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

#include "gpuscope/analysis.h"
#include "gpuscope/analysis_nvtx_gpu.h"
#include "gpuscope/report.h"
#include "gpuscope/store.h"
#include "nsys_test_util.h"
#include "spool_builder.h"
#include "test_files.h"
#include "trace_builder.h"

namespace gpuscope {
namespace {

using analysis::NvtxGroup;
using analysis::NvtxInstanceGpu;
using testing::TraceBuilder;

const NvtxGroup& group(const analysis::NvtxSummary& s, const std::string& name) {
  for (const NvtxGroup& g : s.ranges)
    if (g.name == name) return g;
  static const NvtxGroup none;
  ADD_FAILURE() << "no range " << name;
  return none;
}

// A range on thread `tid` of process 1; the builder's range() is push/pop on thread 1.
void add_range(TraceBuilder& b, const std::string& name, TimeNs start, TimeNs end, uint32_t tid,
               NvtxKind kind = NvtxKind::PushPop, uint32_t depth = 0) {
  b.range(name, start, end, depth);
  b.trace().nvtx_ranges.back().tid = tid;
  b.trace().nvtx_ranges.back().kind = kind;
}

TEST(NvtxGpu, OverlappingWorkOnTwoStreamsCountsOnce) {
  TraceBuilder b;
  b.range("step", 1'000, 2'000);
  b.kernel("a", 1'200, 1'600, b.api("cudaLaunchKernel", 1'100, 1'110), 7);
  b.kernel("b", 1'400, 1'800, b.api("cudaLaunchKernel", 1'150, 1'160), 8);  // overlaps a by 200
  const auto p = analysis::project_nvtx_gpu(b.trace());
  ASSERT_EQ(p.ranges.size(), 1u);
  EXPECT_EQ(p.ranges[0].gpu_ns, 600);  // 1200..1800, not 400 + 400
  EXPECT_EQ(p.ranges[0].gpu_start, 1'200);
  EXPECT_EQ(p.ranges[0].gpu_end, 1'800);
  EXPECT_EQ(p.ranges[0].kernels, 2u);
  const analysis::NvtxSummary summary = analysis::summarize_nvtx(b.trace());  // g points into it
  const NvtxGroup& g = group(summary, "step");
  EXPECT_DOUBLE_EQ(g.gpu_ns, 600);
  EXPECT_DOUBLE_EQ(g.gpu_busy_percent(), 60);
  EXPECT_EQ(g.kernels, 2u);
}

TEST(NvtxGpu, WorkRunningAfterTheRangeStillBelongsToIt) {
  TraceBuilder b;
  b.range("enqueue", 1'000, 1'100);
  b.kernel("late", 1'500, 1'800, b.api("cudaLaunchKernel", 1'010, 1'020));
  b.copy(CopyKind::DtoH, MemoryKind::Pinned, 64, 1'800, 1'850, b.api("cudaMemcpyAsync", 1'030, 1'040));
  b.kernel("after", 3'000, 3'100, b.api("cudaLaunchKernel", 1'100, 1'110));  // launched at the end: outside
  const auto p = analysis::project_nvtx_gpu(b.trace());
  EXPECT_EQ(p.ranges[0].gpu_ns, 350);
  EXPECT_EQ(p.ranges[0].gpu_start, 1'500);
  EXPECT_EQ(p.ranges[0].gpu_end, 1'850);  // the projected span lies past the range's end
  EXPECT_EQ(p.ranges[0].kernels, 1u);
  EXPECT_EQ(p.ranges[0].activities, 2u);
  const analysis::NvtxSummary summary = analysis::summarize_nvtx(b.trace());  // g points into it
  const NvtxGroup& g = group(summary, "enqueue");
  EXPECT_DOUBLE_EQ(g.gpu_busy_percent(), 350);  // GPU time 350 ns over 100 ns of CPU time
  EXPECT_DOUBLE_EQ(g.gpu_span_ns, 350);
}

TEST(NvtxGpu, NestedRangesBothGetTheInnerKernel) {
  TraceBuilder b;
  b.range("outer", 1'000, 5'000, 0);
  b.range("inner", 2'000, 3'000, 1);
  b.kernel("k1", 1'200, 1'300, b.api("cudaLaunchKernel", 1'100, 1'110));
  b.kernel("k2", 2'200, 2'500, b.api("cudaLaunchKernel", 2'100, 2'110));
  const auto s = analysis::summarize_nvtx(b.trace());
  EXPECT_DOUBLE_EQ(group(s, "outer").gpu_ns, 400);
  EXPECT_EQ(group(s, "outer").kernels, 2u);
  EXPECT_DOUBLE_EQ(group(s, "outer").gpu_span_ns, 1'300);  // first GPU start 1200 .. last GPU end 2500
  EXPECT_DOUBLE_EQ(group(s, "inner").gpu_ns, 300);
  EXPECT_EQ(group(s, "inner").kernels, 1u);
}

TEST(NvtxGpu, LaunchesOnAnotherThreadDoNotCount) {
  TraceBuilder b;
  b.range("main", 1'000, 5'000);
  add_range(b, "worker", 1'000, 5'000, 2);
  b.kernel("mine", 1'200, 1'300, b.api("cudaLaunchKernel", 1'100, 1'110, 1));
  b.kernel("theirs", 2'200, 2'500, b.api("cudaLaunchKernel", 2'100, 2'110, 2));
  b.kernel("stray", 3'200, 3'900, b.api("cudaLaunchKernel", 3'100, 3'110, 3));  // thread without ranges
  const auto s = analysis::summarize_nvtx(b.trace());
  EXPECT_DOUBLE_EQ(group(s, "main").gpu_ns, 100);
  EXPECT_DOUBLE_EQ(group(s, "worker").gpu_ns, 300);
  EXPECT_EQ(s.gpu_unlaunched, 0u);
}

TEST(NvtxGpu, StartEndRangeUsesTheThreadThatOpenedIt) {
  TraceBuilder b;
  add_range(b, "load", 1'000, 4'000, 2, NvtxKind::StartEnd);  // opened on thread 2, ended anywhere
  b.kernel("on_opener", 1'200, 1'700, b.api("cudaMemsetAsync", 1'100, 1'110, 2));
  b.kernel("on_main", 2'200, 2'300, b.api("cudaLaunchKernel", 2'100, 2'110, 1));
  const auto s = analysis::summarize_nvtx(b.trace());
  EXPECT_DOUBLE_EQ(group(s, "load").gpu_ns, 500);
  EXPECT_EQ(group(s, "load").kernels, 1u);
}

TEST(NvtxGpu, UntimedAndUnlaunchedWorkIsLeftOutAndCounted) {
  TraceBuilder b;
  b.range("step", 1'000, 2'000);
  b.kernel("untimed", 0, 0, b.api("cudaLaunchKernel", 1'100, 1'110));
  b.kernel("no_end", 1'300, 0, b.api("cudaLaunchKernel", 1'120, 1'130));
  b.kernel("orphan", 1'200, 1'400, 9'999);  // its launch call is not in the capture
  b.kernel("ok", 1'500, 1'600, b.api("cudaLaunchKernel", 1'140, 1'150));
  const auto p = analysis::project_nvtx_gpu(b.trace());
  EXPECT_EQ(p.untimed, 2u);
  EXPECT_EQ(p.unlaunched, 1u);
  EXPECT_EQ(p.gpu_records, 2u);
  EXPECT_EQ(p.ranges[0].gpu_ns, 100);
  EXPECT_EQ(p.ranges[0].kernels, 1u);
  EXPECT_EQ(analysis::summarize_nvtx(b.trace()).gpu_unlaunched, 1u);
}

TEST(NvtxGpu, UnclosedRangeGetsNothing) {
  TraceBuilder b;
  b.range("open", 1'000, 0);
  b.kernel("k", 1'200, 1'300, b.api("cudaLaunchKernel", 1'100, 1'110));
  const auto p = analysis::project_nvtx_gpu(b.trace());
  EXPECT_EQ(p.ranges[0].activities, 0u);
  EXPECT_TRUE(analysis::summarize_nvtx(b.trace()).ranges.empty());
}

// The Ranges table of the JSON report.
nlohmann::json ranges_table(const std::string& json) {
  const nlohmann::json report = nlohmann::json::parse(json);
  for (const auto& s : report["sections"])
    for (const auto& t : s["tables"])
      if (t["key"] == "nvtx_ranges") return t;
  ADD_FAILURE() << "no nvtx_ranges table";
  return {};
}

TEST(NvtxGpu, ReportColumnsAreUnknownWithoutApiCalls) {
  TraceBuilder b;
  b.range("step", 1'000, 2'000);
  b.kernel("k", 1'200, 1'300, b.api("cudaLaunchKernel", 1'100, 1'110));
  const auto& json = parse_report_format("json");
  const nlohmann::json with = ranges_table(render_report(b.trace(), {}, json));
  ASSERT_EQ(with["rows"].size(), 1u);
  EXPECT_EQ(with["rows"][0]["gpu_time"], 100);
  EXPECT_EQ(with["rows"][0]["gpu_busy_percent"], 10);
  EXPECT_EQ(with["rows"][0]["kernels"], 1);

  b.trace().api_calls.clear();  // as a torch.profiler trace without CPU activity comes
  b.trace().source_gaps.push_back({kGapApiCalls, "no API calls"});
  const nlohmann::json without = ranges_table(render_report(b.trace(), {}, json));
  ASSERT_EQ(without["rows"].size(), 1u);
  EXPECT_TRUE(without["rows"][0]["gpu_time"].is_null()) << without["rows"][0];
  EXPECT_TRUE(without["rows"][0]["kernels"].is_null());
}

// The union of [start, end) intervals by sorting and sweeping.
TimeNs union_of(std::vector<std::pair<TimeNs, TimeNs>> v) {
  std::sort(v.begin(), v.end());
  TimeNs total = 0, reach = 0;
  for (auto [s, e] : v) {
    if (e <= reach) continue;
    total += e - std::max(s, reach);
    reach = e;
  }
  return total;
}

TEST(NvtxGpu, RealCaptureMatchesABruteForceRecount) {
  const Trace t = read_trace(std::string(GPUSCOPE_TEST_DATA_DIR) + "/bsr_spmm_baseline.gpuscope");
  ASSERT_FALSE(t.nvtx_ranges.empty());
  // Launch call per (run, pid, correlation): the earliest.
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, const ApiCall*> call;
  for (const ApiCall& c : t.api_calls) {
    auto& slot = call[{c.run_id, c.pid, c.correlation_id}];
    if (c.correlation_id && (!slot || c.start < slot->start)) slot = &c;
  }
  struct Work {
    uint32_t run, pid, corr;
    TimeNs start, end;
    bool kernel;
  };
  std::vector<Work> work;
  for (const Kernel& k : t.kernels) work.push_back({k.run_id, k.pid, k.correlation_id, k.start, k.end, true});
  for (const Memcpy& m : t.memcpys) work.push_back({m.run_id, m.pid, m.correlation_id, m.start, m.end, false});
  for (const Memset& m : t.memsets) work.push_back({m.run_id, m.pid, m.correlation_id, m.start, m.end, false});

  std::map<std::string, std::tuple<double, double, size_t>> expected;  // name -> (gpu ns, span ns, kernels)
  for (const NvtxRange& r : t.nvtx_ranges) {
    if (r.end <= r.start) continue;
    std::vector<std::pair<TimeNs, TimeNs>> in;
    size_t kernels = 0;
    TimeNs first = 0, last = 0;
    for (const Work& w : work) {  // every range against every record: slow and obviously right
      if (w.start == 0 || w.end == 0 || w.end < w.start) continue;
      const auto c = call.find({w.run, w.pid, w.corr});
      if (c == call.end() || !c->second || c->second->tid != r.tid || c->second->start < r.start ||
          c->second->start >= r.end)
        continue;
      first = in.empty() ? w.start : std::min(first, w.start);
      last = std::max(last, w.end);
      in.push_back({w.start, w.end});
      kernels += w.kernel;
    }
    auto& [gpu, span, count] = expected[t.strings.get(r.name)];
    gpu += static_cast<double>(union_of(in));
    span += static_cast<double>(last - first);
    count += kernels;
  }
  const auto s = analysis::summarize_nvtx(t);
  double all_gpu = 0;
  for (const NvtxGroup& g : s.ranges) {
    SCOPED_TRACE(g.name);
    const auto& [gpu, span, count] = expected.at(g.name);
    EXPECT_DOUBLE_EQ(g.gpu_ns, gpu);
    EXPECT_DOUBLE_EQ(g.gpu_span_ns, span);
    EXPECT_EQ(g.kernels, count);
    all_gpu += g.gpu_ns;
  }
  EXPECT_GT(all_gpu, 0);  // the capture's ranges did launch work
  EXPECT_GT(group(s, "iteration").kernels, 0u);
}

}  // namespace
}  // namespace gpuscope

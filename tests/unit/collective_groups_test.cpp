// Every collective sized when NCCL carries a group of calls out in several kernels; the
// straggler's cause from the GPU time of all its kernels in the step; a rank's export file with
// its own distributedInfo. Synthetic records.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "export/writers.h"
#include "gpuscope/analysis_ranks.h"
#include "gpuscope/runs.h"
#include "gpuscope/tracks.h"
#include "importers/spool/spool_importer.h"
#include "spool_builder.h"
#include "test_files.h"
#include "trace_builder.h"

namespace gpuscope {
namespace {

using spool::RecordKind;

spool::KernelRecord nccl_kernel(int64_t start, int64_t end, uint32_t correlation) {
  spool::KernelRecord k{};
  k.start_ns = start, k.end_ns = end;
  k.context = 1, k.stream = 7, k.name = 1;
  k.grid[0] = k.grid[1] = k.grid[2] = 1;
  k.block[0] = 128, k.block[1] = k.block[2] = 1;
  k.correlation_id = correlation;
  return k;
}

spool::CommCallRecord call(int64_t start, spool::CommCallCode code, uint64_t bytes, uint32_t correlation = 0) {
  spool::CommCallRecord c{};
  c.start_ns = start;
  c.call = static_cast<uint8_t>(code);
  c.bytes = bytes;
  c.comm = 77;
  c.tid = 4242;
  c.peer = c.rank = -1;
  c.correlation_id = correlation;
  return c;
}

// One 256 MiB all-reduce that NCCL ran as three kernels on its stream: only the first has a
// Launch record after the call; the other two carry on its group. A later 4 MiB all-reduce is its
// own group again.
TEST(CollectiveGroups, EveryKernelOfAGroupIsSized) {
  const std::string dir = testing::scratch_dir("collective_groups");
  testing::SpoolBuilder b(9);
  b.string(1, "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)");
  spool::CommCallRecord init = call(900, spool::CommCallCode::CommInit, 0);
  init.ranks = 2, init.rank = 0;
  b.record(RecordKind::CommCall, init)
      .record(RecordKind::CommCall, call(1000, spool::CommCallCode::AllReduce, uint64_t{256} << 20))
      .record(RecordKind::CommCall, call(1100, spool::CommCallCode::Launch, 0, 30))
      .record(RecordKind::Kernel, nccl_kernel(1300, 2300, 30))
      .record(RecordKind::Kernel, nccl_kernel(2300, 3300, 31))
      .record(RecordKind::Kernel, nccl_kernel(3300, 4000, 32))
      .record(RecordKind::CommCall, call(5000, spool::CommCallCode::AllReduce, uint64_t{4} << 20))
      .record(RecordKind::CommCall, call(5100, spool::CommCallCode::Launch, 0, 33))
      .record(RecordKind::Kernel, nccl_kernel(5300, 5400, 33))
      .flush()
      .end(6000);
  b.write(dir + "/r.9.spool");
  const Trace t = import_spool(dir + "/r.9.spool");
  ASSERT_EQ(t.collective_calls.size(), 4u);
  std::map<uint32_t, CollectiveCall> by_kernel;
  for (const CollectiveCall& c : t.collective_calls) by_kernel[c.correlation_id] = c;
  EXPECT_EQ(by_kernel[30].calls, 1u);
  for (uint32_t carried : {31u, 32u}) {
    EXPECT_EQ(by_kernel[carried].bytes, uint64_t{256} << 20) << carried;
    EXPECT_EQ(by_kernel[carried].ranks, 2u) << carried;
    EXPECT_EQ(by_kernel[carried].calls, 0u) << carried;  // a further kernel of the group
  }
  EXPECT_EQ(by_kernel[33].bytes, uint64_t{4} << 20);
  EXPECT_EQ(by_kernel[33].calls, 1u);
}

// Two ranks; each runs the 100 MB group as two kernels of 1 ms (rank 1 arriving 0.5 ms late at the
// first), then a 1 MB all-reduce: two operations, the group timed as 2 ms, none unsized.
TEST(CollectiveGroups, AGroupIsOneOperationInTheBandwidthTable) {
  testing::TraceBuilder b;
  Trace& t = b.trace();
  Process second = t.processes.front();
  second.pid = 2;
  t.processes.push_back(second);
  t.processes[0].rank = 0, t.processes[1].rank = 1;
  const std::string ar = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
  uint32_t corr = 0;
  const auto kernel = [&](uint32_t pid, TimeNs start, TimeNs end, uint64_t bytes, uint32_t calls) {
    b.kernel(ar, start, end, ++corr);
    t.kernels.back().pid = pid, t.kernels.back().device = pid - 1;
    t.collective_calls.push_back({pid, corr, bytes, 2, calls, -1, 0});
  };
  for (uint32_t pid : {1u, 2u}) {
    const TimeNs late = pid == 2 ? 500'000 : 0;
    kernel(pid, 10'000'000 + late, 11'500'000, 100'000'000, 1);
    kernel(pid, 11'500'000, 12'500'000, 100'000'000, 0);
    kernel(pid, 20'000'000, 20'100'000, 1'000'000, 1);
  }
  const auto r = analysis::analyze_ranks(t);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->matched, 3u);  // kernels matched across the ranks
  EXPECT_EQ(r->sized_operations, 2u);
  EXPECT_EQ(r->unsized_operations, 0u);
  ASSERT_EQ(r->sizes.size(), 2u);
  EXPECT_EQ(r->sizes[0].bytes, 100'000'000u);  // largest first
  EXPECT_EQ(r->sizes[0].operations, 1u);
  EXPECT_DOUBLE_EQ(r->sizes[0].median_ns, 2'000'000.0);  // 1 ms (the late rank's first) + 1 ms
  EXPECT_EQ(r->sizes[1].bytes, 1'000'000u);
}

// The straggler's extra GPU work has no launch call in the trace (a library's kernels launched
// through the driver) and runs after its host's step range ended: its kernel time inside each
// step's window counts all the same.
TEST(CollectiveGroups, TheCauseSumsEveryKernelsTimeInTheStep) {
  testing::TraceBuilder b;
  Trace& t = b.trace();
  Process second = t.processes.front();
  second.pid = 2;
  t.processes.push_back(second);
  t.processes[0].rank = 0, t.processes[1].rank = 1;
  const std::string ar = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
  const auto on = [&](uint32_t pid) {
    t.kernels.back().pid = pid, t.kernels.back().device = pid - 1;
    if (pid == 2) t.kernels.back().correlation_id = 0;  // no launch call recorded
  };
  for (int step = 0; step < 5; ++step) {
    const TimeNs s = step * 20'000'000;
    for (uint32_t pid : {1u, 2u}) {
      b.range("train_step", s, s + 1'000'000);
      t.nvtx_ranges.back().pid = t.nvtx_ranges.back().tid = pid;
      b.api("cudaLaunchKernel", s, s + 10'000, 1);
      t.api_calls.back().pid = pid, t.api_calls.back().tid = pid;
    }
    b.kernel("gemm", s + 1'000'000, s + 3'000'000, 0), on(1);
    b.kernel("gemm", s + 1'000'000, s + 3'000'000, 0), on(2);
    b.kernel("gemm", s + 3'000'000, s + 9'000'000, 0), on(2);  // 6 ms more on rank 1
    b.kernel(ar, s + 3'000'000, s + 9'500'000, 0), on(1);
    b.kernel(ar, s + 9'000'000, s + 9'500'000, 0), on(2);
  }
  const auto r = analysis::analyze_ranks(t);
  ASSERT_TRUE(r && r->straggler && r->straggler->cause);
  const analysis::StragglerCause& c = *r->straggler->cause;
  EXPECT_TRUE(c.per_step);
  EXPECT_EQ(c.kind, analysis::StragglerCauseKind::MoreKernels) << c.text;
  EXPECT_DOUBLE_EQ(c.straggler.kernel_ns, 8'000'000.0);
  EXPECT_DOUBLE_EQ(c.others.kernel_ns, 2'000'000.0);
}

// export --per-rank: each rank's file carries Kineto's distributedInfo with its rank.
TEST(CollectiveGroups, ARanksExportCarriesItsRank) {
  testing::TraceBuilder b;
  b.run(0, 10'000'000);
  Trace& t = b.trace();
  Process second = t.processes.front();
  second.pid = 2;
  t.processes.push_back(second);
  b.kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 1'000, 2'000, 1);
  b.kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 1'500, 2'000, 2);
  t.kernels.back().pid = 2;
  const Trace mine = select_process(t, 2);
  ASSERT_EQ(mine.kernels.size(), 1u);
  EXPECT_EQ(mine.processes.size(), 1u);
  EXPECT_EQ(mine.run.start, t.run.start);  // the job's time origin
  std::ostringstream out;
  exporting::write_chrome_trace(mine, tracks::layout_tracks(mine), out, ExportSettings{true, 1, 2});
  const nlohmann::json j = nlohmann::json::parse(out.str());
  EXPECT_EQ(j["distributedInfo"]["rank"], 1);
  EXPECT_EQ(j["distributedInfo"]["world_size"], 2);
  EXPECT_EQ(j["distributedInfo"]["backend"], "nccl");
  std::ostringstream single;
  exporting::write_chrome_trace(t, tracks::layout_tracks(t), single);
  EXPECT_EQ(nlohmann::json::parse(single.str())["distributedInfo"], nlohmann::json::parse(R"({"rank": 0})"));
}

}  // namespace
}  // namespace gpuscope

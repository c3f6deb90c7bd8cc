// Ranks (analysis_ranks.h): NCCL kernels by collective, compute/communication overlap, and the
// straggler, on a real two-H200 DDP run with a planted straggler and on synthetic traces.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "export_test_util.h"
#include "gpuscope/analysis_ranks.h"
#include "gpuscope/report.h"
#include "gpuscope/store.h"
#include "importers/importer.h"
#include "spool_builder.h"
#include "test_files.h"
#include "trace_builder.h"

namespace gpuscope {
namespace {

using analysis::Collective;

TEST(Ranks, NcclKernelsByCollective) {
  EXPECT_EQ(analysis::classify_collective("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"),
            Collective::AllReduce);
  EXPECT_EQ(analysis::classify_collective("ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)"),
            Collective::AllReduce);
  EXPECT_EQ(analysis::classify_collective("ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL"), Collective::ReduceScatter);
  EXPECT_EQ(analysis::classify_collective("ncclDevKernel_Reduce_Sum_f32_RING_LL"), Collective::Reduce);
  EXPECT_EQ(analysis::classify_collective("ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)"),
            Collective::AllGather);
  EXPECT_EQ(analysis::classify_collective("ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)"),
            Collective::SendRecv);
  EXPECT_EQ(analysis::classify_collective("ncclDevKernel_Broadcast_RING_LL"), Collective::Broadcast);
  EXPECT_EQ(analysis::classify_collective("ncclDevKernel_Something_New"), Collective::Other);
  EXPECT_EQ(analysis::classify_collective("void at::native::elementwise_kernel<128, 2>"), Collective::None);
  EXPECT_EQ(analysis::classify_collective("my_ncclDevKernel_AllReduce"), Collective::None);
}

// Two ranks, three all-reduces each; rank 1 arrives 5 ms late at the first two. Rank 0's compute
// kernel overlaps half of its first all-reduce.
Trace two_ranks() {
  testing::TraceBuilder b;
  b.run(0, 100'000'000);
  Trace& t = b.trace();
  Process second = t.processes.front();
  second.pid = 2;
  t.processes.push_back(second);
  t.processes[0].rank = 0, t.processes[1].rank = 1;
  const StringId ar = t.strings.intern("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)");
  const StringId gemm = t.strings.intern("gemm");
  auto kernel = [&](uint32_t pid, StringId name, TimeNs start, TimeNs end) {
    Kernel k;
    k.pid = pid;
    k.device = pid - 1;
    k.name = k.mangled_name = name;
    k.start = start, k.end = end;
    t.kernels.push_back(k);
  };
  const TimeNs starts[3][2] = {{10'000'000, 15'000'000}, {30'000'000, 35'000'000}, {50'000'000, 50'100'000}};
  for (const auto& op : starts) {
    const TimeNs end = std::max(op[0], op[1]) + 1'000'000;  // every rank ends together
    kernel(1, ar, op[0], end);
    kernel(2, ar, op[1], end);
  }
  kernel(1, gemm, 8'000'000, 13'000'000);  // overlaps 3 of rank 0's first all-reduce's 6 ms
  kernel(2, gemm, 8'000'000, 9'000'000);
  return t;
}

TEST(Ranks, OverlapWaitsAndTheStraggler) {
  const auto r = analysis::analyze_ranks(two_ranks());
  ASSERT_TRUE(r.has_value());
  ASSERT_EQ(r->ranks.size(), 2u);
  EXPECT_EQ(r->matched, 3u);
  EXPECT_TRUE(r->matching_note.empty());
  const analysis::RankSummary& r0 = r->ranks[0];
  const analysis::RankSummary& r1 = r->ranks[1];
  EXPECT_EQ(r0.rank, 0);
  EXPECT_EQ(r0.collectives, 3u);
  EXPECT_EQ(r0.comm_ns, 6'000'000 + 6'000'000 + 1'100'000);
  EXPECT_EQ(r0.overlap_ns, 3'000'000);
  EXPECT_EQ(r0.waited_ns, 5'000'000 + 5'000'000 + 100'000);
  EXPECT_EQ(r1.waited_ns, 0);
  EXPECT_EQ(r1.last_count, 3u);
  EXPECT_EQ(r1.late_ns, 10'100'000);
  ASSERT_TRUE(r->straggler.has_value());
  EXPECT_EQ(r->straggler->rank, 1);
  EXPECT_EQ(r->straggler->late_ns, 10'100'000);
  ASSERT_EQ(r->collectives.size(), 1u);
  EXPECT_EQ(r->collectives[0].kind, Collective::AllReduce);
  EXPECT_EQ(r->collectives[0].kernels, 6u);

  const std::string text = render_report(two_ranks(), {}, parse_report_format("text"));
  EXPECT_NE(text.find("Straggler            rank 1 (pid 2)  last to arrive at 3 of 3 collectives"), std::string::npos)
      << text;
  EXPECT_NE(text.find("PID  Rank  Parent"), std::string::npos) << "the processes table shows the ranks";
}

TEST(Ranks, OneGpuProcessOrABenchCaptureHasNoRanksSection) {
  testing::TraceBuilder b;
  b.kernel("k", 1'000, 2'000, b.api("cudaLaunchKernel", 500, 900));
  EXPECT_FALSE(analysis::analyze_ranks(b.trace()).has_value());
  Trace bench = two_ranks();
  bench.runs = {{1, 0, 50'000'000}, {2, 50'000'000, 100'000'000}};
  EXPECT_FALSE(analysis::analyze_ranks(bench).has_value());
  EXPECT_EQ(render_report(b.trace(), {}, parse_report_format("text")).find("\nRanks\n"), std::string::npos);
}

// The real run: rank 1 sleeps 20 ms on the host before each of 30 backward passes.
TEST(Ranks, ThePlantedStragglerOfARealRunIsNamedWithItsDelay) {
  const std::string dir = testing::scratch_dir("ranks_real");
  const std::string path = dir + "/ddp_straggler.gpuscope";
  std::ofstream(path, std::ios::binary) << testing::gunzip(
      testing::read_text_file(std::string(GPUSCOPE_TEST_DATA_DIR) + "/ddp/ddp_straggler.gpuscope.gz"));
  const Trace trace = import_files({path});
  const auto r = analysis::analyze_ranks(trace);
  ASSERT_TRUE(r.has_value());
  ASSERT_EQ(r->ranks.size(), 2u);  // the torchrun launcher ran no kernels
  ASSERT_TRUE(r->straggler.has_value());
  EXPECT_EQ(r->straggler->pid, 795u);  // rank 1 (captured before ranks were recorded)
  EXPECT_EQ(r->straggler->steps, 30u);
  EXPECT_EQ(r->straggler->step_range, "train_step");
  // Planted: a 20 ms sleep per step, after a torch.cuda.synchronize() (this recording's sample):
  // the steady steps measure 20.4 to 23.1 ms late, the median 22.7 ms; the first two (warm-up)
  // 60 and 71 ms, which the median leaves out.
  EXPECT_NEAR(r->straggler->late_per_step_ns, 22.7e6, 0.5e6) << r->straggler->late_per_step_ns;
  for (const analysis::RankSummary& rank : r->ranks) EXPECT_EQ(rank.devices.size(), 1u);
  EXPECT_EQ(r->ranks[0].devices[0], 0u);
  EXPECT_EQ(r->ranks[1].devices[0], 1u);
}

// Nsight Systems' export of two python3 processes on two H100s (no NCCL): the same section, the
// ranks side by side by pid and GPU, no collectives, no straggler.
TEST(Ranks, TheTwoGpuNsysExportShowsBothProcesses) {
  const std::string nsys = std::string(GPUSCOPE_SHARED_FIXTURES_DIR) + "/nsys/h100_2gpu_1s.sqlite";
  if (!std::filesystem::exists(nsys)) GTEST_SKIP() << "no shared/ fixtures beside the checkout: " << nsys;
  const auto r = analysis::analyze_ranks(import_files({nsys}));
  ASSERT_TRUE(r.has_value());
  ASSERT_EQ(r->ranks.size(), 2u);
  EXPECT_EQ(r->ranks[0].pid, 111u);
  EXPECT_EQ(r->ranks[0].devices, std::vector<uint32_t>{0});
  EXPECT_EQ(r->ranks[1].devices, std::vector<uint32_t>{1});
  EXPECT_EQ(r->ranks[0].kernels, 1721u);
  EXPECT_EQ(r->ranks[0].comm_ns, 0);
  EXPECT_EQ(r->matched, 0u);
  EXPECT_FALSE(r->straggler.has_value());
}

TEST(Ranks, KinetoDistributedInfoGivesTheRank) {
  for (int rank : {0, 1}) {
    const Trace t = import_files(
        {std::string(GPUSCOPE_TEST_DATA_DIR) + "/ddp/kineto_rank" + std::to_string(rank) + ".json.gz"});
    int32_t seen = -1, world = 0;
    for (const Process& p : t.processes)
      if (p.rank >= 0) seen = p.rank, world = p.world_size;
    EXPECT_EQ(seen, rank);
    EXPECT_EQ(world, 2);
  }
}

// NCCL's sizes give each matched all-reduce a bandwidth, timed on the rank that arrived last:
// 1 ms for 100 MB between 2 ranks is 100 GB/s, algorithm and bus alike (2(n-1)/n = 1), 22 % of
// an H200's NVLink. Only rank 0 knows the size (as when one rank's trace has the arguments).
TEST(Ranks, CollectiveBandwidthFromNcclsSizes) {
  Trace t = two_ranks();
  for (size_t i = 0; i < t.kernels.size(); ++i) t.kernels[i].correlation_id = static_cast<uint32_t>(i + 1);
  for (const Kernel& k : t.kernels)
    if (k.pid == 1 && analysis::classify_collective(t.strings.get(k.name)) == Collective::AllReduce)
      t.collective_calls.push_back({1, k.correlation_id, 100'000'000, 2, 1, -1, 0});
  t.devices.front().name = "NVIDIA H200";
  const auto r = analysis::analyze_ranks(t);
  ASSERT_TRUE(r.has_value());
  ASSERT_EQ(r->sizes.size(), 1u);
  const analysis::CollectiveSize& s = r->sizes[0];
  EXPECT_EQ(s.kind, Collective::AllReduce);
  EXPECT_EQ(s.bytes, 100'000'000u);
  EXPECT_EQ(s.ranks, 2u);
  EXPECT_EQ(s.operations, 3u);
  EXPECT_DOUBLE_EQ(s.median_ns, 1e6);
  EXPECT_DOUBLE_EQ(s.algorithm_bps, 100e9);
  EXPECT_DOUBLE_EQ(s.bus_bps, 100e9);
  EXPECT_EQ(r->link.bytes_per_s, 450e9);
  EXPECT_EQ(r->sized_operations, 3u);
  EXPECT_EQ(r->unsized_operations, 0u);
  const std::string text = render_report(t, {}, parse_report_format("text"));
  EXPECT_NE(text.find("Collective bandwidth"), std::string::npos) << text;
  EXPECT_NE(text.find("22.2%"), std::string::npos) << text;  // 100 of 450 GB/s

  // Among 8 ranks the bus carries 2 x 7/8 of the size: 175 GB/s.
  for (CollectiveCall& c : t.collective_calls) c.ranks = 8;
  EXPECT_DOUBLE_EQ(analysis::analyze_ranks(t)->sizes[0].bus_bps, 175e9);
  // Without sizes, no bandwidth.
  t.collective_calls.clear();
  EXPECT_TRUE(analysis::analyze_ranks(t)->sizes.empty());
  EXPECT_EQ(analysis::analyze_ranks(t)->unsized_operations, 3u);
}

// torch.profiler copies the message of record_param_comms onto the NCCL kernel: in the DDP run's
// 10 steps, the first all-reduces every gradient at once (50,384,906 floats), the next 9 in three
// buckets (two of 16,781,312 floats, one of 16,822,282); two broadcasts of ints set up DDP. The
// store keeps them (schema v10).
TEST(Ranks, KinetoKernelArgumentsGiveCollectiveSizes) {
  const Trace t = import_files({std::string(GPUSCOPE_TEST_DATA_DIR) + "/ddp/kineto_rank0.json.gz"});
  std::map<uint64_t, size_t> by_bytes;
  for (const CollectiveCall& c : t.collective_calls) {
    EXPECT_EQ(c.ranks, 2u);
    ++by_bytes[c.bytes];
  }
  const std::map<uint64_t, size_t> expected = {
      {9 * 4, 1}, {3 * 4, 1}, {50'384'906u * 4, 1}, {16'822'282u * 4, 9}, {16'781'312u * 4, 18}};
  EXPECT_EQ(by_bytes, expected);
  const std::string dir = testing::scratch_dir("ranks_store");
  write_trace(dir + "/k.gpuscope", t);
  const Trace back = read_trace(dir + "/k.gpuscope");
  ASSERT_EQ(back.collective_calls.size(), t.collective_calls.size());
  EXPECT_EQ(back.collective_calls[0].bytes, t.collective_calls[0].bytes);
  EXPECT_EQ(back.collective_calls[0].correlation_id, t.collective_calls[0].correlation_id);
  EXPECT_EQ(back.collective_calls[0].pid, t.collective_calls[0].pid);
}

}  // namespace
}  // namespace gpuscope

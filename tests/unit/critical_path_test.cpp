// The critical path of a step (gpuscope/analysis_critical_path.h) on traces built in memory with
// the cases planted: a kernel on the path next to an equal one off it, a blocking synchronization,
// a copy on a second stream hidden behind a kernel and one that is not, and a 2-rank job whose
// rank 1 computes longer before an all-reduce. Times in ns; one step, ProfilerStep#1.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpuscope/analysis_critical_path.h"
#include "gpuscope/analysis_steps.h"
#include "gpuscope/merge.h"
#include "gpuscope/report.h"
#include "gpuscope/trace_tables.h"
#include "importers/importer.h"
#include "trace_builder.h"

namespace gpuscope {
namespace {

using analysis::SegmentKind;

constexpr uint32_t kComputeStream = 7, kSideStream = 8, kNcclStream = 9;

struct Expected {
  SegmentKind kind;
  TimeNs start, end;
  std::string name;
  TimeNs lost_ns;
};

void sync_record(Trace& t, SyncKind kind, uint32_t stream, TimeNs start, TimeNs end, uint32_t corr, uint32_t pid = 1) {
  Synchronization s;
  s.pid = pid, s.tid = 1, s.kind = kind, s.stream = stream, s.start = start, s.end = end, s.correlation_id = corr;
  t.synchronizations.push_back(s);
}

analysis::CriticalPaths paths_of(Trace& t) {
  sort_records(t);
  const std::optional<analysis::StepSummary> steps = analysis::summarize_steps(t);
  EXPECT_TRUE(steps && steps->problem.empty());
  return steps ? analysis::critical_paths(t, *steps) : analysis::CriticalPaths{};
}

void expect_segments(const analysis::StepPath& path, const std::vector<Expected>& expected) {
  ASSERT_EQ(path.segments.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    const analysis::PathSegment& s = path.segments[i];
    SCOPED_TRACE("segment " + std::to_string(i) + ": " + analysis::to_string(s.kind) + " " + s.name);
    EXPECT_EQ(s.kind, expected[i].kind);
    EXPECT_EQ(s.start, expected[i].start);
    EXPECT_EQ(s.end, expected[i].end);
    EXPECT_EQ(s.name, expected[i].name);
    EXPECT_EQ(s.lost_ns, expected[i].lost_ns);
  }
  EXPECT_EQ(path.path_ns, path.step_ns());
}

const analysis::PathKernel* kernel_named(const analysis::CriticalPaths& p, const std::string& name) {
  for (const analysis::PathKernel& k : p.kernels)
    if (k.name == name) return &k;
  return nullptr;
}

// A and B run back to back on one stream, C as long as B on another next to A.
Trace kernels_on_and_off_the_path() {
  testing::TraceBuilder b;
  b.range("ProfilerStep#1", 0, 850);
  b.kernel("A", 30, 430, b.api("cudaLaunchKernel", 10, 20));
  b.kernel("B", 430, 830, b.api("cudaLaunchKernel", 20, 30));
  b.kernel("C", 50, 450, b.api("cudaLaunchKernel", 30, 40), kSideStream);
  b.api("cudaDeviceSynchronize", 40, 840);
  return std::move(b.trace());
}

// B is on the path and shortening it saves up to C's slack; shortening C saves nothing.
TEST(CriticalPath, KernelOnThePathAndAnEqualOneOffIt) {
  Trace t = kernels_on_and_off_the_path();
  const analysis::CriticalPaths p = paths_of(t);
  ASSERT_EQ(p.steps.size(), 1u);
  // B's saving stops at 380: C, off the path, then ends last (at 450, not 430).
  expect_segments(p.steps[0], {{SegmentKind::HostWork, 0, 10, "", 10},
                               {SegmentKind::LaunchLatency, 10, 30, "", 20},
                               {SegmentKind::Kernel, 30, 430, "A", 380},
                               {SegmentKind::Kernel, 430, 830, "B", 380},
                               {SegmentKind::Wait, 830, 840, "cudaDeviceSynchronize", 10},
                               {SegmentKind::HostWork, 840, 850, "", 10}});
  const analysis::PathKernel* b_kernel = kernel_named(p, "B");
  const analysis::PathKernel* c_kernel = kernel_named(p, "C");
  ASSERT_TRUE(b_kernel && c_kernel);
  EXPECT_EQ(b_kernel->gpu_ns, 400);
  EXPECT_EQ(b_kernel->on_path_ns, 400);
  EXPECT_EQ(b_kernel->lost_ns, 380);
  EXPECT_EQ(c_kernel->gpu_ns, 400);
  EXPECT_EQ(c_kernel->on_path_ns, 0);
  EXPECT_EQ(c_kernel->lost_ns, 0);
}

// The host waits in cudaStreamSynchronize for K1 before its own work and K2's launch: the path
// runs through the synchronization, and the host work after it counts in full.
TEST(CriticalPath, BlockingSynchronizationOnThePath) {
  testing::TraceBuilder b;
  b.range("ProfilerStep#1", 0, 900);
  b.kernel("K1", 20, 300, b.api("cudaLaunchKernel", 0, 10));
  const uint32_t sync = b.api("cudaStreamSynchronize", 10, 310);
  sync_record(b.trace(), SyncKind::StreamSynchronize, kComputeStream, 10, 310, sync);
  b.kernel("K2", 520, 800, b.api("cudaLaunchKernel", 500, 510));
  b.api("cudaDeviceSynchronize", 510, 805);
  const analysis::CriticalPaths p = paths_of(b.trace());
  ASSERT_EQ(p.steps.size(), 1u);
  expect_segments(p.steps[0], {{SegmentKind::LaunchLatency, 0, 20, "", 20},
                               {SegmentKind::Kernel, 20, 300, "K1", 280},
                               {SegmentKind::Wait, 300, 310, "cudaStreamSynchronize", 10},
                               {SegmentKind::HostWork, 310, 500, "", 190},
                               {SegmentKind::LaunchLatency, 500, 520, "", 20},
                               {SegmentKind::Kernel, 520, 800, "K2", 280},
                               {SegmentKind::Wait, 800, 805, "cudaDeviceSynchronize", 5},
                               {SegmentKind::HostWork, 805, 900, "", 95}});
  const analysis::StepPath& s = p.steps[0];
  EXPECT_EQ(s.kind_ns[static_cast<size_t>(SegmentKind::Wait)], 15);
  EXPECT_EQ(s.kind_ns[static_cast<size_t>(SegmentKind::HostWork)], 285);
  EXPECT_EQ(s.kind_lost_ns[static_cast<size_t>(SegmentKind::Kernel)], 560);
  // Host work, 285 ns in two pieces, is on the path longer than either kernel (280 ns each).
  ASSERT_LT(s.bound, s.segments.size());
  EXPECT_EQ(s.segments[s.bound].kind, SegmentKind::HostWork);
  EXPECT_EQ(s.segments[s.bound].length(), 190);
  EXPECT_EQ(s.bound_ns, 285);
  EXPECT_EQ(s.bound_lost_ns, 285);
}

// K2 waits (cudaStreamWaitEvent) for a copy on a side stream. `copy_end` before K1's end: the
// copy is hidden behind K1; after it: the copy is on the path.
Trace copy_beside_kernel(TimeNs copy_end, TimeNs k2_start, TimeNs step_end) {
  testing::TraceBuilder b;
  b.range("ProfilerStep#1", 0, step_end);
  b.kernel("K1", 20, 520, b.api("cudaLaunchKernel", 0, 10));
  b.copy(CopyKind::HtoD, MemoryKind::Pinned, 1 << 20, 30, copy_end, b.api("cudaMemcpyAsync", 10, 20), kSideStream,
         true);
  b.api("cudaEventRecord", 20, 25);
  const uint32_t wait = b.api("cudaStreamWaitEvent", 25, 30);
  sync_record(b.trace(), SyncKind::StreamWaitEvent, kComputeStream, 25, 30, wait);
  b.kernel("K2", k2_start, k2_start + 200, b.api("cudaLaunchKernel", 30, 40));
  b.api("cudaDeviceSynchronize", 40, k2_start + 205);
  return std::move(b.trace());
}

TEST(CriticalPath, CopyOnASecondStreamHidden) {
  Trace t = copy_beside_kernel(230, 520, 730);
  const analysis::CriticalPaths p = paths_of(t);
  ASSERT_EQ(p.steps.size(), 1u);
  // K1's saving stops at 290, where the copy (ending at 230) holds K2 back instead.
  expect_segments(p.steps[0], {{SegmentKind::LaunchLatency, 0, 20, "", 20},
                               {SegmentKind::Kernel, 20, 520, "K1", 290},
                               {SegmentKind::Kernel, 520, 720, "K2", 200},
                               {SegmentKind::Wait, 720, 725, "cudaDeviceSynchronize", 5},
                               {SegmentKind::HostWork, 725, 730, "", 5}});
  EXPECT_EQ(p.steps[0].kind_ns[static_cast<size_t>(SegmentKind::Copy)], 0);
}

// Not hidden: the path goes K2 <- stream wait <- copy; the copy's saving stops at 285, where K1
// (ending at 520) binds K2 again.
TEST(CriticalPath, CopyOnASecondStreamNotHidden) {
  Trace t = copy_beside_kernel(800, 805, 1015);
  const analysis::CriticalPaths p = paths_of(t);
  ASSERT_EQ(p.steps.size(), 1u);
  expect_segments(p.steps[0], {{SegmentKind::HostWork, 0, 10, "", 10},
                               {SegmentKind::LaunchLatency, 10, 30, "", 20},
                               {SegmentKind::Copy, 30, 800, "HtoD copy", 285},
                               {SegmentKind::Wait, 800, 805, "stream wait", 5},
                               {SegmentKind::Kernel, 805, 1005, "K2", 200},
                               {SegmentKind::Wait, 1005, 1010, "cudaDeviceSynchronize", 5},
                               {SegmentKind::HostWork, 1010, 1015, "", 5}});
  const analysis::StepPath& s = p.steps[0];
  ASSERT_LT(s.bound, s.segments.size());
  EXPECT_EQ(s.segments[s.bound].kind, SegmentKind::Copy);
}

// One rank of a data-parallel step: gemm, then `extra` (0: none) on the compute stream, then an
// all-reduce on NCCL's stream after a stream wait, then a device synchronization.
Trace rank_step(TimeNs extra, TimeNs allreduce_start) {
  testing::TraceBuilder b;
  b.range("ProfilerStep#1", 0, 710);
  b.kernel("gemm", 20, 220, b.api("cudaLaunchKernel", 0, 5));
  const uint32_t launch = b.api("cudaLaunchKernel", 5, 10);
  if (extra) b.kernel("extra", 220, 220 + extra, launch);
  b.api("cudaEventRecord", 10, 12);
  const uint32_t wait = b.api("cudaStreamWaitEvent", 12, 15);
  sync_record(b.trace(), SyncKind::StreamWaitEvent, kNcclStream, 12, 15, wait);
  b.kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL", allreduce_start, 700, b.api("cudaLaunchKernel", 15, 20),
           kNcclStream);
  b.api("cudaDeviceSynchronize", 20, 705);
  return std::move(b.trace());
}

TEST(CriticalPath, LastRankAtTheAllReduceBoundsTheOthersStep) {
  Trace job = rank_step(0, 230);
  append_records(job, rank_step(400, 630), {std::nullopt, {{1, 2}}, 0});
  for (Process& p : job.processes) p.rank = static_cast<int32_t>(p.pid - 1), p.world_size = 2;
  const analysis::CriticalPaths p = paths_of(job);
  ASSERT_TRUE(p.ranks);
  ASSERT_EQ(p.steps.size(), 2u);
  const analysis::StepPath& rank0 = p.steps[0];
  ASSERT_EQ(rank0.rank, 0);
  // Rank 1 arrived 400 ns after rank 0: its work before the all-reduce bounds rank 0's step, and
  // shortening it helps rank 0 by at most that lead.
  expect_segments(rank0, {{SegmentKind::LaunchLatency, 0, 20, "", 20},
                          {SegmentKind::Kernel, 20, 220, "gemm", 200},
                          {SegmentKind::Kernel, 220, 620, "extra", 400},
                          {SegmentKind::Wait, 620, 630, "stream wait", 10},
                          {SegmentKind::Collective, 630, 700, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 70},
                          {SegmentKind::Wait, 700, 705, "cudaDeviceSynchronize", 5},
                          {SegmentKind::HostWork, 705, 710, "", 5}});
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(rank0.segments[i].rank, 1) << i;
  EXPECT_EQ(rank0.segments[4].rank, 0);
  ASSERT_LT(rank0.bound, rank0.segments.size());
  EXPECT_EQ(rank0.segments[rank0.bound].name, "extra");
  EXPECT_EQ(rank0.segments[rank0.bound].rank, 1);
  // Rank 1's own step: its path stays on rank 1, the last to arrive.
  const analysis::StepPath& rank1 = p.steps[1];
  for (const analysis::PathSegment& s : rank1.segments) EXPECT_EQ(s.rank, 1);
  EXPECT_EQ(rank1.segments[rank1.bound].name, "extra");
}

// A PyTorch-style training loop whose host runs ahead of the GPU: each 100 ns step range launches
// the forward kernel and the optimizer's from the main thread and the backward kernel from a
// second thread (autograd's), nothing in the range waits for the GPU, and the GPU needs 300 ns a
// step. A synchronization between the steps ends the loop.
Trace host_ahead_of_the_gpu() {
  testing::TraceBuilder b;
  for (TimeNs i = 0; i < 3; ++i) {
    const TimeNs at = 100 * i, gpu = 20 + 300 * i;
    b.range("ProfilerStep#" + std::to_string(i + 1), at, at + 100);
    b.kernel("forward", gpu, gpu + 100, b.api("cudaLaunchKernel", at + 10, at + 15));
    b.kernel("backward", gpu + 100, gpu + 250, b.api("cudaLaunchKernel", at + 50, at + 55, 2));
    b.kernel("optimizer", gpu + 250, gpu + 300, b.api("cudaLaunchKernel", at + 80, at + 85));
  }
  b.api("cudaDeviceSynchronize", 300, 925);
  return std::move(b.trace());
}

// Each step is analysed as the GPU ran it, from the previous step's GPU work's end to its own:
// its kernels bound it, each saves its length (the backward kernel too, launched by the other
// thread), and the host work before the first launch saves what it delays the GPU.
TEST(CriticalPath, StepsOfAHostThatRunsAheadEndOnTheGpu) {
  Trace t = host_ahead_of_the_gpu();
  const analysis::CriticalPaths p = paths_of(t);
  ASSERT_EQ(p.steps.size(), 3u);
  for (const analysis::StepPath& s : p.steps) EXPECT_TRUE(s.gpu_lags);
  EXPECT_EQ(p.steps[0].start, 0);
  EXPECT_EQ(p.steps[0].end, 320);
  expect_segments(p.steps[0], {{SegmentKind::HostWork, 0, 10, "", 10},
                               {SegmentKind::LaunchLatency, 10, 20, "", 10},
                               {SegmentKind::Kernel, 20, 120, "forward", 65},  // then the backward's launch binds
                               {SegmentKind::Kernel, 120, 270, "backward", 150},
                               {SegmentKind::Kernel, 270, 320, "optimizer", 50}});
  EXPECT_EQ(p.steps[1].start, 320);
  EXPECT_EQ(p.steps[1].end, 620);
  expect_segments(p.steps[1], {{SegmentKind::Kernel, 320, 420, "forward", 100},
                               {SegmentKind::Kernel, 420, 570, "backward", 150},
                               {SegmentKind::Kernel, 570, 620, "optimizer", 50}});
  EXPECT_EQ(p.steps[1].segments[p.steps[1].bound].name, "backward");
  EXPECT_EQ(p.steps[1].bound_lost_ns, 150);
  const analysis::PathKernel* backward = kernel_named(p, "backward");
  ASSERT_TRUE(backward);
  EXPECT_EQ(backward->gpu_ns, 150);
  EXPECT_EQ(backward->on_path_ns, 150);
  EXPECT_EQ(backward->lost_ns, 150);
  // Every kernel of a step at once: the GPU would wait for the launches instead.
  EXPECT_EQ(p.steps[1].kind_lost_ns[static_cast<size_t>(SegmentKind::Kernel)], 300);

  const std::string text = render_report(t, {}, parse_report_format("text"));
  EXPECT_NE(text.find("In 3 steps the GPU work launched in the step ended after its range"), std::string::npos) << text;
}

// Four ranks on 4x H200 (tests/data/ddp4, torch.profiler traces merged: rank 1 sleeps 20 ms
// before each backward pass): rank 0's steps run through rank 1's host work, which bounds them.
TEST(CriticalPath, TheSleepingRankBoundsTheJobsStepsOnFourH200s) {
  std::vector<analysis::MergeInput> inputs;
  for (int rank : {0, 1, 2, 3}) {
    const std::string file = std::string(GPUSCOPE_TEST_DATA_DIR) + "/ddp4/kineto_rank" + std::to_string(rank) +
                             ".json.gz";
    inputs.push_back({file, load_trace(file)});
  }
  analysis::MergeReport merged;
  const Trace job = analysis::merge_traces(inputs, {}, merged);
  const std::optional<analysis::StepSummary> steps = analysis::summarize_steps(job, analysis::detect_step_range(job));
  ASSERT_TRUE(steps && steps->problem.empty());
  const analysis::CriticalPaths p = analysis::critical_paths(job, *steps);
  ASSERT_TRUE(p.ranks);
  size_t rank0_steps = 0, bound_by_rank1_host = 0;
  for (const analysis::StepPath& path : p.steps) {
    if (path.rank != 0) continue;
    ++rank0_steps;
    ASSERT_LT(path.bound, path.segments.size());
    const analysis::PathSegment& bound = path.segments[path.bound];
    // The 20 ms sleep, and what rank 0's step would gain without it.
    bound_by_rank1_host += bound.rank == 1 && bound.kind == SegmentKind::HostWork && bound.length() >= 18'000'000 &&
                           bound.lost_ns >= 18'000'000;
  }
  EXPECT_EQ(rank0_steps, 10u);
  EXPECT_GE(bound_by_rank1_host, 8u) << "of " << rank0_steps;
}

// The report section: the bounding rank and segment, and the off-path kernel's verdict, in JSON.
TEST(CriticalPath, ReportSectionNamesTheBoundAndTheOffPathKernel) {
  Trace job = rank_step(0, 230);
  append_records(job, rank_step(400, 630), {std::nullopt, {{1, 2}}, 0});
  for (Process& p : job.processes) p.rank = static_cast<int32_t>(p.pid - 1), p.world_size = 2;
  sort_records(job);
  const std::string md = render_report(job, {}, parse_report_format("markdown"));
  EXPECT_NE(md.find("## Critical path"), std::string::npos) << md;
  EXPECT_NE(md.find("kernel extra on rank 1"), std::string::npos) << md;
  EXPECT_NE(md.find("Rank that bounds the job's step"), std::string::npos) << md;

  Trace t = kernels_on_and_off_the_path();
  sort_records(t);
  const std::string json = render_report(t, {}, parse_report_format("json"));
  EXPECT_NE(json.find("critical_path_segments"), std::string::npos);
  EXPECT_NE(json.find("saves nothing: off the critical path"), std::string::npos);
  const std::string text = render_report(t, {}, parse_report_format("text"));
  EXPECT_NE(text.find("Critical path"), std::string::npos);
}

}  // namespace
}  // namespace gpuscope

// Timeline analysis and wall-time attribution on small synthesized traces.
#include <gtest/gtest.h>

#include <numeric>

#include "gpuscope/analysis_timeline.h"
#include "trace_builder.h"

namespace gpuscope::analysis {
namespace {

TimeNs attributed_sum(const Attribution& a) {
  return std::accumulate(std::begin(a.by_category), std::end(a.by_category), TimeNs{0});
}

TEST(Timeline, EmptyTrace) {
  const Trace t;
  const Timeline tl = analyze_timeline(t);
  EXPECT_TRUE(tl.devices.empty());
  EXPECT_TRUE(tl.streams.empty());
  EXPECT_EQ(tl.launch_delay.count, 0u);
  const Attribution a = attribute_wall_time(t);
  EXPECT_EQ(a.wall_ns, 0);
  EXPECT_EQ(attributed_sum(a), 0);
  EXPECT_FALSE(find_context_creation(t, 1));
}

TEST(Timeline, SingleKernel) {
  testing::TraceBuilder b;
  b.run(100, 1000);  // run times must be set (> 0) to be used
  b.kernel("k", 300, 500, b.api("cudaLaunchKernel", 200, 250));
  const Timeline tl = analyze_timeline(b.trace());
  ASSERT_EQ(tl.devices.size(), 1u);
  EXPECT_EQ(tl.devices[0].busy_ns, 200);
  EXPECT_EQ(tl.devices[0].idle_ns, 0);
  EXPECT_TRUE(tl.devices[0].gaps.empty());
  EXPECT_EQ(tl.launch_delay.count, 1u);
  EXPECT_DOUBLE_EQ(tl.launch_delay.median, 100);
  ASSERT_EQ(tl.streams.size(), 1u);
  EXPECT_EQ(tl.streams[0].kernels, 1u);

  const Attribution a = attribute_wall_time(b.trace());
  EXPECT_EQ(a.wall_ns, 900);
  EXPECT_EQ(a.get(TimeCategory::CudaInit), 100);  // run start to the first CUDA call
  EXPECT_EQ(a.get(TimeCategory::OtherApi), 50);
  EXPECT_EQ(a.get(TimeCategory::HostOutsideCuda), 750);
  EXPECT_EQ(attributed_sum(a), a.wall_ns);
}

TEST(Timeline, OverlappingStreamsAndCopyUnderKernel) {
  testing::TraceBuilder b;
  b.run(1, 10'000);
  b.kernel("a", 1000, 3000, b.api("cudaLaunchKernel", 900, 950), 1);
  b.kernel("b", 2000, 4000, b.api("cudaLaunchKernel", 960, 990), 2);
  b.copy(CopyKind::HtoD, MemoryKind::Pinned, 1 << 20, 3500, 5000, b.api("cudaMemcpyAsync", 995, 999), 3, true);
  const Timeline tl = analyze_timeline(b.trace());
  ASSERT_EQ(tl.devices.size(), 1u);
  const DeviceTimeline& d = tl.devices[0];
  EXPECT_EQ(d.busy_ns, 4000);    // 1000..5000
  EXPECT_EQ(d.kernel_ns, 3000);  // 1000..4000
  EXPECT_EQ(d.copy_ns, 1500);
  EXPECT_EQ(d.copy_kernel_overlap_ns, 500);  // 3500..4000
  EXPECT_EQ(d.concurrent_ns, 1000 + 500);    // a+b 2000..3000, b+copy 3500..4000
  EXPECT_EQ(tl.streams.size(), 3u);
}

TEST(Timeline, ClockTiesTouchingOpsMakeNoGapAndNoConcurrency) {
  testing::TraceBuilder b;
  b.kernel("a", 1000, 2000, b.api("cudaLaunchKernel", 900, 950), 1);
  b.kernel("b", 2000, 3000, b.api("cudaLaunchKernel", 960, 970), 2);  // starts exactly when a ends
  const Timeline tl = analyze_timeline(b.trace());
  EXPECT_EQ(tl.devices[0].busy_ns, 2000);
  EXPECT_EQ(tl.devices[0].idle_ns, 0);
  EXPECT_EQ(tl.devices[0].concurrent_ns, 0);
}

TEST(Timeline, GapsSayWhatTheCpuDid) {
  testing::TraceBuilder b;
  b.run(1, 3'000'000);
  b.kernel("a", 100'000, 200'000, b.api("cudaLaunchKernel", 50'000, 60'000));
  b.api("cudaMalloc", 300'000, 700'000);  // 0.4 ms inside an allocation, then 0.3 ms host work
  b.kernel("a", 1'000'000, 1'100'000, b.api("cudaLaunchKernel", 990'000, 995'000));
  const Timeline tl = analyze_timeline(b.trace());
  ASSERT_EQ(tl.devices[0].gaps.size(), 1u);
  const IdleGap& g = tl.devices[0].gaps[0];
  EXPECT_EQ(g.end - g.start, 800'000);
  EXPECT_EQ(g.cpu.in_api_ns, 400'000 + 5'000);
  EXPECT_EQ(g.cpu.in_sync_ns, 0);
  EXPECT_EQ(g.cpu.outside_ns, 800'000 - 405'000);
  EXPECT_EQ(g.cpu.main_api, "cudaMalloc");
}

TEST(Attribution, SyncIsBlamedOnTheKernelItWaitsForAndContextCreationIsStartup) {
  testing::TraceBuilder b;
  b.run(1'000'000, 100'000'000);
  b.api("cudaMalloc", 10'000'000, 40'000'000);  // first: 30 ms, later ones 0.1 ms -> ~29.9 ms context creation
  b.api("cudaMalloc", 40'000'000, 40'100'000);
  b.api("cudaMalloc", 40'100'000, 40'200'000);
  b.kernel("k", 41'000'000, 51'000'000, b.api("cudaLaunchKernel", 40'900'000, 41'000'000));
  b.api("cudaDeviceSynchronize", 41'000'000, 52'000'000);  // 10 ms kernel, then 1 ms with the GPU idle
  const auto ctx = find_context_creation(b.trace(), 1);
  ASSERT_TRUE(ctx);
  EXPECT_EQ(ctx->api_index, 0u);
  EXPECT_EQ(ctx->excess_ns, 29'900'000);

  const Attribution a = attribute_wall_time(b.trace());
  EXPECT_EQ(a.context_creation_ns, 29'900'000);
  EXPECT_EQ(a.get(TimeCategory::CudaInit), 9'000'000 + 29'900'000);
  EXPECT_EQ(a.get(TimeCategory::Allocation), 100'000 * 3);
  EXPECT_EQ(a.get(TimeCategory::KernelCompute), 10'000'000);
  EXPECT_EQ(a.get(TimeCategory::SyncWait), 1'000'000);
  EXPECT_EQ(attributed_sum(a), a.wall_ns);
}

TEST(Attribution, WithoutRunTimesUsesTheEventSpanAndOtherThreadsDoNotCount) {
  testing::TraceBuilder b;
  b.api("cudaMemcpy", 1000, 2000);
  b.api("cudaLaunchKernel", 1500, 1600, 2);  // another thread: not the main thread
  const Attribution a = attribute_wall_time(b.trace());
  EXPECT_EQ(a.wall_ns, 1000);
  ASSERT_TRUE(a.thread);
  EXPECT_EQ(a.thread->tid, 1u);
  EXPECT_EQ(a.get(TimeCategory::MemoryOps), 1000);
  EXPECT_EQ(attributed_sum(a), a.wall_ns);
}

TEST(Attribution, TheInitialThreadIsMainEvenWhenAHelperSpendsMoreTimeInCuda) {
  testing::TraceBuilder b;
  b.api("cudaFree", 1000, 900'000, 7);       // helper thread creating the context
  b.api("cudaMalloc", 950'000, 960'000, 1);  // pid 1's initial thread (tid 1)
  const auto mt = main_thread(b.trace(), 1);
  ASSERT_TRUE(mt);
  EXPECT_EQ(mt->tid, 1u);
}

TEST(Attribution, AOneOffCudaSetDeviceIsContextCreation) {
  testing::TraceBuilder b;
  b.run(1'000'000, 300'000'000);
  b.api("cudaGetDeviceCount", 2'000'000, 2'001'000);  // needs no context
  b.api("cudaSetDevice", 3'000'000, 193'000'000);     // 190 ms, no later call to compare with
  b.api("cudaMalloc", 193'100'000, 193'200'000);
  const auto ctx = find_context_creation(b.trace(), 1);
  ASSERT_TRUE(ctx);
  EXPECT_EQ(ctx->api_index, 1u);
  EXPECT_EQ(ctx->excess_ns, 190'000'000);
  // run start to the first call (1 ms) + the context creation
  EXPECT_EQ(attribute_wall_time(b.trace()).get(TimeCategory::CudaInit), 1'000'000 + 190'000'000);

  testing::TraceBuilder quick;  // a 0.2 ms cudaSetDevice: the context already existed
  quick.api("cudaSetDevice", 3'000'000, 3'200'000);
  EXPECT_FALSE(find_context_creation(quick.trace(), 1));
}

TEST(Attribution, SizedAllocationsAreJudgedPerByte) {
  // The fixed bsr_spmm: the first cudaMallocHost (32 MiB) takes 137 ms; later ones pin
  // 128 MiB in 49.5 ms and 256 MiB in 107.8 ms. By median duration the first looks normal;
  // per byte it should take ~12.7 ms, so ~124 ms of it is context creation.
  testing::TraceBuilder b;
  auto alloc = [&](TimeNs start, TimeNs ns, uint64_t bytes) {
    MemoryEvent m;
    m.pid = 1;
    m.memory_kind = MemoryKind::Pinned;
    m.bytes = bytes;
    m.timestamp = start;
    m.correlation_id = b.api("cudaMallocHost", start, start + ns);
    b.trace().memory_events.push_back(m);
  };
  alloc(1'000'000, 137'000'000, 32u << 20);
  alloc(140'000'000, 836'000, 260);
  alloc(141'000'000, 49'500'000, 128u << 20);
  alloc(191'000'000, 107'800'000, 256u << 20);
  const auto ctx = find_context_creation(b.trace(), 1);
  ASSERT_TRUE(ctx);
  EXPECT_EQ(ctx->api_index, 0u);
  EXPECT_NEAR(ctx->excess_ns / 1e6, 137.0 - 32 * (49.5 / 128 + 107.8 / 256) / 2, 0.01);
}

TEST(ApiClass, Names) {
  EXPECT_EQ(classify_api("cudaMallocHost"), ApiClass::Allocation);
  EXPECT_EQ(classify_api("cuMemAlloc_v2"), ApiClass::Allocation);
  EXPECT_EQ(classify_api("cudaFreeAsync"), ApiClass::Allocation);
  EXPECT_EQ(classify_api("cudaMemcpyAsync"), ApiClass::Memory);
  EXPECT_EQ(classify_api("cudaMemset"), ApiClass::Memory);
  EXPECT_EQ(classify_api("cudaEventSynchronize"), ApiClass::Synchronization);
  EXPECT_EQ(classify_api("cuCtxSynchronize"), ApiClass::Synchronization);
  EXPECT_EQ(classify_api("cudaLaunchKernel"), ApiClass::Launch);
  EXPECT_EQ(classify_api("cudaEventRecord"), ApiClass::Other);
}

}  // namespace
}  // namespace gpuscope::analysis

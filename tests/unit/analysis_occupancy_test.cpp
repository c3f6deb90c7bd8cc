// Theoretical occupancy against values worked out by hand with the rules of
// NVIDIA's occupancy calculator (cuda_occupancy.h) on an H100/H200 (sm_90:
// 64K registers/SM in 4 sub-partitions, 256-register warp allocation unit,
// 64 warps and 32 blocks per SM, 228 KB shared memory per SM, 132 SMs).
#include <gtest/gtest.h>

#include "gpuscope/analysis_occupancy.h"
#include "trace_builder.h"

namespace gpuscope::analysis {
namespace {

Device h200() { return testing::TraceBuilder().trace().devices[0]; }

TEST(Occupancy, BsrSpmmKernel244RegistersIsRegisterLimitedAtTwoBlocks) {
  // 244 regs x 32 = 7808 -> 7936 per warp (31 x 256); 16384 per sub-partition / 7936 = 2 warps,
  // x 4 sub-partitions = 8 warps = 2 blocks of 4 warps: 8 / 64 warps = 12.5 %.
  // Shared: 18944 + 1024 reserved = 19968 B (already a multiple of 128) -> 233472 / 19968 = 11 blocks.
  const auto o = compute_occupancy(h200(), {128, 244, 18944, 64 * 64});
  ASSERT_TRUE(o);
  EXPECT_EQ(o->registers_per_warp, 7936u);
  EXPECT_EQ(o->blocks_by_registers, 2u);
  EXPECT_EQ(o->blocks_by_shared, 11u);
  EXPECT_EQ(o->blocks_by_warps, 16u);
  EXPECT_EQ(o->blocks_per_sm, 2u);
  EXPECT_EQ(o->limiter, OccupancyLimiter::Registers);
  EXPECT_DOUBLE_EQ(o->occupancy_percent, 12.5);
  // 4096 blocks / (2 x 132) = 15.52 waves; the 16th holds 4096 - 15 x 264 = 136 of 264 slots.
  EXPECT_NEAR(o->waves, 15.515, 0.001);
  EXPECT_EQ(o->full_waves, 15u);
  EXPECT_NEAR(o->last_wave_percent, 51.5, 0.05);
}

TEST(Occupancy, NoSharedMemoryBeforeSm80IsNoLimit) {
  // A V100 (sm_70) reserves no shared memory per block: a kernel without any is limited by
  // something else (here warps: 64 / 8 warps of 256 threads = 8 blocks), never divided by zero.
  Device v100 = h200();
  v100.compute_major = 7;
  v100.max_shared_per_sm_bytes = 98304;
  const auto o = compute_occupancy(v100, {256, 32, 0, 1000});
  ASSERT_TRUE(o);
  EXPECT_EQ(o->shared_per_block, 0u);
  EXPECT_EQ(o->blocks_by_shared, UINT32_MAX);
  EXPECT_EQ(o->blocks_per_sm, 8u);
  EXPECT_EQ(o->limiter, OccupancyLimiter::Warps);
}

TEST(Occupancy, SeedClaimOf197RegistersAt66PercentIsWrong) {
  // The seed report says "197 registers, ~66% occupancy, 31 waves". 197 x 32 = 6304 -> 6400 per warp;
  // 16384 / 6400 = 2 warps per sub-partition -> 8 warps -> 2 blocks of 128 threads = 12.5 %, and
  // 4096 blocks / 264 slots = 15.5 waves (its 31 assumed one block per SM).
  const auto o = compute_occupancy(h200(), {128, 197, 16384, 4096});
  ASSERT_TRUE(o);
  EXPECT_EQ(o->blocks_per_sm, 2u);
  EXPECT_DOUBLE_EQ(o->occupancy_percent, 12.5);
  EXPECT_NEAR(o->waves, 15.52, 0.01);
  // 168 registers is the most that fits a third block: 168 x 32 = 5376 = 21 x 256; 16384 / 5376 = 3.
  EXPECT_EQ(compute_occupancy(h200(), {128, 168, 0, 1})->blocks_per_sm, 3u);
  EXPECT_EQ(compute_occupancy(h200(), {128, 169, 0, 1})->blocks_per_sm, 2u);
}

TEST(Occupancy, OtherLimiters) {
  // 1 warp per block, few registers: 32 blocks/SM cap -> 32 of 64 warps.
  auto o = compute_occupancy(h200(), {32, 16, 0, 10});
  EXPECT_EQ(o->limiter, OccupancyLimiter::Blocks);
  EXPECT_DOUBLE_EQ(o->occupancy_percent, 50.0);
  // 1024 threads = 32 warps: 2 blocks by warps, 64 regs -> 2048/warp -> 8 per sub-partition = 32 warps = 1 block.
  o = compute_occupancy(h200(), {1024, 64, 0, 1});
  EXPECT_EQ(o->limiter, OccupancyLimiter::Registers);
  EXPECT_EQ(o->blocks_per_sm, 1u);
  // 256 threads, 32 regs: warps limit 64 / 8 = 8 blocks = 100 %.
  o = compute_occupancy(h200(), {256, 32, 0, 1});
  EXPECT_EQ(o->limiter, OccupancyLimiter::Warps);
  EXPECT_DOUBLE_EQ(o->occupancy_percent, 100.0);
  // 100 KB shared + 1 KB reserve = 103424 B -> 233472 / 103424 = 2 blocks.
  o = compute_occupancy(h200(), {128, 32, 102400, 1});
  EXPECT_EQ(o->limiter, OccupancyLimiter::SharedMemory);
  EXPECT_EQ(o->blocks_per_sm, 2u);
  // 300 B shared + 1024 = 1324 -> rounded up to 1408 (11 x 128).
  EXPECT_EQ(compute_occupancy(h200(), {128, 32, 300, 1})->shared_per_block, 1408u);
}

TEST(Occupancy, ImpossibleAndUnknown) {
  EXPECT_EQ(compute_occupancy(h200(), {128, 256, 0, 1})->limiter, OccupancyLimiter::None);  // > 255 regs/thread
  EXPECT_EQ(compute_occupancy(h200(), {128, 256, 0, 1})->blocks_per_sm, 0u);
  Device old = h200();
  old.compute_major = 6;
  EXPECT_FALSE(compute_occupancy(old, {128, 32, 0, 1}));
  Device unknown;
  EXPECT_FALSE(compute_occupancy(unknown, {128, 32, 0, 1}));
  EXPECT_FALSE(compute_occupancy(h200(), {0, 32, 0, 1}));
}

TEST(Occupancy, WholeWavesAndSingleKernelTrace) {
  // 256 threads, 32 regs: 8 blocks/SM; 3 x 132 x 8 blocks is exactly 3 waves.
  const auto o = compute_occupancy(h200(), {256, 32, 0, 132 * 8 * 3});
  EXPECT_DOUBLE_EQ(o->waves, 3.0);
  EXPECT_DOUBLE_EQ(o->last_wave_percent, 100.0);

  testing::TraceBuilder b;
  b.kernel("k", 100, 200, b.api("cudaLaunchKernel", 50, 60));
  const auto rows = kernel_occupancy(b.trace(), 0);
  ASSERT_EQ(rows.size(), 1u);
  ASSERT_TRUE(rows[0].occupancy);
  EXPECT_EQ(rows[0].device_name, "NVIDIA H200");
  EXPECT_NEAR(rows[0].occupancy->waves, 1.0 / 16, 1e-9);  // 132 blocks over 132 x 16 slots
  EXPECT_TRUE(kernel_occupancy(Trace{}, 0).empty());
}

}  // namespace
}  // namespace gpuscope::analysis

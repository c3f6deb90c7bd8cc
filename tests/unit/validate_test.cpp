// Validation at the boundary (importers/validate.h) and the arithmetic it protects: each case
// here once crashed `report` (SIGFPE in the occupancy calculation), overflowed (UBSan), or let
// a check rule pass everything.
#include <gtest/gtest.h>

#include <climits>

#include "common/error.h"
#include "gpuscope/analysis_occupancy.h"
#include "gpuscope/check.h"
#include "importers/spool/spool_importer.h"
#include "importers/validate.h"
#include "spool_builder.h"
#include "test_files.h"
#include "trace_builder.h"

namespace gpuscope {
namespace {

using spool::RecordKind;

spool::KernelRecord kernel(int64_t start, uint32_t correlation, std::array<int32_t, 3> block) {
  spool::KernelRecord k{};
  k.start_ns = start;
  k.end_ns = start + 10;
  k.context = 1;
  k.stream = 7;
  k.name = 1;
  k.grid[0] = k.grid[1] = k.grid[2] = 1;
  std::copy(block.begin(), block.end(), k.block);
  k.registers_per_thread = 32;
  k.correlation_id = correlation;
  return k;
}

const DataLoss* loss(const Trace& t, const std::string& what) {
  for (const DataLoss& l : t.data_loss)
    if (l.what == what) return &l;
  return nullptr;
}

TEST(Validate, SpoolKernelsCudaCannotLaunchLoseTheirConfigurationAndAreCounted) {
  const std::string dir = testing::scratch_dir("validate_spool");
  spool::KernelRecord wraps = kernel(40, 4, {128, 1, 1});
  wraps.static_shared_bytes = UINT32_MAX - 1023;  // + the 1 KB reserve wrapped to 0
  testing::SpoolBuilder b(5);
  b.string(1, "k");
  b.record(RecordKind::Kernel, kernel(10, 1, {128, 1, 1}))
      .record(RecordKind::Kernel, kernel(20, 2, {-128, 1, 1}))
      .record(RecordKind::Kernel, kernel(30, 3, {65536, 65536, 1}))  // 2^32 threads
      .record(RecordKind::Kernel, wraps);
  b.flush().end(100);
  b.write(dir + "/a.5.spool");
  Trace trace = import_spool(dir + "/a.5.spool");

  const DataLoss* bad = loss(trace, kInvalidKernelConfig);
  ASSERT_NE(bad, nullptr);
  EXPECT_EQ(bad->count, 3u);
  ASSERT_EQ(trace.kernels.size(), 4u);  // kept: their times are real
  EXPECT_EQ(trace.kernels[0].block[0], 128);
  for (size_t i = 1; i < 4; ++i) EXPECT_EQ(trace.kernels[i].block[0], 0) << i;

  // The report's occupancy over them: one result, no SIGFPE.
  trace.devices.push_back(testing::TraceBuilder().trace().devices[0]);
  trace.devices.back().pid = trace.kernels[0].pid;
  for (const auto& k : analysis::kernel_occupancy(trace, 0)) (void)k;
}

TEST(Validate, ImpossibleWarpSizeBecomesUnknown) {
  Trace t = testing::TraceBuilder().trace();
  t.devices[0].warp_size = UINT32_MAX;  // -1 in the capture's column
  validate_trace(t);
  EXPECT_EQ(t.devices[0].warp_size, 0u);
  ASSERT_NE(loss(t, kInvalidDevice), nullptr);
  EXPECT_FALSE(analysis::compute_occupancy(t.devices[0], {128, 32, 0, 1}));
}

TEST(Validate, RecordsWithImpossibleTimesLeaveEveryAnalysis) {
  testing::TraceBuilder b;
  b.run(1'000'000'000'000, 2'000'000'000'000);
  b.kernel("ok", 1'500'000'000'000, 1'500'000'001'000, 1);
  b.kernel("backwards", 1'500'000'002'000, 1'500'000'001'000, 2);
  b.kernel("far", INT64_MAX - 10, INT64_MAX, 3);
  b.api("cudaLaunchKernel", INT64_MIN, 1'500'000'000'000);
  Trace t = b.trace();
  validate_trace(t);
  ASSERT_EQ(t.kernels.size(), 1u);
  EXPECT_EQ(t.kernels[0].correlation_id, 1u);
  EXPECT_TRUE(t.api_calls.empty());
  const DataLoss* bad = loss(t, kInvalidTimes);
  ASSERT_NE(bad, nullptr);
  EXPECT_EQ(bad->count, 3u);
  EXPECT_NE(bad->detail.find("2 kernels"), std::string::npos) << bad->detail;

  validate_trace(t);  // a capture read back: nothing more to fix, no second row
  EXPECT_EQ(t.data_loss.size(), 1u);
}

// A negative size in a capture (SQLite integers are signed) read as 2^64 - 2^28 bytes once made
// the Perfetto export convert 1.8e19 to an integer (UBSan; capture fuzz target,
// tests/fuzz/regressions/capture).
TEST(Validate, ImpossibleSizesLeaveEveryAnalysis) {
  testing::TraceBuilder b;
  b.copy(CopyKind::HtoD, MemoryKind::Pinned, 1 << 20, 100, 200, 1);
  b.copy(CopyKind::HtoD, MemoryKind::Pinned, uint64_t(-268435456), 300, 400, 2);
  Trace t = b.trace();
  MemoryEvent alloc;
  alloc.pid = 1;
  alloc.timestamp = 150;
  alloc.bytes = uint64_t{1} << 50;  // 1 PiB: the largest size kept
  t.memory_events.push_back(alloc);
  alloc.bytes = (uint64_t{1} << 50) + 1;
  t.memory_events.push_back(alloc);
  validate_trace(t);
  ASSERT_EQ(t.memcpys.size(), 1u);
  EXPECT_EQ(t.memcpys[0].correlation_id, 1u);
  ASSERT_EQ(t.memory_events.size(), 1u);
  const DataLoss* bad = loss(t, kInvalidSize);
  ASSERT_NE(bad, nullptr);
  EXPECT_EQ(bad->count, 2u);
  EXPECT_NE(bad->detail.find("1 copies, 1 memory events"), std::string::npos) << bad->detail;
  validate_trace(t);
  EXPECT_EQ(t.data_loss.size(), 1u);
}

TEST(Validate, NegativeSessionTimesOfImportsStay) {
  // nsys times count from the session; an API call may start 3 us before it.
  testing::TraceBuilder b;
  b.run(-3000, 400'000'000);
  b.api("cudaMalloc", -3000, -500);
  Trace t = b.trace();
  validate_trace(t);
  EXPECT_EQ(t.api_calls.size(), 1u);
  EXPECT_TRUE(t.data_loss.empty());
}

TEST(Validate, OccupancyArithmeticIsSafeOnAnyInput) {
  const Device h200 = testing::TraceBuilder().trace().devices[0];
  Device wide = h200;
  wide.warp_size = UINT32_MAX;  // once: warps_per_block wrapped to 0, then a division by it
  EXPECT_TRUE(analysis::compute_occupancy(wide, {128, 32, 0, 1}));
  // Shared memory + the 1 KB reserve once wrapped to 0 (no limit); it cannot fit at all.
  const auto wrapped = analysis::compute_occupancy(h200, {128, 32, UINT32_MAX - 1023, 1});
  ASSERT_TRUE(wrapped);
  EXPECT_EQ(wrapped->blocks_per_sm, 0u);
  // 65536 x 65536 threads overflowed int to 0; a negative dimension is no launch.
  analysis::LaunchConfig c;
  c.grid = {1, 1, 1};
  c.block = {65536, 65536, 1};
  EXPECT_EQ(analysis::occupancy_input(c).threads_per_block, 0u);
  c.block = {-1, 1, 1};
  EXPECT_EQ(analysis::occupancy_input(c).threads_per_block, 0u);
  c.block = {128, 1, 1};
  c.grid = {INT32_MAX, INT32_MAX, INT32_MAX};  // 2^93: saturates, never wraps to a small grid
  EXPECT_EQ(analysis::occupancy_input(c).blocks, UINT64_MAX);
}

std::string parse_error(const std::string& text) {
  try {
    check::parse_rules(text, "rules.toml");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Validate, RuleLimitsMustBeFiniteNumbersWithAUnit) {
  const char* const rules[] = {
      "[[baseline]]\nmax_slower_pct = nan\n",
      "[[baseline]]\nmax_slower_pct = inf\n",
      "[[kernel]]\nmatch = \"k\"\nmax = \"inf ms\"\n",
      "[[kernel]]\nmatch = \"k\"\nmax = \"nan s\"\n",
      "[[kernel]]\nmatch = \"k\"\nmax = \"1e400 s\"\n",
      "[[kernel]]\nmatch = \"k\"\nmax = \"0x10 ms\"\n",
      "[[kernel]]\nmatch = \"k\"\nstat = \"count\"\nmax = inf\n",
  };
  for (const char* text : rules) {
    const std::string message = parse_error(text);
    EXPECT_EQ(message.rfind("rules.toml:", 0), 0u) << text << "message: " << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
  EXPECT_EQ(parse_error("[[kernel]]\nmatch = \"k\"\nmax = \"1.5 ms\"\n"), "");
}

}  // namespace
}  // namespace gpuscope

// What the real traces do not exercise, on small hand-made Kineto traces: distributedInfo, CUDA
// sync events, copy names, overhead rows, two processes in one file, no base time.
#include <gtest/gtest.h>

#include <string>

#include "importers/importer.h"
#include "spool_builder.h"
#include "test_files.h"

namespace gpuscope {
namespace {

Trace import(const std::string& json) {
  Trace trace;
  const std::string error = import_bytes(json, trace);
  EXPECT_EQ(error, "");
  return trace;
}

TEST(KinetoMapping, DistributedSyncCopiesAndOverhead) {
  const Trace t = import(R"json({
    "schemaVersion": 1, "baseTimeNanoseconds": 1000000000000000000,
    "distributedInfo": {"backend": "nccl", "rank": 3, "world_size": 8},
    "traceEvents": [
      {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpy", "pid": 10, "tid": 11, "ts": 1.000, "dur": 5.5,
       "args": {"cbid": 31, "correlation": 5}},
      {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pinned -> Device)", "pid": 0, "tid": 7, "ts": 2.001,
       "dur": 1.0, "args": {"device": 0, "context": 1, "stream": 7, "correlation": 5, "bytes": 1024}},
      {"ph": "X", "cat": "gpu_memset", "name": "Memset (Device)", "pid": 0, "tid": 7, "ts": 4, "dur": 1,
       "args": {"device": 0, "context": 1, "stream": 7, "correlation": 6, "bytes": 64}},
      {"ph": "X", "cat": "cuda_sync", "name": "Stream Sync", "pid": 0, "tid": 7, "ts": 6, "dur": 3,
       "args": {"device": 0, "context": 1, "stream": 7, "correlation": 8}},
      {"ph": "X", "cat": "overhead", "name": "CUPTI Buffer Flush", "pid": -1, "tid": 0, "ts": 9, "dur": 1},
      {"ph": "X", "cat": "gpu_user_annotation", "name": "forward", "pid": 0, "tid": 7, "ts": 2, "dur": 3}
    ]})json");
  EXPECT_EQ(t.run.options, "rank 3 of 8, backend nccl");
  ASSERT_EQ(t.memcpys.size(), 1u);
  const Memcpy& m = t.memcpys[0];
  EXPECT_EQ(m.kind, CopyKind::HtoD);
  EXPECT_EQ(m.src_kind, MemoryKind::Pinned);
  EXPECT_EQ(m.dst_kind, MemoryKind::Device);
  EXPECT_FALSE(m.async);  // launched by cudaMemcpy
  EXPECT_EQ(m.pid, 10u);
  EXPECT_EQ(m.start, 1'000'000'000'000'002'001);
  ASSERT_EQ(t.memsets.size(), 1u);
  EXPECT_EQ(t.memsets[0].memory_kind, MemoryKind::Device);
  EXPECT_TRUE(t.memsets[0].async);  // no launch call in the trace: not blamed as synchronous
  ASSERT_EQ(t.synchronizations.size(), 1u);
  EXPECT_EQ(t.synchronizations[0].kind, SyncKind::StreamSynchronize);
  EXPECT_FALSE(t.lacks(kGapSynchronization));
  EXPECT_TRUE(t.lacks(kGapMemoryEvents));
  EXPECT_TRUE(t.lacks(kGapDevices));
  ASSERT_EQ(t.overheads.size(), 1u);
  EXPECT_EQ(t.overheads[0].pid, 10u);
  ASSERT_EQ(t.nvtx_ranges.size(), 1u);
  EXPECT_EQ(t.strings.get(t.nvtx_ranges[0].name), "GPU: forward");
  EXPECT_EQ(t.nvtx_ranges[0].pid, 10u);
}

// Two processes: each kernel goes to the process whose launch call has its correlation id.
// Without baseTimeNanoseconds, "ts" is absolute µs.
TEST(KinetoMapping, TwoProcessesAndAbsoluteTimes) {
  const Trace t = import(R"json({"traceEvents": [
      {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1700000000000000.001,
       "dur": 1, "args": {"correlation": 1, "External id": 9}},
      {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 2, "tid": 2, "ts": 1700000000000000.002,
       "dur": 1, "args": {"correlation": 2}},
      {"ph": "X", "cat": "kernel", "name": "a", "pid": 0, "tid": 7, "ts": 1700000000000003, "dur": 1,
       "args": {"correlation": 1}},
      {"ph": "X", "cat": "kernel", "name": "b", "pid": 1, "tid": 9, "ts": 1700000000000004, "dur": 1,
       "args": {"correlation": 2, "External id": 4}}
    ]})json");
  ASSERT_EQ(t.processes.size(), 2u);
  ASSERT_EQ(t.kernels.size(), 2u);
  EXPECT_EQ(t.kernels[0].pid, 1u);
  EXPECT_EQ(t.kernels[1].pid, 2u);
  EXPECT_EQ(t.kernels[1].device, 1u);  // no "device" argument: Kineto's pid is the device
  EXPECT_EQ(t.kernels[1].stream, 9u);
  EXPECT_EQ(t.api_calls[0].start, 1'700'000'000'000'000'001);
  // The launch call's External id links kernel a; kernel b's own id links it (its call had none).
  ASSERT_EQ(t.external_correlations.size(), 2u);
  EXPECT_EQ(t.run.source_tool, "torch.profiler");
  EXPECT_TRUE(t.lacks(kGapLaunchConfig));
}

// gpuscope's own Chrome export is Kineto's dialect: a capture exported and imported again has
// the same kernels, API calls and copies.
TEST(KinetoMapping, GpuscopeChromeExportReimports) {
  const std::string dir = testing::scratch_dir("kineto_roundtrip");
  const std::string capture = std::string(GPUSCOPE_TEST_DATA_DIR) + "/bsr_spmm_baseline.gpuscope";
  ASSERT_EQ(testing::run_gpuscope(dir, "export " + capture + " --format chrome -o bsr.json.gz").exit_code, 0);
  const Trace original = load_trace(capture);
  const Trace again = load_trace(dir + "/bsr.json.gz");
  EXPECT_EQ(again.kernels.size(), original.kernels.size());
  EXPECT_EQ(again.api_calls.size(), original.api_calls.size());
  EXPECT_EQ(again.memcpys.size(), original.memcpys.size());
  ASSERT_FALSE(again.kernels.empty());
  EXPECT_EQ(again.kernels[0].end - again.kernels[0].start, original.kernels[0].end - original.kernels[0].start);
  EXPECT_EQ(again.strings.get(again.kernels[0].name), original.strings.get(original.kernels[0].name));
}

}  // namespace
}  // namespace gpuscope

#include "importers/spool/spool_importer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <fstream>

#include "common/error.h"
#include "common/older_formats.h"
#include "importers/importer.h"
#include "spool_builder.h"

namespace gpuscope {
namespace {

using spool::RecordKind;
using testing::SpoolBuilder;

spool::KernelRecord kernel(int64_t start, int64_t end, uint32_t correlation, uint32_t name_id) {
  spool::KernelRecord k{};
  k.start_ns = start;
  k.end_ns = end;
  k.device = 0;
  k.context = 1;
  k.stream = 7;
  k.name = name_id;
  k.grid[0] = 64;
  k.grid[1] = 64;
  k.grid[2] = 1;
  k.block[0] = 128;
  k.block[1] = 1;
  k.block[2] = 1;
  k.registers_per_thread = 197;
  k.static_shared_bytes = 16384;
  k.correlation_id = correlation;
  return k;
}

spool::ApiRecord api(int64_t start, int64_t end, uint32_t correlation, uint32_t name_id) {
  spool::ApiRecord a{};
  a.start_ns = start;
  a.end_ns = end;
  a.tid = 4242;
  a.cbid = 211;
  a.name = name_id;
  a.correlation_id = correlation;
  return a;
}

spool::MarkerRecord marker(int64_t t, uint64_t id, spool::MarkerPhase phase, uint32_t name) {
  spool::MarkerRecord m{};
  m.timestamp_ns = t;
  m.id = id;
  m.tid = 4242;
  m.name = name;
  m.phase = static_cast<uint8_t>(phase);
  m.thread_scoped = 1;
  return m;
}

// A small but complete spool: metadata, a launch and its kernel, nested NVTX.
SpoolBuilder complete_spool() {
  SpoolBuilder b(100, 99, 1000);
  b.string(1, "_Z15bsr_spmm_kernelILi128ELi128ELi32EEvPKfS1_Pf")
      .string(2, "cudaLaunchKernel")
      .string(3, "iteration")
      .string(4, "compute")
      .string(5, "cudaStreamSynchronize")
      .string(static_cast<uint32_t>(spool::TextKey::CommandLine), "./bsr_spmm --iters 2", true)
      .string(static_cast<uint32_t>(spool::TextKey::CaptureStatus), "ok", true)
      .record(RecordKind::Process, spool::ProcessRecord{1500, 100, 99, 13000, 13000, 130001, 0});
  b.record(RecordKind::Marker, marker(2000, 1, spool::MarkerPhase::Start, 3))
      .record(RecordKind::Marker, marker(2100, 2, spool::MarkerPhase::Start, 4))
      .record(RecordKind::Api, api(2200, 2300, 10, 2))
      .flush();
  b.record(RecordKind::Kernel, kernel(2400, 3400, 10, 1))
      .record(RecordKind::Api, api(2350, 3500, 11, 5))
      .record(RecordKind::Sync, spool::SyncRecord{2350, 3500, 1, 7, 11, 3, {}})
      .record(RecordKind::Marker, marker(3600, 2, spool::MarkerPhase::End, 0))
      .record(RecordKind::Marker, marker(3700, 1, spool::MarkerPhase::End, 0))
      .flush();
  return b;
}

TEST(SpoolImporter, ReadsEveryRecordOfACompleteSpool) {
  const std::string dir = testing::scratch_dir("complete");
  SpoolBuilder b = complete_spool();
  b.end(4000);
  b.write(dir + "/a.100.spool");

  Trace trace = import_spool(dir + "/a.100.spool");
  ASSERT_EQ(trace.processes.size(), 1u);
  const Process& p = trace.processes[0];
  EXPECT_EQ(p.pid, 100u);
  EXPECT_EQ(p.parent_pid, 99u);
  EXPECT_EQ(p.command_line, "./bsr_spmm --iters 2");
  EXPECT_EQ(p.capture_status, "ok");
  EXPECT_TRUE(p.clean_shutdown);
  EXPECT_EQ(p.start, 1500);
  EXPECT_EQ(p.end, 4000);
  EXPECT_EQ(p.driver_version, 13000u);

  ASSERT_EQ(trace.kernels.size(), 1u);
  const Kernel& k = trace.kernels[0];
  EXPECT_EQ(trace.strings.get(k.name), "void bsr_spmm_kernel<128, 128, 32>(float const*, float const*, float*)");
  EXPECT_EQ(trace.strings.get(k.mangled_name), "_Z15bsr_spmm_kernelILi128ELi128ELi32EEvPKfS1_Pf");
  EXPECT_EQ(k.grid[0], 64);
  EXPECT_EQ(k.block[0], 128);
  EXPECT_EQ(k.registers_per_thread, 197u);
  EXPECT_EQ(k.end - k.start, 1000);

  ASSERT_EQ(trace.api_calls.size(), 2u);
  EXPECT_EQ(trace.strings.get(trace.api_calls[0].name), "cudaLaunchKernel");
  ASSERT_EQ(trace.synchronizations.size(), 1u);
  EXPECT_EQ(trace.synchronizations[0].kind, SyncKind::StreamSynchronize);
  EXPECT_EQ(trace.synchronizations[0].tid, 4242u) << "thread joined through the correlation id";

  ASSERT_EQ(trace.nvtx_ranges.size(), 2u);
  EXPECT_EQ(trace.strings.get(trace.nvtx_ranges[0].name), "iteration");
  EXPECT_EQ(trace.nvtx_ranges[0].depth, 0u);
  EXPECT_EQ(trace.nvtx_ranges[0].end, 3700);
  EXPECT_EQ(trace.strings.get(trace.nvtx_ranges[1].name), "compute");
  EXPECT_EQ(trace.nvtx_ranges[1].depth, 1u);
  EXPECT_TRUE(trace.data_loss.empty());
}

TEST(SpoolImporter, SpoolWithoutEndIsTruncatedNotAnError) {
  const std::string dir = testing::scratch_dir("no_end");
  SpoolBuilder b = complete_spool();
  b.record(RecordKind::Marker, marker(3800, 9, spool::MarkerPhase::Start, 3)).flush();
  b.write(dir + "/a.100.spool");

  Trace trace;
  const SpoolImportResult result = import_spool(dir + "/a.100.spool", trace);
  EXPECT_TRUE(result.truncated);
  ASSERT_EQ(trace.processes.size(), 1u);
  EXPECT_FALSE(trace.processes[0].clean_shutdown);
  EXPECT_EQ(trace.processes[0].end, 3800) << "last timestamp seen";
  EXPECT_EQ(trace.kernels.size(), 1u);
  auto has = [&](const std::string& what) {
    return std::any_of(trace.data_loss.begin(), trace.data_loss.end(),
                       [&](const DataLoss& d) { return d.what == what; });
  };
  EXPECT_TRUE(has("spool_truncated"));
  EXPECT_TRUE(has("nvtx_unclosed_ranges"));
}

TEST(SpoolImporter, KeepsWholeChunksBeforeACutInTheMiddleOfAChunk) {
  const std::string dir = testing::scratch_dir("cut");
  SpoolBuilder b = complete_spool();
  b.end(4000);
  auto& bytes = b.bytes();
  bytes.resize(bytes.size() - 10);  // the End chunk is cut short
  b.write(dir + "/a.100.spool");

  Trace trace;
  const SpoolImportResult result = import_spool(dir + "/a.100.spool", trace);
  EXPECT_TRUE(result.truncated);
  EXPECT_GT(result.bytes_discarded, 0u);
  EXPECT_EQ(trace.kernels.size(), 1u);
  EXPECT_EQ(trace.api_calls.size(), 2u);
}

TEST(SpoolImporter, StopsAtAChunkWithABadChecksum) {
  const std::string dir = testing::scratch_dir("crc");
  SpoolBuilder b = complete_spool();
  b.end(4000);
  auto& bytes = b.bytes();
  bytes[bytes.size() - 3] ^= 0x5A;  // damage the last chunk's payload
  b.write(dir + "/a.100.spool");

  Trace trace;
  const SpoolImportResult result = import_spool(dir + "/a.100.spool", trace);
  EXPECT_TRUE(result.truncated) << "the End record was in the damaged chunk";
  EXPECT_EQ(trace.kernels.size(), 1u);
}

// A spool is imported by the gpuscope that wrote it; another version gets one line that says
// which gpuscope reads it, not a guess at its records.
TEST(SpoolImporter, OtherVersionsAreRefusedWithOneLine) {
  const std::string dir = testing::scratch_dir("spool_versions");
  const auto error_of = [&](uint32_t version) {
    SpoolBuilder b = complete_spool();
    b.end(4000);
    b.bytes()[8] = static_cast<char>(version);  // FileHeader::version, after the magic
    b.write(dir + "/a.100.spool");
    try {
      import_spool(dir + "/a.100.spool");
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
      return std::string(e.what());
    }
    ADD_FAILURE() << "spool format v" << version << " was read";
    return std::string();
  };
  for (uint32_t version = 1; version < spool::kVersion; ++version) {
    const std::string message = error_of(version);
    EXPECT_NE(message.find("this spool was written by an older gpuscope (spool format v" + std::to_string(version) +
                           "; this one reads only v" + std::to_string(spool::kVersion) + "): import it with " +
                           older_reader_of(static_cast<int>(version), true)),
              std::string::npos)
        << message;
  }
  const std::string newer = error_of(spool::kVersion + 1);
  EXPECT_NE(newer.find("written by a newer gpuscope (spool format v" + std::to_string(spool::kVersion + 1)),
            std::string::npos)
      << newer;
  EXPECT_NE(error_of(0).find("corrupt spool header"), std::string::npos);
}

// The launcher's ranks (TextKey::Distributed, "RANK LOCAL_RANK WORLD_SIZE"); a damaged text
// leaves them unknown rather than inventing a rank.
TEST(SpoolImporter, ReadsTheRankAndRefusesADamagedOne) {
  const std::string dir = testing::scratch_dir("spool_rank");
  const std::pair<std::string, std::array<int32_t, 3>> cases[] = {
      {"3 1 8", {3, 1, 8}}, {"5 -1 6", {5, -1, 6}},        {"three 1 8", {-1, -1, 0}},
      {"3 1", {-1, -1, 0}}, {"99999999 0 1", {-1, -1, 0}}, {"", {-1, -1, 0}},
  };
  for (const auto& [text, expected] : cases) {
    SpoolBuilder b(9);
    b.string(static_cast<uint32_t>(spool::TextKey::Distributed), text, true).flush().end(100);
    b.write(dir + "/r.9.spool");
    const Trace t = import_spool(dir + "/r.9.spool");
    ASSERT_EQ(t.processes.size(), 1u) << text;
    EXPECT_EQ(t.processes[0].rank, expected[0]) << text;
    EXPECT_EQ(t.processes[0].local_rank, expected[1]) << text;
    EXPECT_EQ(t.processes[0].world_size, expected[2]) << text;
  }
}

spool::CommCallRecord comm_call(int64_t start, spool::CommCallCode code, uint64_t bytes, uint64_t comm,
                                uint32_t tid = 4242) {
  spool::CommCallRecord c{};
  c.start_ns = start;
  c.call = static_cast<uint8_t>(code);
  c.bytes = bytes;
  c.comm = comm;
  c.tid = tid;
  c.peer = c.rank = -1;
  return c;
}

// NCCL's calls go to the next NCCL kernel their thread launched: a group of two all-gathers
// launches one kernel after both; all-gather sizes count every rank's part (4 ranks, from the
// communicator's creation); a call nothing followed is data loss; other kernels get nothing.
TEST(SpoolImporter, NcclCallsGiveTheirKernelsBytesAndRanks) {
  const std::string dir = testing::scratch_dir("spool_nccl");
  SpoolBuilder b(9);
  b.string(1, "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)")
      .string(2, "cudaLaunchKernel")
      .string(3, "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)")
      .string(4, "gemm")
      .string(static_cast<uint32_t>(spool::TextKey::Distributed), "0 0 8", true);
  spool::CommCallRecord init = comm_call(900, spool::CommCallCode::CommInit, 0, 77);
  init.ranks = 4, init.rank = 0;
  b.record(RecordKind::CommCall, init)
      .record(RecordKind::CommCall, comm_call(1000, spool::CommCallCode::AllReduce, 4 << 20, 77))
      .record(RecordKind::Api, api(1100, 1200, 10, 2))
      .record(RecordKind::Kernel, kernel(1300, 2300, 10, 1))
      .record(RecordKind::Api, api(2400, 2500, 11, 2))  // a compute kernel: no call before it
      .record(RecordKind::Kernel, kernel(2600, 2700, 11, 4))
      .record(RecordKind::CommCall, comm_call(3000, spool::CommCallCode::AllGather, 1 << 20, 77))
      .record(RecordKind::CommCall, comm_call(3050, spool::CommCallCode::AllGather, 1 << 20, 77))
      .record(RecordKind::Api, api(3100, 3200, 12, 2))
      .record(RecordKind::Kernel, kernel(3300, 4300, 12, 3))
      .record(RecordKind::CommCall, comm_call(5000, spool::CommCallCode::AllReduce, 64, 0))  // never launched
      .flush()
      .end(6000);
  b.write(dir + "/r.9.spool");
  const Trace t = import_spool(dir + "/r.9.spool");
  ASSERT_EQ(t.collective_calls.size(), 2u);
  const CollectiveCall& all_reduce = t.collective_calls[0];
  EXPECT_EQ(all_reduce.correlation_id, 10u);
  EXPECT_EQ(all_reduce.bytes, uint64_t{4} << 20);
  EXPECT_EQ(all_reduce.ranks, 4u);  // the communicator's, not the world's 8
  EXPECT_EQ(all_reduce.calls, 1u);
  const CollectiveCall& all_gather = t.collective_calls[1];
  EXPECT_EQ(all_gather.correlation_id, 12u);
  EXPECT_EQ(all_gather.bytes, uint64_t{2} * 4 * (1 << 20));
  EXPECT_EQ(all_gather.calls, 2u);
  const auto loss = std::find_if(t.data_loss.begin(), t.data_loss.end(),
                                 [](const DataLoss& d) { return d.what == "nccl_calls_without_kernel"; });
  ASSERT_NE(loss, t.data_loss.end());
  EXPECT_EQ(loss->count, 1u);
}

// NCCL 2.19+ launches through the driver, which the runtime trace does not record: the capture's
// Launch records name the kernel instead (correlation 20 and 21 here, no API record for either).
TEST(SpoolImporter, NcclLaunchRecordsNameTheKernelOfTheCallsBefore) {
  const std::string dir = testing::scratch_dir("spool_nccl_launch");
  SpoolBuilder b(9);
  b.string(1, "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)");
  spool::CommCallRecord launch = comm_call(1100, spool::CommCallCode::Launch, 0, 0);
  launch.correlation_id = 20;
  spool::CommCallRecord send = comm_call(1000, spool::CommCallCode::Send, 1 << 16, 5);
  send.peer = 1;
  b.record(RecordKind::CommCall, send)
      .record(RecordKind::CommCall, launch)
      .record(RecordKind::Kernel, kernel(1300, 2300, 20, 1))
      .record(RecordKind::CommCall, comm_call(3000, spool::CommCallCode::Recv, 1 << 10, 5))
      .record(RecordKind::CommCall, comm_call(3001, spool::CommCallCode::Send, 1 << 10, 5));
  launch.start_ns = 3100, launch.correlation_id = 21;
  b.record(RecordKind::CommCall, launch).record(RecordKind::Kernel, kernel(3300, 4300, 21, 1)).flush().end(6000);
  b.write(dir + "/r.9.spool");
  const Trace t = import_spool(dir + "/r.9.spool");
  ASSERT_EQ(t.collective_calls.size(), 2u);
  EXPECT_EQ(t.collective_calls[0].correlation_id, 20u);
  EXPECT_EQ(t.collective_calls[0].bytes, 1u << 16);
  EXPECT_EQ(t.collective_calls[0].peer, 1);
  EXPECT_EQ(t.collective_calls[1].correlation_id, 21u);
  EXPECT_EQ(t.collective_calls[1].bytes, 2u << 10);
  EXPECT_EQ(t.collective_calls[1].calls, 2u);
  EXPECT_EQ(t.collective_calls[1].peer, -1);
  for (const DataLoss& d : t.data_loss) EXPECT_NE(d.what, "nccl_calls_without_kernel");
}

// A CommCall record with a code no writer uses is damage: its chunk and what follows are discarded.
TEST(SpoolImporter, ACommCallOfNoKnownCodeEndsTheReadablePart) {
  const std::string dir = testing::scratch_dir("spool_nccl_damaged");
  SpoolBuilder b(9);
  b.string(1, "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)")
      .record(RecordKind::Kernel, kernel(1300, 2300, 20, 1))
      .flush();
  spool::CommCallRecord bad = comm_call(3000, spool::CommCallCode::Send, 64, 5);
  bad.call = 200;
  b.record(RecordKind::CommCall, bad).flush().end(6000);
  b.write(dir + "/r.9.spool");
  Trace t;
  const SpoolImportResult r = import_spool(dir + "/r.9.spool", t);
  EXPECT_TRUE(r.truncated);
  EXPECT_GT(r.bytes_discarded, 0u);
  EXPECT_EQ(t.kernels.size(), 1u);
  EXPECT_TRUE(t.collective_calls.empty());
}

// An op that ends before it starts cannot be: its chunk is damaged, and the ops of the chunks
// before it are kept.
TEST(SpoolImporter, ATorchOpEndingBeforeItStartsEndsTheReadablePart) {
  const std::string dir = testing::scratch_dir("spool_torch_op_damaged");
  SpoolBuilder b(9);
  b.string(1, "aten::add_").record(RecordKind::TorchOp, spool::TorchOpRecord{1000, 2000, -1, 4242, 1}).flush();
  b.record(RecordKind::TorchOp, spool::TorchOpRecord{5000, 4000, -1, 4242, 1}).flush().end(6000);
  b.write(dir + "/r.9.spool");
  Trace t;
  const SpoolImportResult r = import_spool(dir + "/r.9.spool", t);
  EXPECT_TRUE(r.truncated);
  EXPECT_GT(r.bytes_discarded, 0u);
  ASSERT_EQ(t.host_ops.size(), 1u);
  EXPECT_EQ(t.host_ops[0].end, 2000);
}

TEST(SpoolImporter, RejectsFilesThatAreNotSpools) {
  const std::string dir = testing::scratch_dir("foreign");
  { std::ofstream(dir + "/text.spool") << "hello, this is not a spool at all"; }
  EXPECT_THROW(import_spool(dir + "/text.spool"), Error);
  EXPECT_THROW(import_spool(dir + "/missing.spool"), Error);

  SpoolBuilder b(1);
  auto& bytes = b.bytes();
  bytes[8] = 99;  // version field
  b.write(dir + "/future.spool");
  try {
    import_spool(dir + "/future.spool");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("v99"), std::string::npos) << e.what();
  }
}

TEST(SpoolImporter, CountsGpuWorkWhoseApiCallIsMissing) {
  const std::string dir = testing::scratch_dir("unmatched");
  SpoolBuilder b(5);
  b.string(1, "k").string(2, "cudaLaunchKernel");
  b.record(RecordKind::Api, api(10, 20, 1, 2))
      .record(RecordKind::Kernel, kernel(30, 40, 1, 1))
      .record(RecordKind::Kernel, kernel(50, 60, 2, 1));
  b.flush().end(100);
  b.write(dir + "/a.5.spool");
  Trace trace = import_spool(dir + "/a.5.spool");
  ASSERT_EQ(trace.data_loss.size(), 1u);
  EXPECT_EQ(trace.data_loss[0].what, "unmatched_correlation");
  EXPECT_EQ(trace.data_loss[0].count, 1u);
}

}  // namespace
}  // namespace gpuscope

namespace gpuscope {
namespace {

TEST(SpoolImporter, InfersPushPopFromPerThreadOrder) {
  const std::string dir = testing::scratch_dir("nvtx_kinds");
  auto at = [](int64_t t, uint64_t id, spool::MarkerPhase phase, uint32_t name, uint32_t tid) {
    spool::MarkerRecord m = marker(t, id, phase, name);
    m.tid = tid;
    return m;
  };
  using P = spool::MarkerPhase;
  SpoolBuilder b(7);
  b.string(1, "epoch").string(2, "step").string(3, "io");
  b.record(RecordKind::Marker, at(10, 1, P::Start, 1, 100))     // nvtxRangeStart("epoch")
      .record(RecordKind::Marker, at(20, 2, P::Start, 2, 100))  // nvtxRangePush("step")
      .record(RecordKind::Marker, at(30, 1, P::End, 0, 100))    // nvtxRangeEnd(epoch): not innermost
      .record(RecordKind::Marker, at(40, 2, P::End, 0, 100))    // nvtxRangePop()
      .record(RecordKind::Marker, at(50, 3, P::Start, 3, 100))  // started on one thread...
      .record(RecordKind::Marker, at(60, 3, P::End, 0, 200));   // ...ended on another
  b.flush().end(100);
  b.write(dir + "/a.7.spool");
  Trace trace = import_spool(dir + "/a.7.spool");
  ASSERT_EQ(trace.nvtx_ranges.size(), 3u);
  auto kind_of = [&](const std::string& name) {
    for (const NvtxRange& r : trace.nvtx_ranges)
      if (trace.strings.get(r.name) == name) return r.kind;
    return NvtxKind::PushPop;
  };
  EXPECT_EQ(kind_of("epoch"), NvtxKind::StartEnd);
  EXPECT_EQ(kind_of("step"), NvtxKind::PushPop);
  EXPECT_EQ(kind_of("io"), NvtxKind::StartEnd);
}

}  // namespace
}  // namespace gpuscope

namespace gpuscope {
namespace {

TEST(SpoolImporter, UnknownEnumValuesBecomeUnknownNotTheLastKind) {
  const std::string dir = testing::scratch_dir("enums");
  spool::MemcpyRecord copy{};
  copy.start_ns = 10;
  copy.end_ns = 20;
  copy.copy_kind = 200;
  copy.src_kind = 99;
  copy.dst_kind = 8;
  spool::SyncRecord sync{};
  sync.start_ns = 30;
  sync.end_ns = 40;
  sync.sync_kind = 5;
  SpoolBuilder b(9);
  b.record(RecordKind::Memcpy, copy).record(RecordKind::Sync, sync).flush().end(100);
  b.write(dir + "/a.9.spool");
  Trace trace = import_spool(dir + "/a.9.spool");
  ASSERT_EQ(trace.memcpys.size(), 1u);
  EXPECT_EQ(trace.memcpys[0].kind, CopyKind::Unknown);
  EXPECT_EQ(trace.memcpys[0].src_kind, MemoryKind::Unknown);
  EXPECT_EQ(trace.memcpys[0].dst_kind, MemoryKind::Unknown);
  ASSERT_EQ(trace.synchronizations.size(), 1u);
  EXPECT_EQ(trace.synchronizations[0].kind, SyncKind::Unknown);
}

TEST(SpoolImporter, StreamsKeepTheirFlagAndPriority) {
  const std::string dir = testing::scratch_dir("streams");
  spool::StreamRecord nccl{};
  nccl.context = 1, nccl.stream = 13, nccl.priority = -3, nccl.correlation_id = 40;
  nccl.flag = static_cast<uint8_t>(spool::StreamCode::NonBlocking);
  spool::StreamRecord legacy{};
  legacy.context = 1, legacy.stream = 7, legacy.flag = static_cast<uint8_t>(spool::StreamCode::Legacy);
  spool::StreamRecord newer = nccl;
  newer.stream = 14, newer.flag = 9;  // a code this reader does not know
  SpoolBuilder b(9);
  b.record(RecordKind::Stream, nccl).record(RecordKind::Stream, legacy).record(RecordKind::Stream, newer);
  b.flush().end(100);
  b.write(dir + "/a.9.spool");
  const Trace trace = import_spool(dir + "/a.9.spool");
  ASSERT_EQ(trace.streams.size(), 3u);
  EXPECT_EQ(trace.streams[0].pid, 9u);
  EXPECT_EQ(trace.streams[0].stream, 13u);
  EXPECT_EQ(trace.streams[0].context, 1u);
  EXPECT_EQ(trace.streams[0].priority, -3);
  EXPECT_EQ(trace.streams[0].correlation_id, 40u);
  EXPECT_EQ(trace.streams[0].flag, StreamFlag::NonBlocking);
  EXPECT_EQ(trace.streams[1].flag, StreamFlag::Legacy);
  EXPECT_EQ(trace.streams[2].flag, StreamFlag::Unknown);
}

// A job's spools (a process each) import as one trace; each spool's string ids are its own, so
// every name must come through as its spool meant it.
TEST(SpoolImporter, SeveralSpoolsImportAsOneTraceWithTheirOwnNames) {
  const std::string dir = testing::scratch_dir("several");
  std::vector<std::string> paths;
  for (uint32_t pid = 100; pid < 111; ++pid) {
    if (pid == 105) {  // a child killed before its header: counted, the others kept
      std::ofstream(dir + "/job.105.spool") << "GSSP";
      paths.push_back(dir + "/job.105.spool");
      continue;
    }
    SpoolBuilder b(pid, 99, 1000);
    // Ids in another order per spool: id 1 is the kernel name in even pids, the call's in odd.
    const uint32_t kernel_name = pid % 2 ? 2 : 1, call_name = pid % 2 ? 1 : 2;
    b.string(kernel_name, "kernel_of_" + std::to_string(pid))
        .string(call_name, "cudaLaunchKernel")
        .record(RecordKind::Process, spool::ProcessRecord{1500, pid, 99, 13000, 13000, 130001, 0})
        .record(RecordKind::Api, api(2000 + pid, 2100 + pid, 7, call_name))
        .record(RecordKind::Kernel, kernel(2200 + pid, 3200 + pid, 7, kernel_name))
        .flush();
    b.end(4000 + pid);
    paths.push_back(dir + "/job." + std::to_string(pid) + ".spool");
    b.write(paths.back());
  }

  const Trace trace = import_spools(paths);
  ASSERT_EQ(trace.processes.size(), 10u);
  ASSERT_EQ(trace.kernels.size(), 10u);
  ASSERT_EQ(trace.api_calls.size(), 10u);
  for (const Kernel& k : trace.kernels) {
    EXPECT_EQ(trace.strings.get(k.name), "kernel_of_" + std::to_string(k.pid));
    EXPECT_EQ(k.start, 2200 + static_cast<TimeNs>(k.pid));
  }
  for (const ApiCall& c : trace.api_calls) EXPECT_EQ(trace.strings.get(c.name), "cudaLaunchKernel");
  const auto unreadable = std::count_if(trace.data_loss.begin(), trace.data_loss.end(),
                                        [](const DataLoss& d) { return d.what == "spool_unreadable"; });
  EXPECT_EQ(unreadable, 1);
}

// `--pytorch=ops`: the observer's ops become torch ops, and each CUDA call is linked to the
// innermost op open on its thread when it starts (ops are written when they return: inner first).
TEST(SpoolImporter, TorchOpsLinkTheCallsMadeInsideThem) {
  const std::string dir = testing::scratch_dir("torch_ops");
  SpoolBuilder b(100, 99, 1000);
  b.string(1, "aten::linear")
      .string(2, "aten::addmm")
      .string(3, "cudaLaunchKernel")
      .string(4, "gemm_kernel")
      .record(RecordKind::Process, spool::ProcessRecord{500, 100, 99, 13000, 13000, 130001, 0})
      .record(RecordKind::Api, api(1200, 1300, 7, 3))  // inside addmm
      .record(RecordKind::TorchOp, spool::TorchOpRecord{1100, 3000, -1, 4242, 2})
      .record(RecordKind::Api, api(4000, 4100, 8, 3))  // inside linear, after addmm
      .record(RecordKind::TorchOp, spool::TorchOpRecord{1000, 5000, 3, 4242, 1})
      .record(RecordKind::Kernel, kernel(1400, 2400, 7, 4))
      .flush();
  b.end(6000);
  b.write(dir + "/a.100.spool");

  const Trace trace = import_spool(dir + "/a.100.spool");
  EXPECT_EQ(trace.run.host_ops_source, kHostOpsFromObserver);
  ASSERT_EQ(trace.host_ops.size(), 2u);
  const HostOp& linear = trace.host_ops[0];  // sorted by start, parents first
  const HostOp& addmm = trace.host_ops[1];
  EXPECT_EQ(trace.strings.get(linear.name), "aten::linear");
  EXPECT_EQ(trace.strings.get(addmm.name), "aten::addmm");
  EXPECT_EQ(trace.strings.get(linear.category), "cpu_op");
  EXPECT_EQ(linear.sequence_number, 3);
  EXPECT_EQ(addmm.sequence_number, -1);
  EXPECT_EQ(addmm.end, 3000);
  EXPECT_NE(linear.external_id, addmm.external_id);
  ASSERT_EQ(trace.external_correlations.size(), 2u);
  for (const ExternalCorrelation& x : trace.external_correlations)
    EXPECT_EQ(x.external_id, x.correlation_id == 7 ? addmm.external_id : linear.external_id) << x.correlation_id;
}

}  // namespace
}  // namespace gpuscope

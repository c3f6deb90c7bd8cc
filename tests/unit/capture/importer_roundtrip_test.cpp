// Round trip through the real importer: synthesized CUPTI records -> writer thread ->
// spool -> gpuscope::import_spool -> trace model. Checks that what the capture side
// writes means to the importer what it meant to CUPTI.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "capture/writer_thread.h"
#include "capture_test_support.h"
#include "gpuscope/model.h"
#include "importers/spool/spool_importer.h"

namespace gpuscope::capture {
namespace {

namespace sp = gpuscope::spool;
using namespace std::chrono_literals;
using test::MockActivityBuffer;

const char* api_name(CUpti_CallbackDomain, uint32_t cbid) {
  switch (cbid) {
    case 20: return "cudaMalloc_v3020";
    case 31: return "cudaMemcpy_v3020";
    case 211: return "cudaLaunchKernel_v7000";
    default: return "cudaStreamSynchronize_v3020";
  }
}

void enrich(sp::DeviceRecord& d) {
  d.memory_clock_khz = 2619000;
  d.memory_bus_width_bits = 5120;
}

class ImporterRoundTrip : public test::SpoolDirTest {
 protected:
  ImporterRoundTrip() : SpoolDirTest("cap.321.spool") {}

  // Writes a spool the way the injection does; `buffers` are delivered in order.
  void capture(std::vector<MockActivityBuffer>& buffers, uint64_t dropped_in_first = 0) {
    BufferPool pool(256 * 1024, 4);
    auto spool = std::make_unique<SpoolWriter>();
    ASSERT_TRUE(spool->open(path_, 321, 300, 1700000000000000000));
    spool->append_text(sp::TextKey::CommandLine, "./bsr_spmm --iters 2");
    spool->append_text(sp::TextKey::CuptiPath, "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13");
    spool->append_text(sp::TextKey::CaptureStatus, "ok");
    WriterHooks hooks;
    hooks.next_record = test::mock_next_record;
    hooks.api_name = api_name;
    hooks.enrich_device = enrich;
    hooks.on_start = [](SpoolWriter& out) {
      sp::ProcessRecord p{};
      p.start_ns = 1700000000000000000;
      p.pid = 321;
      p.parent_pid = 300;
      p.driver_version = 13000;
      p.runtime_version = 13000;
      p.cupti_version = 130001;
      out.add(sp::RecordKind::Process, p);
    };
    WriterThread writer(pool, std::move(spool), std::move(hooks));
    ASSERT_TRUE(writer.start());
    bool first = true;
    for (MockActivityBuffer& records : buffers) {
      uint8_t* buffer = pool.acquire(1000000us);
      ASSERT_NE(buffer, nullptr);
      pool.push_filled({buffer, records.copy_to(buffer, pool.buffer_bytes()), first ? dropped_in_first : 0});
      first = false;
    }
    writer.stop_and_join();
  }
};

constexpr uint64_t kT0 = 1700000000000000000ull;

std::vector<MockActivityBuffer> scenario() {
  std::vector<MockActivityBuffer> buffers(2);
  MockActivityBuffer& a = buffers[0];
  MockActivityBuffer& b = buffers[1];

  CUpti_ActivityDevice5 dev{};
  dev.kind = CUPTI_ACTIVITY_KIND_DEVICE;
  dev.name = "NVIDIA H100 80GB HBM3";
  dev.numMultiprocessors = 132;
  dev.computeCapabilityMajor = 9;
  dev.numThreadsPerWarp = 32;
  dev.globalMemorySize = 85045477376ull;
  a.add(dev);

  auto api = [](uint32_t cbid, uint32_t corr, uint64_t start, uint64_t end) {
    CUpti_ActivityAPI r{};
    r.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
    r.cbid = cbid;
    r.start = kT0 + start;
    r.end = kT0 + end;
    r.processId = 321;
    r.threadId = 321;
    r.correlationId = corr;
    return r;
  };
  a.add(api(20, 1, 100, 5100));  // cudaMalloc

  CUpti_ActivityMemory4 alloc{};
  alloc.kind = CUPTI_ACTIVITY_KIND_MEMORY2;
  alloc.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION;
  alloc.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  alloc.address = 0x7f0000000000ull;
  alloc.bytes = 1 << 28;
  alloc.timestamp = kT0 + 5000;
  alloc.correlationId = 1;
  a.add(alloc);

  CUpti_ActivityMarker2 push{};
  push.kind = CUPTI_ACTIVITY_KIND_MARKER;
  push.flags = CUPTI_ACTIVITY_FLAG_MARKER_START;
  push.timestamp = kT0 + 6000;
  push.id = 1;
  push.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
  push.objectId.pt.threadId = 321;
  push.name = "iteration";
  a.add(push);

  a.add(api(31, 2, 7000, 90000));  // cudaMemcpy, pageable HtoD
  CUpti_ActivityMemcpy6 copy{};
  copy.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  copy.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
  copy.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
  copy.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  copy.bytes = 1 << 28;
  copy.start = kT0 + 8000;
  copy.end = kT0 + 89000;
  copy.correlationId = 2;
  copy.streamId = 7;
  a.add(copy);

  // Second buffer: launch, kernel, memset, sync, pop, an instant mark, overhead.
  b.add(api(211, 3, 91000, 95000));
  CUpti_ActivityKernel10 k{};
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.name = "_Z8bsr_spmmPKfS0_Pfiii";
  k.start = kT0 + 96000;
  k.end = kT0 + 196000;
  k.correlationId = 3;
  k.gridX = 64;
  k.gridY = 64;
  k.gridZ = 1;
  k.blockX = 128;
  k.blockY = k.blockZ = 1;
  k.registersPerThread = 96;
  k.dynamicSharedMemory = 65536;
  k.streamId = 7;
  b.add(k);

  CUpti_ActivityMemset4 set{};
  set.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  set.bytes = 4096;
  set.start = kT0 + 197000;
  set.end = kT0 + 198000;
  set.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  set.correlationId = 4;
  b.add(set);

  b.add(api(131, 5, 199000, 300000));
  CUpti_ActivitySynchronization2 sync{};
  sync.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
  sync.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
  sync.start = kT0 + 199500;
  sync.end = kT0 + 299500;
  sync.correlationId = 5;
  sync.streamId = 7;
  b.add(sync);

  CUpti_ActivityMarker2 pop = push;
  pop.flags = CUPTI_ACTIVITY_FLAG_MARKER_END;
  pop.timestamp = kT0 + 301000;
  pop.name = nullptr;
  b.add(pop);

  CUpti_ActivityMarker2 mark{};
  mark.kind = CUPTI_ACTIVITY_KIND_MARKER;
  mark.flags = CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS;
  mark.timestamp = kT0 + 302000;
  mark.id = 2;
  mark.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
  mark.objectId.pt.threadId = 321;
  mark.name = "done";
  mark.domain = "app";
  b.add(mark);

  CUpti_ActivityOverhead3 overhead{};
  overhead.kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
  overhead.overheadKind = CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH;
  overhead.start = kT0 + 400000;
  overhead.end = kT0 + 410000;
  b.add(overhead);
  return buffers;
}

TEST_F(ImporterRoundTrip, EveryKindArrivesInTheModel) {
  auto buffers = scenario();
  capture(buffers, /*dropped_in_first=*/12);
  Trace t = import_spool(path_);

  ASSERT_EQ(t.processes.size(), 1u);
  const Process& p = t.processes[0];
  EXPECT_EQ(p.pid, 321u);
  EXPECT_EQ(p.parent_pid, 300u);
  EXPECT_TRUE(p.clean_shutdown);
  EXPECT_EQ(p.capture_status, "ok");
  EXPECT_EQ(p.command_line, "./bsr_spmm --iters 2");
  EXPECT_EQ(p.driver_version, 13000u);
  EXPECT_EQ(p.runtime_version, 13000u);
  EXPECT_EQ(p.cupti_version, 130001u);
  EXPECT_EQ(p.start, static_cast<TimeNs>(kT0));
  EXPECT_GT(p.end, p.start);

  ASSERT_EQ(t.devices.size(), 1u);
  EXPECT_EQ(t.devices[0].name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(t.devices[0].sm_count, 132u);
  EXPECT_EQ(t.devices[0].memory_bus_width_bits, 5120u);
  EXPECT_EQ(t.devices[0].uuid, "GPU-00000000-0000-0000-0000-000000000000");

  ASSERT_EQ(t.api_calls.size(), 4u);
  EXPECT_EQ(t.strings.get(t.api_calls[0].name), "cudaMalloc");
  EXPECT_EQ(t.strings.get(t.api_calls[1].name), "cudaMemcpy");
  EXPECT_EQ(t.strings.get(t.api_calls[2].name), "cudaLaunchKernel");
  EXPECT_EQ(t.api_calls[0].domain, ApiDomain::Runtime);
  EXPECT_EQ(t.api_calls[0].end - t.api_calls[0].start, 5000);

  ASSERT_EQ(t.kernels.size(), 1u);
  const Kernel& k = t.kernels[0];
  EXPECT_EQ(t.strings.get(k.mangled_name), "_Z8bsr_spmmPKfS0_Pfiii");
  EXPECT_EQ(t.strings.get(k.name), "bsr_spmm(float const*, float const*, float*, int, int, int)");
  EXPECT_EQ(k.grid[0], 64);
  EXPECT_EQ(k.block[0], 128);
  EXPECT_EQ(k.registers_per_thread, 96u);
  EXPECT_EQ(k.dynamic_shared_bytes, 65536u);
  EXPECT_EQ(k.end - k.start, 100000);

  ASSERT_EQ(t.memcpys.size(), 1u);
  EXPECT_EQ(t.memcpys[0].kind, CopyKind::HtoD);
  EXPECT_EQ(t.memcpys[0].src_kind, MemoryKind::Pageable);
  EXPECT_EQ(t.memcpys[0].dst_kind, MemoryKind::Device);
  EXPECT_EQ(t.memcpys[0].bytes, 1u << 28);
  EXPECT_FALSE(t.memcpys[0].async);

  ASSERT_EQ(t.memsets.size(), 1u);
  EXPECT_EQ(t.memsets[0].bytes, 4096u);
  ASSERT_EQ(t.memory_events.size(), 1u);
  EXPECT_EQ(t.memory_events[0].op, MemoryOp::Alloc);
  EXPECT_EQ(t.memory_events[0].bytes, 1u << 28);
  EXPECT_EQ(t.memory_events[0].memory_kind, MemoryKind::Device);

  ASSERT_EQ(t.synchronizations.size(), 1u);
  EXPECT_EQ(t.synchronizations[0].kind, SyncKind::StreamSynchronize);
  EXPECT_EQ(t.synchronizations[0].tid, 321u);  // joined to its API call by correlation id

  ASSERT_EQ(t.nvtx_ranges.size(), 1u);
  EXPECT_EQ(t.strings.get(t.nvtx_ranges[0].name), "iteration");
  EXPECT_EQ(t.nvtx_ranges[0].kind, NvtxKind::PushPop);
  EXPECT_EQ(t.nvtx_ranges[0].tid, 321u);
  EXPECT_EQ(t.nvtx_ranges[0].end - t.nvtx_ranges[0].start, 295000);
  ASSERT_EQ(t.nvtx_marks.size(), 1u);
  EXPECT_EQ(t.strings.get(t.nvtx_marks[0].name), "done");
  EXPECT_EQ(t.strings.get(t.nvtx_marks[0].domain), "app");

  ASSERT_EQ(t.overheads.size(), 1u);
  EXPECT_EQ(t.strings.get(t.overheads[0].kind), "cupti_buffer_flush");

  uint64_t dropped = 0;
  for (const DataLoss& loss : t.data_loss) {
    EXPECT_NE(loss.what, "spool_truncated");
    EXPECT_NE(loss.what, "writer_dropped_records");  // CUPTI's drops are not double-counted
    if (loss.what == "cupti_dropped_records") dropped += loss.count;
  }
  EXPECT_EQ(dropped, 12u);
}

TEST_F(ImporterRoundTrip, ACutSpoolImportsAsTruncated) {
  auto buffers = scenario();
  capture(buffers);
  // Drop the last chunk (the End) and half of the one before it, as a SIGKILL might.
  std::vector<uint8_t> bytes = test::read_file_bytes(path_);
  test::ReadSpool whole = test::read_spool_bytes(bytes);
  ASSERT_TRUE(whole.has_end);
  bytes.resize(bytes.size() - 200);
  {
    std::ofstream out(path_, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  Trace t = import_spool(path_);
  ASSERT_EQ(t.processes.size(), 1u);
  EXPECT_FALSE(t.processes[0].clean_shutdown);
  EXPECT_EQ(t.processes[0].capture_status, "ok");
  bool truncated = false;
  for (const DataLoss& loss : t.data_loss) truncated |= loss.what == "spool_truncated";
  EXPECT_TRUE(truncated);
  // The first buffer's chunk is intact: its copy and allocation are there.
  EXPECT_EQ(t.memcpys.size(), 1u);
  EXPECT_EQ(t.memory_events.size(), 1u);
}

}  // namespace
}  // namespace gpuscope::capture

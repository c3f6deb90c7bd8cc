// The decoder: synthesized CUDA 13 CUPTI records in, spool records out, every field checked.
#include <gtest/gtest.h>

#include "capture/activity_decoder.h"
#include "capture_test_support.h"
#include "gpuscope/model.h"

namespace gpuscope::capture {
namespace {

using test::MockActivityBuffer;
using test::RecordingSink;
namespace sp = gpuscope::spool;

const char* fake_api_name(CUpti_CallbackDomain domain, uint32_t cbid) {
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && cbid == 20) return "cudaMalloc_v3020";
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && cbid == 211) return "cudaLaunchKernel_v7000";
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && cbid == 41) return "cudaMemcpyAsync_ptsz_v7000";
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API && cbid == 33) return "cuMemAlloc_v2";
  return nullptr;
}

int g_enrich_calls = 0;
void fake_enrich(sp::DeviceRecord& d) {
  ++g_enrich_calls;
  d.memory_clock_khz = 2619000;
  d.memory_bus_width_bits = 5120;
}

struct DecoderTest : ::testing::Test {
  RecordingSink sink;
  ActivityDecoder decoder{sink, DecoderHooks{fake_api_name, fake_enrich, 0}};
};

CUpti_ActivityKernel10 make_kernel() {
  CUpti_ActivityKernel10 k{};
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.registersPerThread = 168;
  k.start = 1700000000000000100ull;
  k.end = 1700000000000050100ull;
  k.completed = k.end;
  k.deviceId = 1;
  k.contextId = 7;
  k.streamId = 13;
  k.gridX = 64;
  k.gridY = 32;
  k.gridZ = 2;
  k.blockX = 256;
  k.blockY = 1;
  k.blockZ = 1;
  k.staticSharedMemory = 16384;
  k.dynamicSharedMemory = 98304;
  k.localMemoryPerThread = 24;
  k.localMemoryTotal = 123456;
  k.correlationId = 4242;
  k.gridId = 99;
  k.name = "_Z8bsr_spmmPKfS0_Pfiii";
  k.graphNodeId = 0x1234567890ull;
  k.graphId = 5;
  k.clusterX = 2;
  k.clusterY = 1;
  k.clusterZ = 1;
  return k;
}

TEST_F(DecoderTest, Kernel) {
  CUpti_ActivityKernel10 r = make_kernel();
  ASSERT_TRUE(decoder.decode(reinterpret_cast<CUpti_Activity*>(&r)));
  auto k = sink.only<sp::KernelRecord>(sp::RecordKind::Kernel);
  EXPECT_EQ(k.start_ns, 1700000000000000100);
  EXPECT_EQ(k.end_ns, 1700000000000050100);
  EXPECT_EQ(k.graph_node_id, 0x1234567890ull);
  EXPECT_EQ(k.device, 1u);
  EXPECT_EQ(k.context, 7u);
  EXPECT_EQ(k.stream, 13u);
  EXPECT_EQ(sink.str(k.name), "_Z8bsr_spmmPKfS0_Pfiii");
  EXPECT_EQ(k.grid[0], 64);
  EXPECT_EQ(k.grid[1], 32);
  EXPECT_EQ(k.grid[2], 2);
  EXPECT_EQ(k.block[0], 256);
  EXPECT_EQ(k.block[1], 1);
  EXPECT_EQ(k.block[2], 1);
  EXPECT_EQ(k.cluster[0], 2);
  EXPECT_EQ(k.cluster[1], 1);
  EXPECT_EQ(k.cluster[2], 1);
  EXPECT_EQ(k.registers_per_thread, 168u);
  EXPECT_EQ(k.static_shared_bytes, 16384u);
  EXPECT_EQ(k.dynamic_shared_bytes, 98304u);
  EXPECT_EQ(k.local_bytes_per_thread, 24u);
  EXPECT_EQ(k.correlation_id, 4242u);
  EXPECT_EQ(k.graph_id, 5u);
  EXPECT_EQ(k.pad, 0u);
  EXPECT_EQ(decoder.stats().records, 1u);
  EXPECT_EQ(decoder.stats().missing_timestamps, 0u);
}

TEST_F(DecoderTest, KernelNamesAreInternedOnce) {
  CUpti_ActivityKernel10 a = make_kernel(), b = make_kernel();
  b.correlationId = 1;
  decoder.decode(reinterpret_cast<CUpti_Activity*>(&a));
  decoder.decode(reinterpret_cast<CUpti_Activity*>(&b));
  ASSERT_EQ(sink.records.size(), 2u);
  EXPECT_EQ(sink.strings.size(), 1u);
}

TEST_F(DecoderTest, KernelWithoutTimestampsIsKeptAndCounted) {
  CUpti_ActivityKernel10 r = make_kernel();
  r.start = 0;
  r.end = 0;
  r.name = nullptr;
  ASSERT_TRUE(decoder.decode(reinterpret_cast<CUpti_Activity*>(&r)));
  auto k = sink.only<sp::KernelRecord>(sp::RecordKind::Kernel);
  EXPECT_EQ(k.start_ns, 0);
  EXPECT_EQ(k.name, 0u);
  EXPECT_EQ(decoder.stats().missing_timestamps, 1u);
}

TEST_F(DecoderTest, LegacyKernelKindUsesTheSameLayout) {
  CUpti_ActivityKernel10 r = make_kernel();
  r.kind = CUPTI_ACTIVITY_KIND_KERNEL;
  ASSERT_TRUE(decoder.decode(reinterpret_cast<CUpti_Activity*>(&r)));
  EXPECT_EQ(sink.only<sp::KernelRecord>(sp::RecordKind::Kernel).correlation_id, 4242u);
}

TEST_F(DecoderTest, Memcpy) {
  CUpti_ActivityMemcpy6 r{};
  r.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  r.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
  r.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
  r.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  r.flags = 0;
  r.bytes = 268435456;
  r.start = 1000;
  r.end = 21000;
  r.deviceId = 0;
  r.contextId = 1;
  r.streamId = 7;
  r.correlationId = 77;
  r.runtimeCorrelationId = 76;
  r.graphNodeId = 3;
  r.graphId = 4;
  ASSERT_TRUE(decoder.decode(reinterpret_cast<CUpti_Activity*>(&r)));
  auto m = sink.only<sp::MemcpyRecord>(sp::RecordKind::Memcpy);
  EXPECT_EQ(m.start_ns, 1000);
  EXPECT_EQ(m.end_ns, 21000);
  EXPECT_EQ(m.bytes, 268435456u);
  EXPECT_EQ(m.device, 0u);
  EXPECT_EQ(m.context, 1u);
  EXPECT_EQ(m.stream, 7u);
  EXPECT_EQ(m.correlation_id, 77u);
  EXPECT_EQ(m.graph_id, 4u);
  EXPECT_EQ(m.copy_kind, static_cast<uint8_t>(CopyKind::HtoD));
  EXPECT_EQ(m.src_kind, static_cast<uint8_t>(MemoryKind::Pageable));
  EXPECT_EQ(m.dst_kind, static_cast<uint8_t>(MemoryKind::Device));
  EXPECT_EQ(m.async, 0);
}

TEST_F(DecoderTest, MemcpyAsyncPinnedDeviceToHost) {
  CUpti_ActivityMemcpy6 r{};
  r.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  r.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
  r.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  r.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
  r.flags = CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC;
  r.start = 1;
  r.end = 2;
  decoder.decode(reinterpret_cast<CUpti_Activity*>(&r));
  auto m = sink.only<sp::MemcpyRecord>(sp::RecordKind::Memcpy);
  EXPECT_EQ(m.copy_kind, static_cast<uint8_t>(CopyKind::DtoH));
  EXPECT_EQ(m.src_kind, static_cast<uint8_t>(MemoryKind::Device));
  EXPECT_EQ(m.dst_kind, static_cast<uint8_t>(MemoryKind::Pinned));
  EXPECT_EQ(m.async, 1);
}

TEST_F(DecoderTest, PeerCopyBecomesAMemcpyRecord) {
  CUpti_ActivityMemcpyPtoP4 r{};
  r.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
  r.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
  r.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  r.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  r.flags = CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC;
  r.bytes = 4096;
  r.start = 10;
  r.end = 20;
  r.deviceId = 1;
  r.contextId = 2;
  r.streamId = 3;
  r.srcDeviceId = 1;
  r.dstDeviceId = 0;
  r.correlationId = 9;
  r.graphId = 0;
  decoder.decode(reinterpret_cast<CUpti_Activity*>(&r));
  auto m = sink.only<sp::MemcpyRecord>(sp::RecordKind::Memcpy);
  EXPECT_EQ(m.copy_kind, static_cast<uint8_t>(CopyKind::PtoP));
  EXPECT_EQ(m.bytes, 4096u);
  EXPECT_EQ(m.device, 1u);
  EXPECT_EQ(m.context, 2u);
  EXPECT_EQ(m.stream, 3u);
  EXPECT_EQ(m.correlation_id, 9u);
  EXPECT_EQ(m.async, 1);
  EXPECT_EQ(m.start_ns, 10);
  EXPECT_EQ(m.end_ns, 20);
}

TEST_F(DecoderTest, Memset) {
  CUpti_ActivityMemset4 r{};
  r.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  r.value = 0xAB;
  r.bytes = 1 << 20;
  r.start = 500;
  r.end = 900;
  r.deviceId = 2;
  r.contextId = 3;
  r.streamId = 4;
  r.correlationId = 55;
  r.flags = CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC;
  r.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_MANAGED;
  r.graphId = 6;
  decoder.decode(reinterpret_cast<CUpti_Activity*>(&r));
  auto m = sink.only<sp::MemsetRecord>(sp::RecordKind::Memset);
  EXPECT_EQ(m.start_ns, 500);
  EXPECT_EQ(m.end_ns, 900);
  EXPECT_EQ(m.bytes, 1u << 20);
  EXPECT_EQ(m.device, 2u);
  EXPECT_EQ(m.context, 3u);
  EXPECT_EQ(m.stream, 4u);
  EXPECT_EQ(m.correlation_id, 55u);
  EXPECT_EQ(m.graph_id, 6u);
  EXPECT_EQ(m.value, 0xABu);
  EXPECT_EQ(m.memory_kind, static_cast<uint8_t>(MemoryKind::Managed));
  EXPECT_EQ(m.async, 1);
}

TEST_F(DecoderTest, MemoryAllocAndFree) {
  CUpti_ActivityMemory4 r{};
  r.kind = CUPTI_ACTIVITY_KIND_MEMORY2;
  r.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION;
  r.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  r.correlationId = 31;
  r.address = 0x7f0000000000ull;
  r.bytes = 268435456;
  r.timestamp = 123456789;
  r.processId = 1;
  r.deviceId = 0;
  r.contextId = 1;
  r.streamId = 7;
  decoder.decode(reinterpret_cast<CUpti_Activity*>(&r));
  r.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE;
  r.timestamp = 223456789;
  r.correlationId = 32;
  decoder.decode(reinterpret_cast<CUpti_Activity*>(&r));
  ASSERT_EQ(sink.records.size(), 2u);
  sp::MemoryRecord alloc, release;
  std::memcpy(&alloc, sink.records[0].body.data(), sizeof(alloc));
  std::memcpy(&release, sink.records[1].body.data(), sizeof(release));
  EXPECT_EQ(alloc.op, static_cast<uint8_t>(MemoryOp::Alloc));
  EXPECT_EQ(alloc.timestamp_ns, 123456789);
  EXPECT_EQ(alloc.address, 0x7f0000000000ull);
  EXPECT_EQ(alloc.bytes, 268435456u);
  EXPECT_EQ(alloc.device, 0u);
  EXPECT_EQ(alloc.context, 1u);
  EXPECT_EQ(alloc.stream, 7u);
  EXPECT_EQ(alloc.correlation_id, 31u);
  EXPECT_EQ(alloc.memory_kind, static_cast<uint8_t>(MemoryKind::Device));
  EXPECT_EQ(release.op, static_cast<uint8_t>(MemoryOp::Free));
  EXPECT_EQ(release.timestamp_ns, 223456789);
  EXPECT_EQ(release.correlation_id, 32u);
}

TEST_F(DecoderTest, MemoryWithInvalidOperationIsIgnored) {
  CUpti_ActivityMemory4 r{};
  r.kind = CUPTI_ACTIVITY_KIND_MEMORY2;
  r.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_INVALID;
  EXPECT_FALSE(decoder.decode(reinterpret_cast<CUpti_Activity*>(&r)));
  EXPECT_TRUE(sink.records.empty());
  EXPECT_EQ(decoder.stats().ignored, 1u);
}

TEST_F(DecoderTest, RuntimeApi) {
  CUpti_ActivityAPI r{};
  r.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  r.cbid = 20;
  r.start = 5000;
  r.end = 95000;
  r.processId = 1234;
  r.threadId = 1240;
  r.correlationId = 31;
  r.returnValue = 2;  // cudaErrorMemoryAllocation
  ASSERT_TRUE(decoder.decode(reinterpret_cast<CUpti_Activity*>(&r)));
  auto a = sink.only<sp::ApiRecord>(sp::RecordKind::Api);
  EXPECT_EQ(a.start_ns, 5000);
  EXPECT_EQ(a.end_ns, 95000);
  EXPECT_EQ(a.tid, 1240u);
  EXPECT_EQ(a.cbid, 20u);
  EXPECT_EQ(sink.str(a.name), "cudaMalloc");
  EXPECT_EQ(a.return_code, 2);
  EXPECT_EQ(a.correlation_id, 31u);
  EXPECT_EQ(a.domain, static_cast<uint8_t>(ApiDomain::Runtime));
}

TEST_F(DecoderTest, ApiNamesAreLookedUpOncePerCallbackId) {
  CUpti_ActivityAPI r{};
  r.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  r.cbid = 211;
  for (int i = 0; i < 3; ++i) decoder.decode(reinterpret_cast<CUpti_Activity*>(&r));
  r.cbid = 41;
  decoder.decode(reinterpret_cast<CUpti_Activity*>(&r));
  ASSERT_EQ(sink.records.size(), 4u);
  EXPECT_EQ(sink.strings.size(), 2u);
  EXPECT_EQ(sink.ids.count("cudaLaunchKernel"), 1u);
  EXPECT_EQ(sink.ids.count("cudaMemcpyAsync_ptsz"), 1u);
}

TEST_F(DecoderTest, DriverApiKeepsItsVersionedName) {
  CUpti_ActivityAPI r{};
  r.kind = CUPTI_ACTIVITY_KIND_DRIVER;
  r.cbid = 33;
  r.returnValue = 0;
  decoder.decode(reinterpret_cast<CUpti_Activity*>(&r));
  auto a = sink.only<sp::ApiRecord>(sp::RecordKind::Api);
  EXPECT_EQ(sink.str(a.name), "cuMemAlloc_v2");
  EXPECT_EQ(a.domain, static_cast<uint8_t>(ApiDomain::Driver));
}

TEST_F(DecoderTest, UnknownCallbackIdGetsAPlaceholderName) {
  CUpti_ActivityAPI r{};
  r.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  r.cbid = 9999;
  decoder.decode(reinterpret_cast<CUpti_Activity*>(&r));
  EXPECT_EQ(sink.str(sink.only<sp::ApiRecord>(sp::RecordKind::Api).name), "runtime_cbid_9999");
}

TEST_F(DecoderTest, OwnThreadApiRecordsAreDropped) {
  ActivityDecoder own_threads(sink, DecoderHooks{fake_api_name, fake_enrich, [](uint32_t tid) { return tid == 777; }});
  CUpti_ActivityAPI r{};
  r.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  r.cbid = 20;
  r.threadId = 777;
  EXPECT_FALSE(own_threads.decode(reinterpret_cast<CUpti_Activity*>(&r)));
  r.threadId = 778;
  EXPECT_TRUE(own_threads.decode(reinterpret_cast<CUpti_Activity*>(&r)));
  EXPECT_EQ(own_threads.stats().own_thread, 1u);
  EXPECT_EQ(sink.records.size(), 1u);
}

TEST_F(DecoderTest, Synchronization) {
  CUpti_ActivitySynchronization2 r{};
  r.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
  r.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
  r.start = 100;
  r.end = 5100;
  r.correlationId = 88;
  r.contextId = 1;
  r.streamId = 7;
  r.cudaEventId = 0;
  decoder.decode(reinterpret_cast<CUpti_Activity*>(&r));
  auto s = sink.only<sp::SyncRecord>(sp::RecordKind::Sync);
  EXPECT_EQ(s.start_ns, 100);
  EXPECT_EQ(s.end_ns, 5100);
  EXPECT_EQ(s.context, 1u);
  EXPECT_EQ(s.stream, 7u);
  EXPECT_EQ(s.correlation_id, 88u);
  EXPECT_EQ(s.sync_kind, static_cast<uint8_t>(SyncKind::StreamSynchronize));
}

TEST_F(DecoderTest, Stream) {
  CUpti_ActivityStream r{};
  r.kind = CUPTI_ACTIVITY_KIND_STREAM;
  r.contextId = 1;
  r.streamId = 13;
  r.priority = static_cast<uint32_t>(-3);  // CUPTI's field is unsigned; CUDA's priorities are not
  r.flag = CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NON_BLOCKING;
  r.correlationId = 40;
  decoder.decode(reinterpret_cast<CUpti_Activity*>(&r));
  auto s = sink.only<sp::StreamRecord>(sp::RecordKind::Stream);
  EXPECT_EQ(s.context, 1u);
  EXPECT_EQ(s.stream, 13u);
  EXPECT_EQ(s.priority, -3);
  EXPECT_EQ(s.correlation_id, 40u);
  EXPECT_EQ(s.flag, static_cast<uint8_t>(sp::StreamCode::NonBlocking));
  EXPECT_EQ(to_stream_code(CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NULL), static_cast<uint8_t>(sp::StreamCode::Legacy));
  EXPECT_EQ(to_stream_code(CUPTI_ACTIVITY_STREAM_CREATE_FLAG_DEFAULT), static_cast<uint8_t>(sp::StreamCode::Blocking));
  EXPECT_EQ(to_stream_code(0x7fff), static_cast<uint8_t>(sp::StreamCode::Unknown));
}

CUpti_ActivityMarker2 make_marker(uint32_t flags, CUpti_ActivityObjectKind object, const char* name,
                                  const char* domain) {
  CUpti_ActivityMarker2 m{};
  m.kind = CUPTI_ACTIVITY_KIND_MARKER;
  m.flags = static_cast<CUpti_ActivityFlag>(flags);
  m.timestamp = 1000;
  m.id = 17;
  m.objectKind = object;
  m.objectId.pt.processId = 1234;
  m.objectId.pt.threadId = 1240;
  m.name = name;
  m.domain = domain;
  return m;
}

TEST_F(DecoderTest, MarkerPushPopRange) {
  auto push = make_marker(CUPTI_ACTIVITY_FLAG_MARKER_START, CUPTI_ACTIVITY_OBJECT_THREAD, "forward", nullptr);
  auto pop = make_marker(CUPTI_ACTIVITY_FLAG_MARKER_END, CUPTI_ACTIVITY_OBJECT_THREAD, nullptr, nullptr);
  pop.timestamp = 2000;
  decoder.decode(reinterpret_cast<CUpti_Activity*>(&push));
  decoder.decode(reinterpret_cast<CUpti_Activity*>(&pop));
  ASSERT_EQ(sink.records.size(), 2u);
  sp::MarkerRecord start, end;
  std::memcpy(&start, sink.records[0].body.data(), sizeof(start));
  std::memcpy(&end, sink.records[1].body.data(), sizeof(end));
  EXPECT_EQ(start.timestamp_ns, 1000);
  EXPECT_EQ(start.id, 17u);
  EXPECT_EQ(start.tid, 1240u);
  EXPECT_EQ(sink.str(start.name), "forward");
  EXPECT_EQ(start.domain, 0u);
  EXPECT_EQ(start.phase, static_cast<uint8_t>(sp::MarkerPhase::Start));
  EXPECT_EQ(start.thread_scoped, 1);
  EXPECT_EQ(end.timestamp_ns, 2000);
  EXPECT_EQ(end.id, 17u);
  EXPECT_EQ(end.name, 0u);
  EXPECT_EQ(end.phase, static_cast<uint8_t>(sp::MarkerPhase::End));
  EXPECT_EQ(end.thread_scoped, 1);
}

TEST_F(DecoderTest, MarkerStartEndRangeIsProcessScoped) {
  auto start = make_marker(CUPTI_ACTIVITY_FLAG_MARKER_START, CUPTI_ACTIVITY_OBJECT_PROCESS, "epoch", "trainer");
  decoder.decode(reinterpret_cast<CUpti_Activity*>(&start));
  auto m = sink.only<sp::MarkerRecord>(sp::RecordKind::Marker);
  EXPECT_EQ(m.thread_scoped, 0);
  EXPECT_EQ(m.tid, 0u);
  EXPECT_EQ(sink.str(m.name), "epoch");
  EXPECT_EQ(sink.str(m.domain), "trainer");
  EXPECT_EQ(m.phase, static_cast<uint8_t>(sp::MarkerPhase::Start));
}

TEST_F(DecoderTest, MarkerInstant) {
  auto mark = make_marker(CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS, CUPTI_ACTIVITY_OBJECT_THREAD, "checkpoint", "io");
  decoder.decode(reinterpret_cast<CUpti_Activity*>(&mark));
  auto m = sink.only<sp::MarkerRecord>(sp::RecordKind::Marker);
  EXPECT_EQ(m.phase, static_cast<uint8_t>(sp::MarkerPhase::Instant));
  EXPECT_EQ(m.thread_scoped, 1);
  EXPECT_EQ(m.tid, 1240u);
  EXPECT_EQ(sink.str(m.name), "checkpoint");
  EXPECT_EQ(sink.str(m.domain), "io");
}

TEST_F(DecoderTest, MarkerSyncFlagsAreIgnored) {
  auto sync = make_marker(CUPTI_ACTIVITY_FLAG_MARKER_SYNC_ACQUIRE, CUPTI_ACTIVITY_OBJECT_THREAD, "lock", nullptr);
  EXPECT_FALSE(decoder.decode(reinterpret_cast<CUpti_Activity*>(&sync)));
  EXPECT_TRUE(sink.records.empty());
  EXPECT_EQ(decoder.stats().ignored, 1u);
}

TEST_F(DecoderTest, Overhead) {
  CUpti_ActivityOverhead3 r{};
  r.kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
  r.overheadKind = CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH;
  r.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
  r.start = 10;
  r.end = 30;
  decoder.decode(reinterpret_cast<CUpti_Activity*>(&r));
  auto o = sink.only<sp::OverheadRecord>(sp::RecordKind::Overhead);
  EXPECT_EQ(o.start_ns, 10);
  EXPECT_EQ(o.end_ns, 30);
  EXPECT_EQ(sink.str(o.kind), "cupti_buffer_flush");
}

TEST_F(DecoderTest, Device) {
  CUpti_ActivityDevice5 r{};
  r.kind = CUPTI_ACTIVITY_KIND_DEVICE;
  r.globalMemoryBandwidth = 3352000000ull;
  r.globalMemorySize = 85045477376ull;
  r.l2CacheSize = 52428800;
  r.numThreadsPerWarp = 32;
  r.coreClockRate = 1980000;
  r.numMemcpyEngines = 3;
  r.numMultiprocessors = 132;
  r.maxWarpsPerMultiprocessor = 64;
  r.maxBlocksPerMultiprocessor = 32;
  r.maxSharedMemoryPerMultiprocessor = 233472;
  r.maxRegistersPerMultiprocessor = 65536;
  r.maxRegistersPerBlock = 65536;
  r.maxSharedMemoryPerBlock = 49152;
  r.maxThreadsPerBlock = 1024;
  r.computeCapabilityMajor = 9;
  r.computeCapabilityMinor = 0;
  r.id = 0;
  for (int i = 0; i < 16; ++i) r.uuid.bytes[i] = static_cast<char>(0x10 + i);
  r.name = "NVIDIA H100 80GB HBM3";
  g_enrich_calls = 0;
  decoder.decode(reinterpret_cast<CUpti_Activity*>(&r));
  auto d = sink.only<sp::DeviceRecord>(sp::RecordKind::Device);
  EXPECT_EQ(d.global_memory_bytes, 85045477376ull);
  EXPECT_EQ(d.global_memory_bandwidth_kbps, 3352000000ull);
  EXPECT_EQ(d.id, 0u);
  EXPECT_EQ(sink.str(d.name), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(sink.str(d.uuid), "GPU-10111213-1415-1617-1819-1a1b1c1d1e1f");
  EXPECT_EQ(d.compute_major, 9u);
  EXPECT_EQ(d.compute_minor, 0u);
  EXPECT_EQ(d.sm_count, 132u);
  EXPECT_EQ(d.core_clock_khz, 1980000u);
  EXPECT_EQ(d.memory_clock_khz, 2619000u);    // from the enrich hook
  EXPECT_EQ(d.memory_bus_width_bits, 5120u);  // from the enrich hook
  EXPECT_EQ(d.l2_cache_bytes, 52428800u);
  EXPECT_EQ(d.max_registers_per_sm, 65536u);
  EXPECT_EQ(d.max_registers_per_block, 65536u);
  EXPECT_EQ(d.max_shared_per_sm_bytes, 233472u);
  EXPECT_EQ(d.max_shared_per_block_bytes, 49152u);
  EXPECT_EQ(d.max_warps_per_sm, 64u);
  EXPECT_EQ(d.max_blocks_per_sm, 32u);
  EXPECT_EQ(d.max_threads_per_block, 1024u);
  EXPECT_EQ(d.warp_size, 32u);
  EXPECT_EQ(d.copy_engines, 3u);
  EXPECT_EQ(g_enrich_calls, 1);
}

TEST_F(DecoderTest, UntrackedKindsAreIgnored) {
  CUpti_ActivityContext3 r{};
  r.kind = CUPTI_ACTIVITY_KIND_CONTEXT;
  EXPECT_FALSE(decoder.decode(reinterpret_cast<CUpti_Activity*>(&r)));
  EXPECT_FALSE(decoder.decode(nullptr));
  EXPECT_EQ(decoder.stats().ignored, 1u);
  EXPECT_TRUE(sink.records.empty());
}

TEST_F(DecoderTest, BufferWalk) {
  MockActivityBuffer buffer;
  buffer.add(make_kernel());
  CUpti_ActivityAPI api{};
  api.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  api.cbid = 211;
  buffer.add(api);
  CUpti_ActivityContext3 ctx{};
  ctx.kind = CUPTI_ACTIVITY_KIND_CONTEXT;
  buffer.add(ctx);
  EXPECT_EQ(decoder.decode_buffer(buffer.data(), buffer.size(), test::mock_next_record), 3u);
  EXPECT_EQ(sink.records.size(), 2u);
  EXPECT_EQ(decoder.stats().incomplete_buffers, 0u);
}

TEST_F(DecoderTest, BufferWalkStopsAtAnIncompleteRecord) {
  MockActivityBuffer buffer;
  buffer.add(make_kernel());
  buffer.add_incomplete();
  buffer.add(make_kernel());
  EXPECT_EQ(decoder.decode_buffer(buffer.data(), buffer.size(), test::mock_next_record), 1u);
  EXPECT_EQ(decoder.stats().incomplete_buffers, 1u);
  EXPECT_EQ(decoder.decode_buffer(buffer.data(), 0, test::mock_next_record), 0u);
}

// --- Pure mappings ------------------------------------------------------------------------

TEST(DecoderMappings, CopyKinds) {
  EXPECT_EQ(to_copy_kind(CUPTI_ACTIVITY_MEMCPY_KIND_UNKNOWN), static_cast<uint8_t>(CopyKind::Unknown));
  EXPECT_EQ(to_copy_kind(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD), static_cast<uint8_t>(CopyKind::HtoD));
  EXPECT_EQ(to_copy_kind(CUPTI_ACTIVITY_MEMCPY_KIND_DTOH), static_cast<uint8_t>(CopyKind::DtoH));
  EXPECT_EQ(to_copy_kind(CUPTI_ACTIVITY_MEMCPY_KIND_HTOA), static_cast<uint8_t>(CopyKind::HtoA));
  EXPECT_EQ(to_copy_kind(CUPTI_ACTIVITY_MEMCPY_KIND_ATOH), static_cast<uint8_t>(CopyKind::AtoH));
  EXPECT_EQ(to_copy_kind(CUPTI_ACTIVITY_MEMCPY_KIND_ATOA), static_cast<uint8_t>(CopyKind::AtoA));
  EXPECT_EQ(to_copy_kind(CUPTI_ACTIVITY_MEMCPY_KIND_ATOD), static_cast<uint8_t>(CopyKind::AtoD));
  EXPECT_EQ(to_copy_kind(CUPTI_ACTIVITY_MEMCPY_KIND_DTOA), static_cast<uint8_t>(CopyKind::DtoA));
  EXPECT_EQ(to_copy_kind(CUPTI_ACTIVITY_MEMCPY_KIND_DTOD), static_cast<uint8_t>(CopyKind::DtoD));
  EXPECT_EQ(to_copy_kind(CUPTI_ACTIVITY_MEMCPY_KIND_HTOH), static_cast<uint8_t>(CopyKind::HtoH));
  EXPECT_EQ(to_copy_kind(CUPTI_ACTIVITY_MEMCPY_KIND_PTOP), static_cast<uint8_t>(CopyKind::PtoP));
  EXPECT_EQ(to_copy_kind(200), static_cast<uint8_t>(CopyKind::Unknown));
}

TEST(DecoderMappings, MemoryKinds) {
  EXPECT_EQ(to_memory_kind(CUPTI_ACTIVITY_MEMORY_KIND_UNKNOWN), static_cast<uint8_t>(MemoryKind::Unknown));
  EXPECT_EQ(to_memory_kind(CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE), static_cast<uint8_t>(MemoryKind::Pageable));
  EXPECT_EQ(to_memory_kind(CUPTI_ACTIVITY_MEMORY_KIND_PINNED), static_cast<uint8_t>(MemoryKind::Pinned));
  EXPECT_EQ(to_memory_kind(CUPTI_ACTIVITY_MEMORY_KIND_DEVICE), static_cast<uint8_t>(MemoryKind::Device));
  EXPECT_EQ(to_memory_kind(CUPTI_ACTIVITY_MEMORY_KIND_ARRAY), static_cast<uint8_t>(MemoryKind::Array));
  EXPECT_EQ(to_memory_kind(CUPTI_ACTIVITY_MEMORY_KIND_MANAGED), static_cast<uint8_t>(MemoryKind::Managed));
  EXPECT_EQ(to_memory_kind(CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC), static_cast<uint8_t>(MemoryKind::DeviceStatic));
  EXPECT_EQ(to_memory_kind(CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC), static_cast<uint8_t>(MemoryKind::ManagedStatic));
  EXPECT_EQ(to_memory_kind(99), static_cast<uint8_t>(MemoryKind::Unknown));
}

TEST(DecoderMappings, SyncKinds) {
  EXPECT_EQ(to_sync_kind(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_UNKNOWN), static_cast<uint8_t>(SyncKind::Unknown));
  EXPECT_EQ(to_sync_kind(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE),
            static_cast<uint8_t>(SyncKind::EventSynchronize));
  EXPECT_EQ(to_sync_kind(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT),
            static_cast<uint8_t>(SyncKind::StreamWaitEvent));
  EXPECT_EQ(to_sync_kind(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE),
            static_cast<uint8_t>(SyncKind::StreamSynchronize));
  EXPECT_EQ(to_sync_kind(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE),
            static_cast<uint8_t>(SyncKind::ContextSynchronize));
  EXPECT_EQ(to_sync_kind(17), static_cast<uint8_t>(SyncKind::Unknown));
}

TEST(DecoderMappings, MarkerPhases) {
  sp::MarkerPhase phase;
  ASSERT_TRUE(to_marker_phase(CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS, phase));
  EXPECT_EQ(phase, sp::MarkerPhase::Instant);
  ASSERT_TRUE(to_marker_phase(CUPTI_ACTIVITY_FLAG_MARKER_START, phase));
  EXPECT_EQ(phase, sp::MarkerPhase::Start);
  ASSERT_TRUE(to_marker_phase(CUPTI_ACTIVITY_FLAG_MARKER_END, phase));
  EXPECT_EQ(phase, sp::MarkerPhase::End);
  EXPECT_FALSE(to_marker_phase(CUPTI_ACTIVITY_FLAG_NONE, phase));
  EXPECT_FALSE(to_marker_phase(CUPTI_ACTIVITY_FLAG_MARKER_SYNC_RELEASE, phase));
}

TEST(DecoderMappings, MemoryOps) {
  uint8_t op = 0xFF;
  ASSERT_TRUE(to_memory_op(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, op));
  EXPECT_EQ(op, static_cast<uint8_t>(MemoryOp::Alloc));
  ASSERT_TRUE(to_memory_op(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE, op));
  EXPECT_EQ(op, static_cast<uint8_t>(MemoryOp::Free));
  EXPECT_FALSE(to_memory_op(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_INVALID, op));
}

TEST(DecoderMappings, OverheadKindNames) {
  EXPECT_STREQ(overhead_kind_name(CUPTI_ACTIVITY_OVERHEAD_DRIVER_COMPILER), "driver_compiler");
  EXPECT_STREQ(overhead_kind_name(CUPTI_ACTIVITY_OVERHEAD_CUPTI_INSTRUMENTATION), "cupti_instrumentation");
  EXPECT_STREQ(overhead_kind_name(CUPTI_ACTIVITY_OVERHEAD_CUPTI_RESOURCE), "cupti_resource");
  EXPECT_STREQ(overhead_kind_name(CUPTI_ACTIVITY_OVERHEAD_RUNTIME_TRIGGERED_MODULE_LOADING),
               "runtime_triggered_module_loading");
  EXPECT_STREQ(overhead_kind_name(CUPTI_ACTIVITY_OVERHEAD_LAZY_FUNCTION_LOADING), "lazy_function_loading");
  EXPECT_STREQ(overhead_kind_name(CUPTI_ACTIVITY_OVERHEAD_COMMAND_BUFFER_FULL), "command_buffer_full");
  EXPECT_STREQ(overhead_kind_name(CUPTI_ACTIVITY_OVERHEAD_ACTIVITY_BUFFER_REQUEST), "activity_buffer_request");
  EXPECT_STREQ(overhead_kind_name(CUPTI_ACTIVITY_OVERHEAD_UVM_ACTIVITY_INIT), "uvm_activity_init");
  EXPECT_STREQ(overhead_kind_name(CUPTI_ACTIVITY_OVERHEAD_UNKNOWN), "unknown");
  EXPECT_STREQ(overhead_kind_name(12345), "unknown");
}

TEST(DecoderMappings, RuntimeApiBaseName) {
  EXPECT_EQ(runtime_api_base_name("cudaMalloc_v3020"), "cudaMalloc");
  EXPECT_EQ(runtime_api_base_name("cudaGraphInstantiateWithFlags_v11040"), "cudaGraphInstantiateWithFlags");
  EXPECT_EQ(runtime_api_base_name("cudaMemcpyAsync_ptsz_v7000"), "cudaMemcpyAsync_ptsz");
  EXPECT_EQ(runtime_api_base_name("cudaMalloc"), "cudaMalloc");
  EXPECT_EQ(runtime_api_base_name("cudaFoo_v"), "cudaFoo_v");
  EXPECT_EQ(runtime_api_base_name("cudaFoo_vX1"), "cudaFoo_vX1");
  EXPECT_EQ(runtime_api_base_name("_v1"), "_v1");
  EXPECT_EQ(runtime_api_base_name(""), "");
}

TEST(DecoderMappings, Uuid) {
  CUuuid uuid{};
  EXPECT_EQ(format_uuid(uuid), "GPU-00000000-0000-0000-0000-000000000000");
  for (int i = 0; i < 16; ++i) uuid.bytes[i] = static_cast<char>(0xF0 | i);
  EXPECT_EQ(format_uuid(uuid), "GPU-f0f1f2f3-f4f5-f6f7-f8f9-fafbfcfdfeff");
}

}  // namespace
}  // namespace gpuscope::capture

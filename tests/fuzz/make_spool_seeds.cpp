// Writes the spool fuzz target's seeds (tests/fuzz/seeds/spool): no spool is kept in tests/data
// since the unit tests build theirs in memory, and there is no GPU to capture one on. One spool
// holds every record kind the format has, in two chunks and a clean end; a second is the same
// process killed before its End record. Both are written in the current version, the only one the
// importer reads. Rerun after a spool format change:
//   gpuscope_fuzz_spool_seeds tests/fuzz/seeds/spool
#include <cstdio>
#include <string>

#include "spool_builder.h"  // tests/unit

using namespace gpuscope;
using spool::RecordKind;

namespace {

void every_record(testing::SpoolBuilder& b) {
  b.string(1, "_Z15bsr_spmm_kernelILi128ELi128ELi32EEvPKfS1_Pf")
      .string(2, "cudaLaunchKernel")
      .string(3, "iteration")
      .string(4, "NVIDIA H200")
      .string(5, "GPU-0123456789abcdef")
      .string(6, "cupti_buffer_flush")
      .string(7, "cupti_dropped_records")
      .string(8, "sm__throughput.avg.pct_of_peak_sustained_elapsed")
      .string(9, "GH100")
      .string(10, "ok")
      .string(11, "aten::add_")
      .string(12, "_Z7hotspotPf")
      .string(13, "long_scoreboard")
      .string(static_cast<uint32_t>(spool::TextKey::CommandLine), "./bsr_spmm --iters 2", true)
      .string(static_cast<uint32_t>(spool::TextKey::CaptureStatus), "ok", true)
      .string(static_cast<uint32_t>(spool::TextKey::CuptiPath), "/usr/local/cuda/lib64/libcupti.so", true)
      .string(static_cast<uint32_t>(spool::TextKey::CaptureRange), "cudaProfilerStart/Stop", true)
      .string(static_cast<uint32_t>(spool::TextKey::CuptiShared), "1", true)
      .string(static_cast<uint32_t>(spool::TextKey::Distributed), "0 0 2", true)
      .string(static_cast<uint32_t>(spool::TextKey::ApiTrace), "core", true)
      // A cubin: its CRC (8 bytes, little-endian), then the ELF's first bytes.
      .string(static_cast<uint32_t>(spool::TextKey::Cubin),
              std::string("\xa6\x47\x6d\xa1\0\0\0\0\x7f"
                          "ELF",
                          12),
              true)
      .record(RecordKind::Process, spool::ProcessRecord{1500, 100, 99, 13000, 13000, 130001, 0})
      .record(RecordKind::Device,
              spool::DeviceRecord{
                  150'000'000'000, 4'800'000'000, 0,     4,       5,      9,  0,  132,  1'980'000, 2'619'000, 6144,
                  52'428'800,      65536,         65536, 233'472, 49'152, 64, 32, 1024, 32,        7,         0})
      .record(RecordKind::CaptureWindow, spool::CaptureWindowRecord{1800, 9000})
      .record(RecordKind::Marker, spool::MarkerRecord{2000, 1, 4242, 3, 0, 1, 1, {}})
      .record(RecordKind::CommCall,
              spool::CommCallRecord{2100, 0, 0xc0ffee, 4242, -1, 2, 0, uint8_t(spool::CommCallCode::CommInit), {}, 0})
      .record(RecordKind::CommCall,
              spool::CommCallRecord{
                  2150, 1 << 20, 0xc0ffee, 4242, -1, 0, -1, uint8_t(spool::CommCallCode::AllReduce), {}, 0})
      .record(RecordKind::Api, spool::ApiRecord{2200, 2300, 4242, 211, 2, 0, 10, 0, {}})
      .record(RecordKind::CommCall,
              spool::CommCallRecord{2300, 0, 0xc0ffee, 4242, -1, 0, -1, uint8_t(spool::CommCallCode::Launch), {}, 10})
      .record(RecordKind::Memory, spool::MemoryRecord{2250, 0x7f0000000000, 1 << 20, 0, 1, 7, 12, 0, 3, {}})
      .record(RecordKind::Stream, spool::StreamRecord{1, 13, -3, 9, uint8_t(spool::StreamCode::NonBlocking), {}})
      .record(RecordKind::GraphNode, spool::GraphNodeRecord{2310, 77, 0, 10, 4242})
      .record(RecordKind::GraphNode, spool::GraphNodeRecord{2320, 78, 77, 0, 4242})
      .record(RecordKind::TorchOp, spool::TorchOpRecord{2150, 2350, 7, 4242, 11})
      .flush();
  b.record(
       RecordKind::Kernel,
       spool::KernelRecord{2400, 3400, 0, 0, 1, 7, 1, {64, 1, 1}, {128, 1, 1}, {1, 1, 1}, 197, 4096, 0, 0, 10, 0, 0})
      .record(RecordKind::Memcpy, spool::MemcpyRecord{3500, 3900, 1 << 20, 0, 1, 7, 13, 0, 1, 1, 3, 1})
      .record(RecordKind::Memset, spool::MemsetRecord{3950, 4000, 4096, 0, 1, 7, 14, 0, 0, 3, 1, {}})
      .record(RecordKind::Sync, spool::SyncRecord{4000, 4500, 1, 7, 11, 3, {}})
      .record(RecordKind::Marker, spool::MarkerRecord{4600, 1, 4242, 0, 0, 2, 1, {}})
      .record(RecordKind::Overhead, spool::OverheadRecord{4700, 4800, 6, 0})
      .record(RecordKind::Loss, spool::LossRecord{3, 7, 0})
      .record(RecordKind::KernelMetric, spool::KernelMetricRecord{87.5, 10, 8})
      .record(RecordKind::GpuSample, spool::GpuSampleRecord{2000, 3000, 55.0, 0, 8})
      .record(RecordKind::MetricCollection, spool::MetricCollectionRecord{1, 0, 0, 10, 9, 3, 1, 0, {}})
      .record(RecordKind::ApiCount, spool::ApiCountRecord{40, 12'000, 2, 0, {}})
      .record(RecordKind::PcSample, spool::PcSampleRecord{0xa16d47a6, 0x3f0, 120, 110, 12, 13, 0, 0})
      .record(RecordKind::PcSampling, spool::PcSamplingRecord{200, 4, 10, 0, 11, 0, 0})
      .flush();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  testing::SpoolBuilder killed(100, 99, 1000);
  every_record(killed);
  killed.write(dir + "/killed.spool.bin");
  testing::SpoolBuilder clean(100, 99, 1000);
  every_record(clean);
  clean.end(10'000);
  clean.write(dir + "/every_record.spool.bin");
  return 0;
}

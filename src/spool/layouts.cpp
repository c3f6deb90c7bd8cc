#include "spool/layouts.h"

#include <array>
#include <initializer_list>
#include <type_traits>
#include <utility>

namespace gpuscope::spool {

namespace {

template <class T>
constexpr Field field_of(size_t offset, int8_t base) {
  return {static_cast<uint16_t>(offset), static_cast<uint8_t>(sizeof(T)), std::is_integral_v<T> && std::is_signed_v<T>,
          base};
}

// F(ApiRecord, tid): a field stored as a delta of itself; R(ApiRecord, end_ns, 0): stored relative
// to field 0 of the same layout (start_ns). Doubles are stored by their bits.
#define GS_TYPE(Rec, member) std::remove_cvref_t<decltype(std::declval<Rec&>().member)>
#define F(Rec, member) field_of<GS_TYPE(Rec, member)>(offsetof(Rec, member), kNoBase)
#define R(Rec, member, base) field_of<GS_TYPE(Rec, member)>(offsetof(Rec, member), base)

constexpr Layout layout(size_t size, std::initializer_list<Field> fields) {
  Layout out{static_cast<uint16_t>(size), static_cast<uint8_t>(fields.size()), 0, {}};
  size_t i = 0;
  for (const Field& f : fields) {
    if (f.base != kNoBase) out.based |= 1u << i;
    out.fields[i++] = f;
  }
  return out;
}

constexpr std::array<Layout, kKindSlots> make_layouts() {
  std::array<Layout, kKindSlots> t{};
  auto at = [&t](RecordKind kind) -> Layout& { return t[static_cast<size_t>(kind)]; };
  at(RecordKind::Process) = layout(sizeof(ProcessRecord),
                                   {F(ProcessRecord, start_ns), F(ProcessRecord, pid), F(ProcessRecord, parent_pid),
                                    F(ProcessRecord, driver_version), F(ProcessRecord, runtime_version),
                                    F(ProcessRecord, cupti_version)});
  using D = DeviceRecord;
  at(RecordKind::Device) = layout(sizeof(D), {F(D, global_memory_bytes),
                                              F(D, global_memory_bandwidth_kbps),
                                              F(D, id),
                                              F(D, name),
                                              F(D, uuid),
                                              F(D, compute_major),
                                              F(D, compute_minor),
                                              F(D, sm_count),
                                              F(D, core_clock_khz),
                                              F(D, memory_clock_khz),
                                              F(D, memory_bus_width_bits),
                                              F(D, l2_cache_bytes),
                                              F(D, max_registers_per_sm),
                                              F(D, max_registers_per_block),
                                              F(D, max_shared_per_sm_bytes),
                                              F(D, max_shared_per_block_bytes),
                                              F(D, max_warps_per_sm),
                                              F(D, max_blocks_per_sm),
                                              F(D, max_threads_per_block),
                                              F(D, warp_size),
                                              F(D, copy_engines)});
  at(RecordKind::Api) = layout(sizeof(ApiRecord), {F(ApiRecord, start_ns), R(ApiRecord, end_ns, 0),
                                                   F(ApiRecord, correlation_id), F(ApiRecord, cbid), F(ApiRecord, name),
                                                   F(ApiRecord, tid), F(ApiRecord, return_code), F(ApiRecord, domain)});
  using K = KernelRecord;
  at(RecordKind::Kernel) = layout(sizeof(K), {// Mask byte 1: what changes from launch to launch of the same kernel.
                                              F(K, start_ns), R(K, end_ns, 0), F(K, correlation_id), F(K, name),
                                              F(K, stream), F(K, device), F(K, context),
                                              // Byte 2: the launch configuration, which changes with the kernel.
                                              F(K, grid[0]), F(K, grid[1]), F(K, grid[2]), F(K, block[0]),
                                              F(K, block[1]), F(K, block[2]), F(K, registers_per_thread),
                                              // Bytes 3 and 4: what rarely changes.
                                              F(K, static_shared_bytes), F(K, dynamic_shared_bytes),
                                              F(K, local_bytes_per_thread), F(K, graph_id), F(K, graph_node_id),
                                              F(K, cluster[0]), F(K, cluster[1]), F(K, cluster[2])});
  at(RecordKind::Memcpy) = layout(sizeof(MemcpyRecord),
                                  {F(MemcpyRecord, start_ns), R(MemcpyRecord, end_ns, 0), F(MemcpyRecord, bytes),
                                   F(MemcpyRecord, correlation_id), F(MemcpyRecord, stream), F(MemcpyRecord, copy_kind),
                                   F(MemcpyRecord, src_kind), F(MemcpyRecord, dst_kind), F(MemcpyRecord, device),
                                   F(MemcpyRecord, context), F(MemcpyRecord, graph_id), F(MemcpyRecord, async)});
  at(RecordKind::Memset) = layout(sizeof(MemsetRecord),
                                  {F(MemsetRecord, start_ns), R(MemsetRecord, end_ns, 0), F(MemsetRecord, bytes),
                                   F(MemsetRecord, correlation_id), F(MemsetRecord, stream), F(MemsetRecord, value),
                                   F(MemsetRecord, memory_kind), F(MemsetRecord, device), F(MemsetRecord, context),
                                   F(MemsetRecord, graph_id), F(MemsetRecord, async)});
  at(RecordKind::Memory) = layout(sizeof(MemoryRecord),
                                  {F(MemoryRecord, timestamp_ns), F(MemoryRecord, address), F(MemoryRecord, bytes),
                                   F(MemoryRecord, correlation_id), F(MemoryRecord, op), F(MemoryRecord, memory_kind),
                                   F(MemoryRecord, stream), F(MemoryRecord, device), F(MemoryRecord, context)});
  at(RecordKind::Sync) = layout(sizeof(SyncRecord),
                                {F(SyncRecord, start_ns), R(SyncRecord, end_ns, 0), F(SyncRecord, correlation_id),
                                 F(SyncRecord, stream), F(SyncRecord, sync_kind), F(SyncRecord, context)});
  at(RecordKind::Marker) = layout(sizeof(MarkerRecord),
                                  {F(MarkerRecord, timestamp_ns), F(MarkerRecord, id), F(MarkerRecord, phase),
                                   F(MarkerRecord, name), F(MarkerRecord, tid), F(MarkerRecord, domain),
                                   F(MarkerRecord, thread_scoped)});
  at(RecordKind::Overhead) = layout(sizeof(OverheadRecord), {F(OverheadRecord, start_ns), R(OverheadRecord, end_ns, 0),
                                                             F(OverheadRecord, kind)});
  at(RecordKind::Loss) = layout(sizeof(LossRecord), {F(LossRecord, count), F(LossRecord, what), F(LossRecord, detail)});
  at(RecordKind::End) = layout(sizeof(EndRecord),
                               {F(EndRecord, end_ns), F(EndRecord, records_written), F(EndRecord, records_dropped)});
  at(RecordKind::KernelMetric) = layout(sizeof(KernelMetricRecord),
                                        {F(KernelMetricRecord, correlation_id), F(KernelMetricRecord, metric),
                                         F(KernelMetricRecord, value)});
  at(RecordKind::GpuSample) = layout(sizeof(GpuSampleRecord), {F(GpuSampleRecord, start_ns),
                                                               R(GpuSampleRecord, end_ns, 0), F(GpuSampleRecord, value),
                                                               F(GpuSampleRecord, metric), F(GpuSampleRecord, device)});
  using M = MetricCollectionRecord;
  at(RecordKind::MetricCollection) = layout(sizeof(M),
                                            {F(M, kernels_profiled), F(M, kernels_failed), F(M, interval_ns),
                                             F(M, status), F(M, chip), F(M, passes), F(M, metrics), F(M, kind)});
  at(RecordKind::ApiCount) = layout(sizeof(ApiCountRecord), {F(ApiCountRecord, calls), F(ApiCountRecord, total_ns),
                                                             F(ApiCountRecord, name), F(ApiCountRecord, domain)});
  at(RecordKind::CaptureWindow) = layout(sizeof(CaptureWindowRecord),
                                         {F(CaptureWindowRecord, start_ns), R(CaptureWindowRecord, end_ns, 0)});
  at(RecordKind::CommCall) = layout(
      sizeof(CommCallRecord), {F(CommCallRecord, start_ns), F(CommCallRecord, bytes), F(CommCallRecord, comm),
                               F(CommCallRecord, tid), F(CommCallRecord, peer), F(CommCallRecord, ranks),
                               F(CommCallRecord, rank), F(CommCallRecord, call), F(CommCallRecord, correlation_id)});
  at(RecordKind::Stream) = layout(sizeof(StreamRecord),
                                  {F(StreamRecord, stream), F(StreamRecord, context), F(StreamRecord, priority),
                                   F(StreamRecord, flag), F(StreamRecord, correlation_id)});
  at(RecordKind::GraphNode) = layout(sizeof(GraphNodeRecord),
                                     {F(GraphNodeRecord, timestamp_ns), F(GraphNodeRecord, node_id),
                                      F(GraphNodeRecord, origin_node_id), F(GraphNodeRecord, correlation_id),
                                      F(GraphNodeRecord, tid)});
  at(RecordKind::TorchOp) = layout(sizeof(TorchOpRecord),
                                   {F(TorchOpRecord, start_ns), R(TorchOpRecord, end_ns, 0),
                                    F(TorchOpRecord, sequence_number), F(TorchOpRecord, tid), F(TorchOpRecord, name)});
  at(RecordKind::PcSample) = layout(
      sizeof(PcSampleRecord), {F(PcSampleRecord, pc_offset), F(PcSampleRecord, samples), F(PcSampleRecord, not_issued),
                               F(PcSampleRecord, stall_reason), F(PcSampleRecord, function),
                               F(PcSampleRecord, cubin_crc), F(PcSampleRecord, device)});
  at(RecordKind::PcSampling) = layout(sizeof(PcSamplingRecord),
                                      {F(PcSamplingRecord, total_samples), F(PcSamplingRecord, dropped_samples),
                                       F(PcSamplingRecord, non_user_samples), F(PcSamplingRecord, device),
                                       F(PcSamplingRecord, period_log2), F(PcSamplingRecord, buffer_full)});
  return t;
}

#undef R
#undef F
#undef GS_TYPE

constexpr std::array<Layout, kKindSlots> kLayouts = make_layouts();

// The packer and the reader rely on these: a base field comes earlier (it is unpacked first) and
// has no base itself, the mask fits 32 bits, every field lies inside its struct and no struct
// outgrows the reader's record buffers.
constexpr bool valid(const Layout& l) {
  if (l.count > kMaxFields || l.count > 32 || l.size > kMaxRecordBytes) return false;
  for (int i = 0; i < l.count; ++i) {
    const Field& f = l.fields[i];
    if (f.width != 1 && f.width != 2 && f.width != 4 && f.width != 8) return false;
    if (f.offset + f.width > l.size || f.base >= i || f.base < kNoBase) return false;
    if (f.base != kNoBase && l.fields[f.base].base != kNoBase) return false;
  }
  return true;
}
constexpr bool all_valid() {
  for (const Layout& l : kLayouts)
    if (!valid(l)) return false;
  return true;
}
static_assert(all_valid());
static_assert(kLayouts[static_cast<size_t>(RecordKind::Kernel)].count == 22);
static_assert(kLayouts[static_cast<size_t>(RecordKind::Device)].count == 21);
// Every kind but the two of any length (String, Text) has its layout.
constexpr bool every_kind_laid_out() {
  for (size_t kind = static_cast<size_t>(RecordKind::Process); kind < kKindSlots; ++kind)
    if (kLayouts[kind].count == 0) return false;
  return true;
}
static_assert(every_kind_laid_out(), "a new RecordKind needs its layout in make_layouts()");

}  // namespace

const Layout* layout_of(uint32_t kind) {
  if (kind >= kKindSlots || kLayouts[kind].count == 0) return nullptr;
  return &kLayouts[kind];
}

}  // namespace gpuscope::spool

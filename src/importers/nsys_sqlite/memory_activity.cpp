// Copies, memsets and (with nsys --cuda-memory-usage) allocations of an nsys export.
#include <array>
#include <string>

#include "importers/nsys_sqlite/readers.h"

namespace gpuscope::nsys {

namespace {

// Codes of the ENUM_* tables, decoded once per import; larger codes read as unknown.
constexpr int64_t kCodes = 64;
template <class Kind>
using CodeTable = std::array<Kind, kCodes>;

template <class Kind>
Kind decode(const CodeTable<Kind>& table, int64_t code) {
  return code >= 0 && code < kCodes ? table[static_cast<size_t>(code)] : Kind::Unknown;
}

// ENUM_CUDA_MEMCPY_OPER names end in the direction ("CUDA_MEMCPY_KIND_HTOD"); the unified-memory
// migrations ("..._UVM_HTOD") are copies in the same direction. Without the table: nsys's
// numbering, which is CUPTI's for 0..10, then UVM HtoD, DtoH, DtoD.
CodeTable<CopyKind> copy_kinds(NsysSource& source) {
  static constexpr std::pair<std::string_view, CopyKind> kSuffixes[] = {
      {"_HTOD", CopyKind::HtoD}, {"_DTOH", CopyKind::DtoH}, {"_HTOA", CopyKind::HtoA}, {"_ATOH", CopyKind::AtoH},
      {"_ATOA", CopyKind::AtoA}, {"_ATOD", CopyKind::AtoD}, {"_DTOA", CopyKind::DtoA}, {"_DTOD", CopyKind::DtoD},
      {"_HTOH", CopyKind::HtoH}, {"_PTOP", CopyKind::PtoP}};
  static constexpr CopyKind kByCode[] = {CopyKind::Unknown, CopyKind::HtoD, CopyKind::DtoH, CopyKind::HtoA,
                                         CopyKind::AtoH,    CopyKind::AtoA, CopyKind::AtoD, CopyKind::DtoA,
                                         CopyKind::DtoD,    CopyKind::HtoH, CopyKind::PtoP, CopyKind::HtoD,
                                         CopyKind::DtoH,    CopyKind::DtoD};
  CodeTable<CopyKind> table{};
  for (size_t i = 0; i < std::size(kByCode); ++i) table[i] = kByCode[i];
  for (const auto& [code, name] : source.enum_names("ENUM_CUDA_MEMCPY_OPER")) {
    if (code < 0 || code >= kCodes) continue;
    CopyKind kind = CopyKind::Unknown;
    for (const auto& [suffix, k] : kSuffixes)
      if (std::string_view(name).ends_with(suffix)) kind = k;
    table[static_cast<size_t>(code)] = kind;
  }
  return table;
}

// ENUM_CUDA_MEM_KIND names end in the kind ("CUDA_MEMOPR_MEMORY_KIND_PAGEABLE"). Without the
// table: nsys's own numbering (0 pageable ... 6 managed static, 7 unknown), as every export we
// have holds it; CUPTI's enum starts with unknown = 0, one off from this.
CodeTable<MemoryKind> memory_kinds(NsysSource& source) {
  static constexpr std::pair<std::string_view, MemoryKind> kSuffixes[] = {{"_PAGEABLE", MemoryKind::Pageable},
                                                                          {"_PINNED", MemoryKind::Pinned},
                                                                          {"_DEVICE", MemoryKind::Device},
                                                                          {"_ARRAY", MemoryKind::Array},
                                                                          {"_MANAGED", MemoryKind::Managed},
                                                                          {"_DEVICE_STATIC", MemoryKind::DeviceStatic},
                                                                          {"_MANAGED_STATIC",
                                                                           MemoryKind::ManagedStatic}};
  static constexpr MemoryKind kByCode[] = {MemoryKind::Pageable,     MemoryKind::Pinned,  MemoryKind::Device,
                                           MemoryKind::Array,        MemoryKind::Managed, MemoryKind::DeviceStatic,
                                           MemoryKind::ManagedStatic};
  CodeTable<MemoryKind> table{};
  for (size_t i = 0; i < std::size(kByCode); ++i) table[i] = kByCode[i];
  for (const auto& [code, name] : source.enum_names("ENUM_CUDA_MEM_KIND")) {
    if (code < 0 || code >= kCodes) continue;
    MemoryKind kind = MemoryKind::Unknown;
    for (const auto& [suffix, k] : kSuffixes)  // no suffix ends another (_DEVICE_STATIC is not _DEVICE)
      if (std::string_view(name).ends_with(suffix)) kind = k;
    table[static_cast<size_t>(code)] = kind;
  }
  return table;
}

}  // namespace

void read_memcpys(NsysSource& source) {
  const std::string table = source.table("CUPTI_ACTIVITY_KIND_MEMCPY");
  if (table.empty()) return;
  enum : size_t {
    kStart,
    kEnd,
    kDevice,
    kContext,
    kStream,
    kCorrelation,
    kGlobalPid,
    kBytes,
    kCopyKind,
    kSrcKind,
    kDstKind,
    kGraphId
  };
  static_assert(shares_gpu_columns(kStart, kDevice, kGlobalPid));
  static constexpr std::string_view kColumns[] = {"start",    "end",           "deviceId",  "contextId",
                                                  "streamId", "correlationId", "globalPid", "bytes",
                                                  "copyKind", "srcKind",       "dstKind",   "graphId"};
  const CodeTable<CopyKind> copy_kind = copy_kinds(source);
  const CodeTable<MemoryKind> memory_kind = memory_kinds(source);
  NsysTable rows(source, table, kColumns);
  rows.require(kStart);
  rows.require(kEnd);
  if (const std::string lacks = rows.missing({kSrcKind, kDstKind}); !lacks.empty())
    source.gap(kGapCopyMemoryKinds, table + " has no " + lacks + " column: pageable and pinned copies look alike");
  LaunchIndex launches(source.trace());
  auto& copies = source.trace().memcpys;
  while (rows.next()) {
    if (rows.lacks_time(kStart, kEnd)) continue;
    Memcpy& m = copies.emplace_back();
    read_gpu_placement(source, rows, launches, m);
    m.kind = decode(copy_kind, rows.integer(kCopyKind));
    m.src_kind = rows.is_null(kSrcKind) ? MemoryKind::Unknown : decode(memory_kind, rows.integer(kSrcKind));
    m.dst_kind = rows.is_null(kDstKind) ? MemoryKind::Unknown : decode(memory_kind, rows.integer(kDstKind));
    m.async = launches.async(m.pid, m.correlation_id);
    m.bytes = static_cast<uint64_t>(rows.integer(kBytes));
    m.graph_id = static_cast<uint32_t>(rows.integer(kGraphId));
  }
  source.untimed(table, rows.untimed_rows());
}

void read_memsets(NsysSource& source) {
  const std::string table = source.table("CUPTI_ACTIVITY_KIND_MEMSET");
  if (table.empty()) return;
  enum : size_t {
    kStart,
    kEnd,
    kDevice,
    kContext,
    kStream,
    kCorrelation,
    kGlobalPid,
    kBytes,
    kValue,
    kMemKind,
    kGraphId
  };
  static_assert(shares_gpu_columns(kStart, kDevice, kGlobalPid));
  static constexpr std::string_view kColumns[] = {"start",    "end",           "deviceId",  "contextId",
                                                  "streamId", "correlationId", "globalPid", "bytes",
                                                  "value",    "memKind",       "graphId"};
  const CodeTable<MemoryKind> memory_kind = memory_kinds(source);
  NsysTable rows(source, table, kColumns);
  rows.require(kStart);
  rows.require(kEnd);
  LaunchIndex launches(source.trace());
  auto& memsets = source.trace().memsets;
  while (rows.next()) {
    if (rows.lacks_time(kStart, kEnd)) continue;
    Memset& m = memsets.emplace_back();
    read_gpu_placement(source, rows, launches, m);
    m.memory_kind = rows.is_null(kMemKind) ? MemoryKind::Unknown : decode(memory_kind, rows.integer(kMemKind));
    m.async = launches.async(m.pid, m.correlation_id);
    m.bytes = static_cast<uint64_t>(rows.integer(kBytes));
    m.value = static_cast<uint32_t>(rows.integer(kValue));
    m.graph_id = static_cast<uint32_t>(rows.integer(kGraphId));
  }
  source.untimed(table, rows.untimed_rows());
}

void read_memory_usage(NsysSource& source) {
  const std::string table = source.table("CUDA_GPU_MEMORY_USAGE_EVENTS");
  if (table.empty()) {
    source.gap(kGapMemoryEvents,
               "the export has no CUDA_GPU_MEMORY_USAGE_EVENTS (nsys records allocations and frees only with "
               "--cuda-memory-usage=true)");
    return;
  }
  enum : size_t {
    kStart,
    kDevice,
    kContext,
    kStream,
    kCorrelation,
    kGlobalPid,
    kAddress,
    kBytes,
    kMemKind,
    kOperation
  };
  static constexpr std::string_view kColumns[] = {"start",         "deviceId",           "contextId", "streamId",
                                                  "correlationId", "globalPid",          "address",   "bytes",
                                                  "memKind",       "memoryOperationType"};
  const CodeTable<MemoryKind> memory_kind = memory_kinds(source);
  const auto operations = source.enum_names("ENUM_CUDA_DEV_MEM_EVENT_OPER");
  NsysTable rows(source, table, kColumns);
  rows.require(kStart);
  LaunchIndex launches(source.trace());
  auto& events = source.trace().memory_events;
  while (rows.next()) {
    if (rows.lacks_time(kStart, kStart)) continue;
    MemoryEvent& e = events.emplace_back();
    e.correlation_id = static_cast<uint32_t>(rows.integer(kCorrelation));
    e.pid = rows.has(kGlobalPid) ? pid_of(rows.integer(kGlobalPid)) : launches.pid(e.correlation_id);
    e.device = static_cast<uint32_t>(rows.integer(kDevice));
    e.context = static_cast<uint32_t>(rows.integer(kContext));
    e.stream = static_cast<uint32_t>(rows.integer(kStream));
    // ENUM_CUDA_DEV_MEM_EVENT_OPER: ..._ALLOCATION / ..._DEALLOCATION; without it 0 allocates, 1 frees.
    const int64_t op = rows.integer(kOperation);
    auto named = operations.find(op);
    const bool frees = named != operations.end() ? named->second.ends_with("DEALLOCATION") : op == 1;
    e.op = frees ? MemoryOp::Free : MemoryOp::Alloc;
    e.memory_kind = rows.is_null(kMemKind) ? MemoryKind::Unknown : decode(memory_kind, rows.integer(kMemKind));
    e.address = static_cast<uint64_t>(rows.integer(kAddress));
    e.bytes = static_cast<uint64_t>(rows.integer(kBytes));
    e.timestamp = source.time(rows.integer(kStart));
  }
  source.untimed(table, rows.untimed_rows());
}

}  // namespace gpuscope::nsys

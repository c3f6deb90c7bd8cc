#include "capture/activity_decoder.h"

#include <cstdio>

#include "capture/cupti_compat.h"
#include "capture/failed_calls.h"
#include "gpuscope/model.h"

namespace gpuscope::capture {

namespace sp = gpuscope::spool;

// --- Pure mappings ----------------------------------------------------------------------
// Written as explicit switches although today most values coincide: the spool's codes
// (spool/format.h) are our contract, CUPTI's are not, and a new CUPTI value must land on Unknown.

uint8_t to_copy_kind(uint32_t kind) {
  sp::CopyCode out = sp::CopyCode::Unknown;
  switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: out = sp::CopyCode::HtoD; break;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: out = sp::CopyCode::DtoH; break;
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA: out = sp::CopyCode::HtoA; break;
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH: out = sp::CopyCode::AtoH; break;
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA: out = sp::CopyCode::AtoA; break;
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD: out = sp::CopyCode::AtoD; break;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA: out = sp::CopyCode::DtoA; break;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: out = sp::CopyCode::DtoD; break;
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: out = sp::CopyCode::HtoH; break;
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: out = sp::CopyCode::PtoP; break;
    default: break;
  }
  return static_cast<uint8_t>(out);
}

uint8_t to_memory_kind(uint32_t kind) {
  sp::MemoryCode out = sp::MemoryCode::Unknown;
  switch (kind) {
    case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE: out = sp::MemoryCode::Pageable; break;
    case CUPTI_ACTIVITY_MEMORY_KIND_PINNED: out = sp::MemoryCode::Pinned; break;
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE: out = sp::MemoryCode::Device; break;
    case CUPTI_ACTIVITY_MEMORY_KIND_ARRAY: out = sp::MemoryCode::Array; break;
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED: out = sp::MemoryCode::Managed; break;
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC: out = sp::MemoryCode::DeviceStatic; break;
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC: out = sp::MemoryCode::ManagedStatic; break;
    default: break;
  }
  return static_cast<uint8_t>(out);
}

uint8_t to_sync_kind(uint32_t type) {
  sp::SyncCode out = sp::SyncCode::Unknown;
  switch (type) {
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE: out = sp::SyncCode::EventSynchronize; break;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT: out = sp::SyncCode::StreamWaitEvent; break;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE: out = sp::SyncCode::StreamSynchronize; break;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE: out = sp::SyncCode::ContextSynchronize; break;
    default: break;
  }
  return static_cast<uint8_t>(out);
}

uint8_t to_stream_code(uint32_t flag) {
  sp::StreamCode out = sp::StreamCode::Unknown;
  switch (flag) {
    case CUPTI_ACTIVITY_STREAM_CREATE_FLAG_DEFAULT: out = sp::StreamCode::Blocking; break;
    case CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NON_BLOCKING: out = sp::StreamCode::NonBlocking; break;
    case CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NULL: out = sp::StreamCode::Legacy; break;
    default: break;
  }
  return static_cast<uint8_t>(out);
}

bool to_memory_op(uint32_t operation, uint8_t& op) {
  switch (operation) {
    case CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION:
      op = static_cast<uint8_t>(sp::MemoryOpCode::Alloc);
      return true;
    case CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE: op = static_cast<uint8_t>(sp::MemoryOpCode::Free); return true;
    default: return false;
  }
}

bool to_marker_phase(uint32_t flags, sp::MarkerPhase& phase) {
  // A marker record carries exactly one of these; check END first so a (never seen)
  // combined value closes a range rather than opening one that never ends.
  if (flags & CUPTI_ACTIVITY_FLAG_MARKER_END) phase = sp::MarkerPhase::End;
  else if (flags & CUPTI_ACTIVITY_FLAG_MARKER_START) phase = sp::MarkerPhase::Start;
  else if (flags & CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS) phase = sp::MarkerPhase::Instant;
  else return false;
  return true;
}

const char* overhead_kind_name(uint32_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_OVERHEAD_DRIVER_COMPILER: return "driver_compiler";
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH: return "cupti_buffer_flush";
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_INSTRUMENTATION: return "cupti_instrumentation";
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_RESOURCE: return "cupti_resource";
    case CUPTI_ACTIVITY_OVERHEAD_RUNTIME_TRIGGERED_MODULE_LOADING: return "runtime_triggered_module_loading";
    case CUPTI_ACTIVITY_OVERHEAD_LAZY_FUNCTION_LOADING: return "lazy_function_loading";
    case CUPTI_ACTIVITY_OVERHEAD_COMMAND_BUFFER_FULL: return "command_buffer_full";
    case CUPTI_ACTIVITY_OVERHEAD_ACTIVITY_BUFFER_REQUEST: return "activity_buffer_request";
    case CUPTI_ACTIVITY_OVERHEAD_UVM_ACTIVITY_INIT: return "uvm_activity_init";
    default: return "unknown";
  }
}

std::string_view runtime_api_base_name(std::string_view name) {
  size_t at = name.rfind("_v");
  if (at == std::string_view::npos || at == 0 || at + 2 == name.size()) return name;
  for (size_t i = at + 2; i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return name;
  }
  return name.substr(0, at);
}

std::string format_uuid(const CUuuid& uuid) {
  static const char kHex[] = "0123456789abcdef";
  std::string out = "GPU-";
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    const auto byte = static_cast<uint8_t>(uuid.bytes[i]);
    out += kHex[byte >> 4];
    out += kHex[byte & 0xF];
  }
  return out;
}

// --- Decoder ------------------------------------------------------------------------------

size_t ActivityDecoder::decode_buffer(uint8_t* buffer, size_t valid_bytes, NextRecordFn next) {
  if (buffer == nullptr || valid_bytes == 0 || next == nullptr) return 0;
  size_t visited = 0;
  CUpti_Activity* record = nullptr;
  for (;;) {
    CUptiResult rc = next(buffer, valid_bytes, &record);
    // The normal end of a buffer; but a buffer with valid bytes holds at least one record.
    if (rc == CUPTI_ERROR_MAX_LIMIT_REACHED && visited > 0) break;
    if (rc != CUPTI_SUCCESS || record == nullptr) {
      // CUPTI_ERROR_INVALID_KIND: an incomplete record (e.g. a forced flush at exit while
      // work was in flight), counted as such. Anything else is the call failing. Either way
      // nothing after it can be walked.
      ++stats_.incomplete_buffers;
      if (rc != CUPTI_ERROR_INVALID_KIND)
        note_failed_call("cuptiActivityGetNextRecord", cupti_error_text(rc),
                         "the records of the buffers it could not read are lost");
      break;
    }
    ++visited;
    decode(record);
  }
  return visited;
}

bool ActivityDecoder::decode(const CUpti_Activity* record) {
  if (record == nullptr) return false;
  bool produced = false;
  switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      produced = kernel(*reinterpret_cast<const CUpti_ActivityKernel10*>(record));
      break;
    case CUPTI_ACTIVITY_KIND_MEMCPY: produced = memcpy(*reinterpret_cast<const CUpti_ActivityMemcpy6*>(record)); break;
    case CUPTI_ACTIVITY_KIND_MEMCPY2:
      produced = memcpy_peer(*reinterpret_cast<const CUpti_ActivityMemcpyPtoP4*>(record));
      break;
    case CUPTI_ACTIVITY_KIND_MEMSET: produced = memset(*reinterpret_cast<const CUpti_ActivityMemset4*>(record)); break;
    case CUPTI_ACTIVITY_KIND_MEMORY2: produced = memory(*reinterpret_cast<const CUpti_ActivityMemory4*>(record)); break;
    case CUPTI_ACTIVITY_KIND_RUNTIME:
      produced = api(*reinterpret_cast<const CUpti_ActivityAPI*>(record), CUPTI_CB_DOMAIN_RUNTIME_API);
      break;
    case CUPTI_ACTIVITY_KIND_DRIVER:
      produced = api(*reinterpret_cast<const CUpti_ActivityAPI*>(record), CUPTI_CB_DOMAIN_DRIVER_API);
      break;
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
      produced = sync(*reinterpret_cast<const CUpti_ActivitySynchronization2*>(record));
      break;
    case CUPTI_ACTIVITY_KIND_STREAM: produced = stream(*reinterpret_cast<const CUpti_ActivityStream*>(record)); break;
    case CUPTI_ACTIVITY_KIND_MARKER: produced = marker(*reinterpret_cast<const CUpti_ActivityMarker2*>(record)); break;
    case CUPTI_ACTIVITY_KIND_OVERHEAD:
      produced = overhead(*reinterpret_cast<const CUpti_ActivityOverhead3*>(record));
      break;
    case CUPTI_ACTIVITY_KIND_DEVICE: produced = device(*reinterpret_cast<const CUpti_ActivityDevice5*>(record)); break;
    default: ++stats_.ignored; return false;
  }
  if (produced) ++stats_.records;
  return produced;
}

void ActivityDecoder::check_times(uint64_t start, uint64_t end) {
  if (start == 0 || end == 0) ++stats_.missing_timestamps;
}

bool ActivityDecoder::kernel(const CUpti_ActivityKernel10& r) {
  sp::KernelRecord k{};
  k.start_ns = static_cast<int64_t>(r.start);
  k.end_ns = static_cast<int64_t>(r.end);
  k.graph_node_id = r.graphNodeId;
  k.device = r.deviceId;
  k.context = r.contextId;
  k.stream = r.streamId;
  k.name = r.name ? sink_.intern(r.name) : 0;
  k.grid[0] = r.gridX;
  k.grid[1] = r.gridY;
  k.grid[2] = r.gridZ;
  k.block[0] = r.blockX;
  k.block[1] = r.blockY;
  k.block[2] = r.blockZ;
  k.cluster[0] = static_cast<int32_t>(r.clusterX);
  k.cluster[1] = static_cast<int32_t>(r.clusterY);
  k.cluster[2] = static_cast<int32_t>(r.clusterZ);
  k.registers_per_thread = r.registersPerThread;
  k.static_shared_bytes = static_cast<uint32_t>(r.staticSharedMemory);
  k.dynamic_shared_bytes = static_cast<uint32_t>(r.dynamicSharedMemory);
  k.local_bytes_per_thread = r.localMemoryPerThread;
  k.correlation_id = r.correlationId;
  k.graph_id = r.graphId;
  check_times(r.start, r.end);
  sink_.add(sp::RecordKind::Kernel, k);
  return true;
}

bool ActivityDecoder::memcpy(const CUpti_ActivityMemcpy6& r) {
  sp::MemcpyRecord m{};
  m.start_ns = static_cast<int64_t>(r.start);
  m.end_ns = static_cast<int64_t>(r.end);
  m.bytes = r.bytes;
  m.device = r.deviceId;
  m.context = r.contextId;
  m.stream = r.streamId;
  m.correlation_id = r.correlationId;
  m.graph_id = r.graphId;
  m.copy_kind = to_copy_kind(r.copyKind);
  m.src_kind = to_memory_kind(r.srcKind);
  m.dst_kind = to_memory_kind(r.dstKind);
  m.async = (r.flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC) ? 1 : 0;
  check_times(r.start, r.end);
  sink_.add(sp::RecordKind::Memcpy, m);
  return true;
}

bool ActivityDecoder::memcpy_peer(const CUpti_ActivityMemcpyPtoP4& r) {
  // Peer copies come as their own record kind; the spool keeps them with the other
  // copies (copy_kind PtoP). deviceId is the device that executed the copy.
  sp::MemcpyRecord m{};
  m.start_ns = static_cast<int64_t>(r.start);
  m.end_ns = static_cast<int64_t>(r.end);
  m.bytes = r.bytes;
  m.device = r.deviceId;
  m.context = r.contextId;
  m.stream = r.streamId;
  m.correlation_id = r.correlationId;
  m.graph_id = r.graphId;
  m.copy_kind = to_copy_kind(r.copyKind);
  m.src_kind = to_memory_kind(r.srcKind);
  m.dst_kind = to_memory_kind(r.dstKind);
  m.async = (r.flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC) ? 1 : 0;
  check_times(r.start, r.end);
  sink_.add(sp::RecordKind::Memcpy, m);
  return true;
}

bool ActivityDecoder::memset(const CUpti_ActivityMemset4& r) {
  sp::MemsetRecord m{};
  m.start_ns = static_cast<int64_t>(r.start);
  m.end_ns = static_cast<int64_t>(r.end);
  m.bytes = r.bytes;
  m.device = r.deviceId;
  m.context = r.contextId;
  m.stream = r.streamId;
  m.correlation_id = r.correlationId;
  m.graph_id = r.graphId;
  m.value = r.value;
  m.memory_kind = to_memory_kind(r.memoryKind);
  m.async = (r.flags & CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC) ? 1 : 0;
  check_times(r.start, r.end);
  sink_.add(sp::RecordKind::Memset, m);
  return true;
}

bool ActivityDecoder::memory(const CUpti_ActivityMemory4& r) {
  sp::MemoryRecord m{};
  if (!to_memory_op(r.memoryOperationType, m.op)) {
    ++stats_.ignored;
    return false;
  }
  m.timestamp_ns = static_cast<int64_t>(r.timestamp);
  m.address = r.address;
  m.bytes = r.bytes;
  m.device = r.deviceId;
  m.context = r.contextId;
  m.stream = r.streamId;
  m.correlation_id = r.correlationId;
  m.memory_kind = to_memory_kind(r.memoryKind);
  sink_.add(sp::RecordKind::Memory, m);
  return true;
}

uint32_t ActivityDecoder::api_name_id(CUpti_CallbackDomain domain, uint32_t cbid) {
  const uint64_t key = (uint64_t{static_cast<uint32_t>(domain)} << 32) | cbid;
  if (auto it = api_names_.find(key); it != api_names_.end()) return it->second;

  const char* raw = hooks_.api_name ? hooks_.api_name(domain, cbid) : nullptr;
  uint32_t id;
  if (raw != nullptr && raw[0] != '\0') {
    std::string_view name(raw);
    id = sink_.intern(domain == CUPTI_CB_DOMAIN_RUNTIME_API ? runtime_api_base_name(name) : name);
  } else {
    char fallback[48];
    std::snprintf(fallback, sizeof(fallback), "%s_cbid_%u",
                  domain == CUPTI_CB_DOMAIN_RUNTIME_API ? "runtime" : "driver", cbid);
    id = sink_.intern(fallback);
  }
  api_names_.emplace(key, id);
  return id;
}

bool ActivityDecoder::api(const CUpti_ActivityAPI& r, CUpti_CallbackDomain domain) {
  if (hooks_.is_own_thread != nullptr && hooks_.is_own_thread(r.threadId)) {
    ++stats_.own_thread;
    return false;
  }
  sp::ApiRecord a{};
  a.start_ns = static_cast<int64_t>(r.start);
  a.end_ns = static_cast<int64_t>(r.end);
  a.tid = r.threadId;
  a.cbid = r.cbid;
  a.name = api_name_id(domain, r.cbid);
  a.return_code = static_cast<int32_t>(r.returnValue);
  a.correlation_id = r.correlationId;
  a.domain = static_cast<uint8_t>(domain == CUPTI_CB_DOMAIN_RUNTIME_API ? sp::ApiDomainCode::Runtime
                                                                        : sp::ApiDomainCode::Driver);
  sink_.add(sp::RecordKind::Api, a);
  return true;
}

bool ActivityDecoder::sync(const CUpti_ActivitySynchronization2& r) {
  sp::SyncRecord s{};
  s.start_ns = static_cast<int64_t>(r.start);
  s.end_ns = static_cast<int64_t>(r.end);
  s.context = r.contextId;
  s.stream = r.streamId;
  s.correlation_id = r.correlationId;
  s.sync_kind = to_sync_kind(r.type);
  sink_.add(sp::RecordKind::Sync, s);
  return true;
}

bool ActivityDecoder::stream(const CUpti_ActivityStream& r) {
  sp::StreamRecord s{};
  s.context = r.contextId;
  s.stream = r.streamId;
  s.priority = static_cast<int32_t>(r.priority);
  s.correlation_id = r.correlationId;
  s.flag = to_stream_code(r.flag);
  sink_.add(sp::RecordKind::Stream, s);
  return true;
}

bool ActivityDecoder::marker(const CUpti_ActivityMarker2& r) {
  sp::MarkerRecord m{};
  sp::MarkerPhase phase;
  if (!to_marker_phase(r.flags, phase)) {
    ++stats_.ignored;  // NVTX sync-object markers: not ranges, not marks
    return false;
  }
  m.timestamp_ns = static_cast<int64_t>(r.timestamp);
  m.id = r.id;
  // CUPTI files NVTX events under the calling thread (object kind THREAD) or, for some
  // ranges, under the process, with no thread to report.
  const bool on_thread = r.objectKind == CUPTI_ACTIVITY_OBJECT_THREAD;
  m.tid = on_thread ? r.objectId.pt.threadId : 0;
  m.name = r.name ? sink_.intern(r.name) : 0;
  m.domain = r.domain ? sink_.intern(r.domain) : 0;
  m.phase = static_cast<uint8_t>(phase);
  m.thread_scoped = on_thread ? 1 : 0;
  sink_.add(sp::RecordKind::Marker, m);
  return true;
}

bool ActivityDecoder::overhead(const CUpti_ActivityOverhead3& r) {
  sp::OverheadRecord o{};
  o.start_ns = static_cast<int64_t>(r.start);
  o.end_ns = static_cast<int64_t>(r.end);
  o.kind = sink_.intern(overhead_kind_name(r.overheadKind));
  sink_.add(sp::RecordKind::Overhead, o);
  return true;
}

bool ActivityDecoder::device(const CUpti_ActivityDevice5& r) {
  sp::DeviceRecord d{};
  d.global_memory_bytes = r.globalMemorySize;
  d.global_memory_bandwidth_kbps = r.globalMemoryBandwidth;
  d.id = r.id;
  d.name = r.name ? sink_.intern(r.name) : 0;
  d.uuid = sink_.intern(format_uuid(r.uuid));
  d.compute_major = r.computeCapabilityMajor;
  d.compute_minor = r.computeCapabilityMinor;
  d.sm_count = r.numMultiprocessors;
  d.core_clock_khz = r.coreClockRate;
  d.l2_cache_bytes = r.l2CacheSize;
  d.max_registers_per_sm = r.maxRegistersPerMultiprocessor;
  d.max_registers_per_block = r.maxRegistersPerBlock;
  d.max_shared_per_sm_bytes = r.maxSharedMemoryPerMultiprocessor;
  d.max_shared_per_block_bytes = r.maxSharedMemoryPerBlock;
  d.max_warps_per_sm = r.maxWarpsPerMultiprocessor;
  d.max_blocks_per_sm = r.maxBlocksPerMultiprocessor;
  d.max_threads_per_block = r.maxThreadsPerBlock;
  d.warp_size = r.numThreadsPerWarp;
  d.copy_engines = r.numMemcpyEngines;
  if (hooks_.enrich_device) hooks_.enrich_device(d);  // memory clock and bus width
  sink_.add(sp::RecordKind::Device, d);
  return true;
}

}  // namespace gpuscope::capture

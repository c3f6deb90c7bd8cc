// Pure decoding of CUDA 13 CUPTI activity records into spool records.
//
// In: a CUpti_Activity* (CUpti_ActivityKernel10, Memcpy6, MemcpyPtoP4, Memset4,
// Memory4, API, Synchronization2, Marker2, Overhead3, Device5, Stream). Out: spool structs
// appended to a RecordSink, with names interned through it. No CUPTI or CUDA function
// is called from here: the two things that need a live process (API function names and
// extra device attributes) come in as plain function pointers, so tests can drive the
// decoder with synthesized records on a CPU, as Kineto's MockCuptiActivityBuffer does.
//
// The record layouts are those of the CUPTI headers we build against (CUDA 13); the
// loader refuses a libcupti of another major version (see cupti_loader.h).
#pragma once

#include <cupti_activity.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "capture/record_sink.h"
#include "spool/format.h"

namespace gpuscope::capture {

// cuptiGetCallbackName, or a test double. Returns null when the id has no name.
using ApiNameFn = const char* (*)(CUpti_CallbackDomain domain, uint32_t cbid);
// Fills fields of a device record that CUPTI's DEVICE record lacks (memory clock,
// bus width) from the driver. May leave them 0.
using DeviceEnrichFn = void (*)(spool::DeviceRecord& device);
// cuptiActivityGetNextRecord, or a test double walking a synthesized buffer.
using NextRecordFn = CUptiResult (*)(uint8_t* buffer, size_t valid_bytes, CUpti_Activity** record);

struct DecoderHooks {
  ApiNameFn api_name = nullptr;
  DeviceEnrichFn enrich_device = nullptr;
  // API records made on a thread this says is ours are dropped: our threads' few
  // driver/runtime calls (versions, device attributes) are not the program's.
  bool (*is_own_thread)(uint32_t tid) = nullptr;
};

struct DecodeStats {
  uint64_t records = 0;             // spool records produced (strings not counted)
  uint64_t ignored = 0;             // kinds or variants we do not keep (contexts, marker sync flags)
  uint64_t own_thread = 0;          // API records of our own thread, dropped on purpose
  uint64_t missing_timestamps = 0;  // GPU records with start or end 0 (CUPTI lacked timing)
  uint64_t incomplete_buffers = 0;  // buffers whose walk stopped at an incomplete/invalid record
};

class ActivityDecoder {
 public:
  ActivityDecoder(RecordSink& sink, DecoderHooks hooks) : sink_(sink), hooks_(hooks) {}

  // Decodes one record; returns true when it produced a spool record.
  bool decode(const CUpti_Activity* record);

  // Walks a completed CUPTI buffer with `next` and decodes every record.
  // Returns the number of records visited.
  size_t decode_buffer(uint8_t* buffer, size_t valid_bytes, NextRecordFn next);

  const DecodeStats& stats() const { return stats_; }

  // The interned name of an API function, as Api records name it (cached per function).
  uint32_t api_name_id(CUpti_CallbackDomain domain, uint32_t cbid);

 private:
  bool kernel(const CUpti_ActivityKernel10& r);
  bool memcpy(const CUpti_ActivityMemcpy6& r);
  bool memcpy_peer(const CUpti_ActivityMemcpyPtoP4& r);
  bool memset(const CUpti_ActivityMemset4& r);
  bool memory(const CUpti_ActivityMemory4& r);
  bool api(const CUpti_ActivityAPI& r, CUpti_CallbackDomain domain);
  bool sync(const CUpti_ActivitySynchronization2& r);
  bool stream(const CUpti_ActivityStream& r);
  bool marker(const CUpti_ActivityMarker2& r);
  bool overhead(const CUpti_ActivityOverhead3& r);
  bool device(const CUpti_ActivityDevice5& r);
  void check_times(uint64_t start, uint64_t end);

  RecordSink& sink_;
  DecoderHooks hooks_;
  DecodeStats stats_;
  std::unordered_map<uint64_t, uint32_t> api_names_;  // (domain << 32 | cbid) -> string id
};

// --- Pure mappings, exposed for tests -------------------------------------------------

uint8_t to_copy_kind(uint32_t cupti_memcpy_kind);    // -> gpuscope::CopyKind
uint8_t to_memory_kind(uint32_t cupti_memory_kind);  // -> gpuscope::MemoryKind
uint8_t to_sync_kind(uint32_t cupti_sync_type);      // -> gpuscope::SyncKind
uint8_t to_stream_code(uint32_t cupti_stream_flag);  // -> spool::StreamCode
// -> gpuscope::MemoryOp; false when the operation is neither allocation nor release.
bool to_memory_op(uint32_t cupti_memory_operation, uint8_t& op);

// Marker flags -> phase; false for flags we do not keep (sync acquire/release).
bool to_marker_phase(uint32_t cupti_marker_flags, spool::MarkerPhase& phase);

// Stable snake_case name of a CUpti_ActivityOverheadKind, e.g. "cupti_buffer_flush".
const char* overhead_kind_name(uint32_t cupti_overhead_kind);

// "cudaMalloc_v3020" -> "cudaMalloc". Runtime names carry the CUDA version that
// introduced them; driver names ("cuMemAlloc_v2") are real symbols and are kept as is.
std::string_view runtime_api_base_name(std::string_view name);

// 16 raw bytes -> "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", as nvidia-smi prints it.
std::string format_uuid(const CUuuid& uuid);

}  // namespace gpuscope::capture

// The spool: the versioned, on-disk contract between the injection library
// (writer, inside the profiled process) and the importer (reader, in the CLI).
//
// A spool file is
//   FileHeader
//   Chunk*          each: ChunkHeader + payload (records), CRC-checked
// and a clean shutdown ends with a chunk holding an End record. A file without
// an End record was cut short (crash, SIGKILL): the reader keeps every whole,
// valid chunk and reports the capture as truncated.
//
// Each record is one of the structs below (its kind says which), except String and Text
// records, which are a StringDef followed by the bytes. Strings are interned by the writer: a
// String record defines an id the first time the text is seen, later records refer to the id.
// Ids are per process.
//
// A payload holds packed records (packing.h): a kind byte, then only the fields that changed
// since the previous record of the same kind in the chunk, as varint deltas (end_ns as a
// duration); String/Text as varint id, varint length, bytes. About 12 bytes a record on the
// training-shaped scale bench, against 48 (Api) or 112 (Kernel) for the structs as they lie in
// memory. The packed state starts over in every chunk, so every chunk decodes on its own. The
// field table is layouts.h; the structs below are the unpacked form, and their sizes are part of
// the format.
//
// All integers are little-endian (we only write on x86-64/aarch64 Linux).
// Times are ns on CLOCK_REALTIME, as CUPTI reports them on Linux.
// Bump kVersion on any change to the format; the reader reads its own version only (a spool is a
// temporary file: the run that wrote it imports it) and refuses others with one line.
#pragma once

#include <cstdint>

namespace gpuscope::spool {

inline constexpr char kFileMagic[8] = {'G', 'S', 'S', 'P', 'O', 'O', 'L', '\0'};
inline constexpr uint32_t kVersion = 9;
inline constexpr uint32_t kChunkMagic = 0x4B4E4843;  // "CHNK"
inline constexpr uint32_t kMaxChunkPayload = 64u << 20;

struct FileHeader {
  char magic[8];
  uint32_t version;
  uint32_t header_bytes;  // sizeof(FileHeader), so readers can skip additions
  uint32_t pid;
  uint32_t parent_pid;
  int64_t created_ns;  // CLOCK_REALTIME when the spool was opened
};

struct ChunkHeader {
  uint32_t magic;          // kChunkMagic
  uint32_t payload_bytes;  // bytes after this header
  uint32_t crc32;          // of the payload
  uint32_t record_count;
};

enum class RecordKind : uint16_t {
  String = 1,             // StringDef + bytes: defines a string id
  Text = 2,               // StringDef + bytes: process metadata, id = TextKey
  Process = 3,            // ProcessRecord
  Device = 4,             // DeviceRecord
  Api = 5,                // ApiRecord
  Kernel = 6,             // KernelRecord
  Memcpy = 7,             // MemcpyRecord
  Memset = 8,             // MemsetRecord
  Memory = 9,             // MemoryRecord
  Sync = 10,              // SyncRecord
  Marker = 11,            // MarkerRecord (NVTX)
  Overhead = 12,          // OverheadRecord
  Loss = 13,              // LossRecord
  End = 14,               // EndRecord: clean shutdown
  KernelMetric = 15,      // KernelMetricRecord
  GpuSample = 16,         // GpuSampleRecord
  MetricCollection = 17,  // MetricCollectionRecord
  ApiCount = 18,          // ApiCountRecord
  CaptureWindow = 19,     // CaptureWindowRecord
  CommCall = 20,          // CommCallRecord
  Stream = 21,            // StreamRecord
  GraphNode = 22,         // GraphNodeRecord
  TorchOp = 23,           // TorchOpRecord
  PcSample = 24,          // PcSampleRecord
  PcSampling = 25,        // PcSamplingRecord
};
// The highest kind: a new one is added above and named here (its layout then must exist, layouts.cpp).
inline constexpr RecordKind kLastRecordKind = RecordKind::PcSampling;

// The spool's own codes for what the model keeps as enums. They are written to disk, so each value
// is pinned here and never reordered; the capture maps CUPTI's values to them and the importer
// maps them to the model's enums (src/importers/spool/spool_codes.h). A model enum may change
// without changing what an old spool means.
enum class ApiDomainCode : uint8_t { Runtime = 0, Driver = 1 };
enum class CopyCode : uint8_t {
  Unknown = 0,
  HtoD = 1,
  DtoH = 2,
  HtoA = 3,
  AtoH = 4,
  AtoA = 5,
  AtoD = 6,
  DtoA = 7,
  DtoD = 8,
  HtoH = 9,
  PtoP = 10
};
enum class MemoryCode : uint8_t {
  Unknown = 0,
  Pageable = 1,
  Pinned = 2,
  Device = 3,
  Array = 4,
  Managed = 5,
  DeviceStatic = 6,
  ManagedStatic = 7
};
enum class MemoryOpCode : uint8_t { Alloc = 0, Free = 1 };
enum class CommCallCode : uint8_t {
  CommInit = 0,
  AllGather = 1,
  AllReduce = 2,
  Broadcast = 3,
  ReduceScatter = 4,
  Reduce = 5,
  Send = 6,
  Recv = 7,
  AllToAll = 8,
  Gather = 9,
  Scatter = 10,
  Launch =
      11  // not a call: NCCL launched the kernel (correlation_id) that carries out its thread's calls since the last
};
enum class SyncCode : uint8_t {
  Unknown = 0,
  EventSynchronize = 1,
  StreamWaitEvent = 2,
  StreamSynchronize = 3,
  ContextSynchronize = 4
};
enum class StreamCode : uint8_t { Unknown = 0, Blocking = 1, NonBlocking = 2, Legacy = 3 };

struct StringDef {
  uint32_t id;
  uint32_t length;  // bytes that follow, no terminator
};

// Keys of Text records (process-level strings that are not interned names).
enum class TextKey : uint32_t {
  CommandLine = 1,
  CaptureStatus = 2,  // "ok" or why capture could not start
  CuptiPath = 3,      // which libcupti was loaded
  CuptiShared = 4,    // "1": the program had loaded that libcupti itself (e.g. PyTorch's)
  CaptureRange = 5,   // what limited recording to windows, e.g. "cudaProfilerStart/Stop"
  Distributed = 6,    // "RANK LOCAL_RANK WORLD_SIZE" from the launcher's environment (-1: unset)
  ApiTrace = 7,       // which CUDA API calls the Api records hold: "full", "lean" or "core" (last wins)
  Cubin = 8,          // a loaded module PC samples point into: its CRC (8 bytes, little-endian), then the ELF
};

struct ProcessRecord {
  int64_t start_ns;
  uint32_t pid;
  uint32_t parent_pid;
  uint32_t driver_version;
  uint32_t runtime_version;
  uint32_t cupti_version;
  uint32_t pad;
};

struct DeviceRecord {
  uint64_t global_memory_bytes;
  uint64_t global_memory_bandwidth_kbps;
  uint32_t id;
  uint32_t name;  // string id
  uint32_t uuid;  // string id, hex text
  uint32_t compute_major, compute_minor;
  uint32_t sm_count;
  uint32_t core_clock_khz;
  uint32_t memory_clock_khz;
  uint32_t memory_bus_width_bits;
  uint32_t l2_cache_bytes;
  uint32_t max_registers_per_sm;
  uint32_t max_registers_per_block;
  uint32_t max_shared_per_sm_bytes;
  uint32_t max_shared_per_block_bytes;
  uint32_t max_warps_per_sm;
  uint32_t max_blocks_per_sm;
  uint32_t max_threads_per_block;
  uint32_t warp_size;
  uint32_t copy_engines;
  uint32_t pad;
};

struct ApiRecord {
  int64_t start_ns, end_ns;
  uint32_t tid;
  uint32_t cbid;
  uint32_t name;  // string id
  int32_t return_code;
  uint32_t correlation_id;
  uint8_t domain;  // ApiDomainCode
  uint8_t pad[3];
};

struct KernelRecord {
  int64_t start_ns, end_ns;
  uint64_t graph_node_id;
  uint32_t device, context, stream;
  uint32_t name;  // string id of the mangled name
  int32_t grid[3];
  int32_t block[3];
  int32_t cluster[3];
  uint32_t registers_per_thread;
  uint32_t static_shared_bytes;
  uint32_t dynamic_shared_bytes;
  uint32_t local_bytes_per_thread;
  uint32_t correlation_id;
  uint32_t graph_id;
  uint32_t pad;
};

struct MemcpyRecord {
  int64_t start_ns, end_ns;
  uint64_t bytes;
  uint32_t device, context, stream;
  uint32_t correlation_id;
  uint32_t graph_id;
  uint8_t copy_kind;  // CopyCode
  uint8_t src_kind;   // MemoryCode
  uint8_t dst_kind;   // MemoryCode
  uint8_t async;
};

struct MemsetRecord {
  int64_t start_ns, end_ns;
  uint64_t bytes;
  uint32_t device, context, stream;
  uint32_t correlation_id;
  uint32_t graph_id;
  uint32_t value;
  uint8_t memory_kind;  // MemoryCode
  uint8_t async;
  uint8_t pad[6];
};

struct MemoryRecord {
  int64_t timestamp_ns;
  uint64_t address;
  uint64_t bytes;
  uint32_t device, context, stream;
  uint32_t correlation_id;
  uint8_t op;           // MemoryOpCode
  uint8_t memory_kind;  // MemoryCode
  uint8_t pad[6];
};

struct SyncRecord {
  int64_t start_ns, end_ns;
  uint32_t context, stream;
  uint32_t correlation_id;
  uint8_t sync_kind;  // SyncCode
  uint8_t pad[3];
};

// One NVTX event as CUPTI reports it; the importer pairs starts with ends.
// CUPTI's marker records do not say whether a range came from nvtxRangePush/Pop or
// nvtxRangeStart/End (seen on an H200 with CUDA 13.0: both arrive with object kind
// THREAD), so the importer infers it from per-thread LIFO order.
enum class MarkerPhase : uint8_t { Instant = 0, Start = 1, End = 2 };

struct MarkerRecord {
  int64_t timestamp_ns;
  uint64_t id;  // pairs a Start with its End
  uint32_t tid;
  uint32_t name;          // string id (0 on End records)
  uint32_t domain;        // string id, 0 = default domain
  uint8_t phase;          // MarkerPhase
  uint8_t thread_scoped;  // 1: CUPTI filed it under a thread (tid is valid)
  uint8_t pad[2];
};

struct OverheadRecord {
  int64_t start_ns, end_ns;
  uint32_t kind;  // string id, e.g. "cupti_buffer_flush"
  uint32_t pad;
};

// Loss records are deltas: the writer emits, with each chunk, what it lost since the
// previous chunk, so losses survive a crash. A reader sums counts per `what`.
// Writer's `what`s: cupti_dropped_records (records), activity_buffer_requests_refused
// (requests), cupti_incomplete_buffers (buffers), cupti_missing_timestamps (records),
// cupti_taken_over (1: another CUPTI client took the activity callbacks; detail says when).
struct LossRecord {
  uint64_t count;
  uint32_t what;    // string id, e.g. "cupti_dropped_records"
  uint32_t detail;  // string id
};

struct EndRecord {
  int64_t end_ns;
  uint64_t records_written;  // all records (of any kind) in the file before this one
  uint64_t records_dropped;  // lost inside gpuscope before they reached the spool
                             // (CUPTI's own drops are Loss records, not counted here)
};

// Calls of one API function that the lean trace keeps out of the activity records (the
// capture library's api_filter.h), counted and timed by a callback; written once, at the end.
struct ApiCountRecord {
  uint64_t calls;
  uint64_t total_ns;  // summed durations of those calls
  uint32_t name;      // string id, named as the Api records name their functions
  uint8_t domain;     // ApiDomainCode
  uint8_t pad[3];
};

// With a capture range (--capture-range, --delay, --duration): one interval in which activity
// was recorded. Written at the end; a spool with a CaptureRange text and no window recorded
// nothing (the range never opened) or was cut short.
struct CaptureWindowRecord {
  int64_t start_ns, end_ns;
};

// One NCCL call, from the payload NCCL attaches to its NVTX range (its "NCCL" domain): what the
// call moves, for the bandwidth of the kernel that carries it out. After a thread's calls, a
// Launch record names that kernel by the correlation id of the launch that followed them.
struct CommCallRecord {
  int64_t start_ns;  // when NCCL pushed the call's range
  uint64_t bytes;    // NCCL's "Message size [bytes]"; 0 for a communicator's creation
  uint64_t comm;     // NCCL's communicator hash; 0 when its NCCL does not say
  uint32_t tid;
  int32_t peer;    // send/recv: the peer; broadcast/reduce/gather/scatter: the root; else -1
  uint32_t ranks;  // CommInit: the communicator's size; else 0
  int32_t rank;    // CommInit: this process's rank in it; else -1
  uint8_t call;    // CommCallCode
  uint8_t pad[3];
  uint32_t correlation_id;  // Launch: CUPTI's id of the launch; else 0
};

// One CUDA stream, when CUPTI sees it created: how (its flag and priority).
struct StreamRecord {
  uint32_t context, stream;
  int32_t priority;
  uint32_t correlation_id;  // of the creating call
  uint8_t flag;             // StreamCode
  uint8_t pad[3];
};

// A CUDA graph node as it was made (CUPTI's GRAPHNODE_CREATED and GRAPHNODE_CLONED resource
// callbacks). A node made by a call (stream capture records a node per launch, copy or memset;
// cudaGraphAdd*Node makes one) has origin_node_id 0; an instantiated graph's node is a clone of
// the node it came from (origin_node_id), and the kernels a replay runs carry the clone's id.
struct GraphNodeRecord {
  int64_t timestamp_ns;     // when it was made
  uint64_t node_id;         // CUPTI's graph node id, as kernels' graph_node_id
  uint64_t origin_node_id;  // the node it was cloned from; 0: made by a call
  uint32_t correlation_id;  // the recorded CUDA call in flight on the thread (0: none recorded)
  uint32_t tid;
};

// One PyTorch op as torch's RecordFunction observer saw it (`profile --pytorch=ops`, through
// libgpuscope_preload.so's gpuscope_torch_op_enter/exit): written when the op returns.
struct TorchOpRecord {
  int64_t start_ns, end_ns;
  int64_t sequence_number;  // torch's seqNr: pairs a forward op with its backward; -1: none
  uint32_t tid;
  uint32_t name;  // string id: the op's name, e.g. "aten::add_"
};

// CUPTI's PC sampling (`profile --source`): the samples one PC of a kernel got with one stall
// reason since the previous drain (a reader sums records of the same PC and reason).
struct PcSampleRecord {
  uint64_t cubin_crc;  // the module (TextKey::Cubin's CRC)
  uint64_t pc_offset;  // bytes from the function's first instruction
  uint64_t samples;
  uint64_t not_issued;    // of `samples`, those where the warp issued nothing
  uint32_t function;      // string id: the kernel's mangled name
  uint32_t stall_reason;  // string id: ncu's short name, e.g. "long_scoreboard", "selected"
  uint32_t device;
  uint32_t pad;
};

// One device's PC sampling since the previous record of the device: counts to sum, and the
// sampling period (the same in every record).
struct PcSamplingRecord {
  uint64_t total_samples;     // CUPTI's count: user kernels' PCs, other kernels' and dropped ones
  uint64_t dropped_samples;   // dropped by the hardware (buffer backpressure)
  uint64_t non_user_samples;  // in kernels CUPTI gives no PCs for
  uint32_t device;
  uint32_t period_log2;  // a sample every 2^N cycles
  uint32_t buffer_full;  // drains that found the hardware buffer full
  uint32_t pad;
};

// One range-profiler metric value of one kernel launch; correlation_id is the launch's
// CUPTI correlation id, the same as in its KernelRecord.
struct KernelMetricRecord {
  double value;
  uint32_t correlation_id;
  uint32_t metric;  // string id of the full metric name
};

// One PM-sampling interval of one GPU-wide metric.
struct GpuSampleRecord {
  int64_t start_ns, end_ns;
  double value;
  uint32_t device;
  uint32_t metric;  // string id
};

// How metric collection went; written when it starts and again, updated, at the end
// (a reader keeps the last record per kind; a crash leaves the first).
enum class MetricCollectionKind : uint8_t { Kernel = 0, Sampling = 1 };

struct MetricCollectionRecord {
  uint64_t kernels_profiled;
  uint64_t kernels_failed;
  uint64_t interval_ns;  // sampling only
  uint32_t status;       // string id: "ok" or one line
  uint32_t chip;         // string id
  uint32_t passes;
  uint32_t metrics;
  uint8_t kind;  // MetricCollectionKind
  uint8_t pad[7];
};

// The layout is the format: a field added, removed or resized changes a size below, which must
// come with a kVersion bump.
static_assert(sizeof(FileHeader) == 32);
static_assert(sizeof(ChunkHeader) == 16);
static_assert(sizeof(StringDef) == 8);
static_assert(sizeof(ProcessRecord) == 32);
static_assert(sizeof(DeviceRecord) == 96);
static_assert(sizeof(ApiRecord) == 40);
static_assert(sizeof(KernelRecord) == 104);
static_assert(sizeof(MemcpyRecord) == 48);
static_assert(sizeof(MemsetRecord) == 56);
static_assert(sizeof(MemoryRecord) == 48);
static_assert(sizeof(SyncRecord) == 32);
static_assert(sizeof(MarkerRecord) == 32);
static_assert(sizeof(OverheadRecord) == 24);
static_assert(sizeof(LossRecord) == 16);
static_assert(sizeof(EndRecord) == 24);
static_assert(sizeof(ApiCountRecord) == 24);
static_assert(sizeof(CaptureWindowRecord) == 16);
static_assert(sizeof(CommCallRecord) == 48);
static_assert(sizeof(StreamRecord) == 20);
static_assert(sizeof(KernelMetricRecord) == 16);
static_assert(sizeof(GraphNodeRecord) == 32);
static_assert(sizeof(TorchOpRecord) == 32);
static_assert(sizeof(PcSampleRecord) == 48);
static_assert(sizeof(PcSamplingRecord) == 40);
static_assert(sizeof(GpuSampleRecord) == 32);
static_assert(sizeof(MetricCollectionRecord) == 48);

}  // namespace gpuscope::spool

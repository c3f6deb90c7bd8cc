// The trace model: what one capture contains, independent of where it came from
// (our own spool, or a foreign format later). Every importer fills a Trace; the
// store writes and reads it; analyses only read it.
//
// Units: every TimeNs is nanoseconds on the capture host's CLOCK_REALTIME
// (the clock CUPTI uses on Linux; GPU timestamps are already converted by CUPTI).
// Byte counts are bytes. Ids (device, context, stream, correlation) are CUPTI's.
//
// Layout: one vector of plain structs per event kind. Analyses scan whole kinds,
// and at the sizes we meet (≤ tens of millions of records) structs of ≤ 100 bytes
// keep the code simple without costing memory we would notice.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace gpuscope {

using TimeNs = int64_t;
using StringId = uint32_t;

// Interned strings: kernel names, API names, NVTX names and domains.
// Id 0 is always the empty string.
class StringTable {
 public:
  StringTable();
  StringId intern(std::string_view text);
  const std::string& get(StringId id) const;
  size_t size() const { return strings_.size(); }
  const std::vector<std::string>& all() const { return strings_; }

 private:
  std::vector<std::string> strings_;
  std::unordered_map<std::string, StringId> index_;
};

// A place on the timeline that a finding's evidence, or a report table's row, talks about: one
// instance (a call, a copy, a kernel, an idle gap) or a time range judged. The HTML report zooms
// there when the row is clicked. pid 0 when it is not one process's.
struct EvidenceSpan {
  uint32_t pid = 0;
  TimeNs start = 0, end = 0;
};

enum class ApiDomain : uint8_t { Runtime = 0, Driver = 1 };

struct ApiCall {
  uint32_t pid = 0;
  uint32_t tid = 0;
  ApiDomain domain = ApiDomain::Runtime;
  uint32_t cbid = 0;  // CUPTI callback id within the domain
  StringId name = 0;  // e.g. "cudaMalloc"
  TimeNs start = 0, end = 0;
  int32_t return_code = 0;  // cudaError_t / CUresult
  uint32_t correlation_id = 0;
  uint32_t run_id = 0;  // bench run (see BenchRun); 0 in a single capture
};

struct Kernel {
  uint32_t pid = 0;
  uint32_t device = 0, context = 0, stream = 0;
  StringId mangled_name = 0;
  StringId name = 0;  // demangled; equals mangled_name for C names
  TimeNs start = 0, end = 0;
  int32_t grid[3] = {0, 0, 0};
  int32_t block[3] = {0, 0, 0};
  int32_t cluster[3] = {0, 0, 0};  // 0 when no thread-block cluster
  uint32_t registers_per_thread = 0;
  uint32_t static_shared_bytes = 0;
  uint32_t dynamic_shared_bytes = 0;
  uint32_t local_bytes_per_thread = 0;
  uint32_t correlation_id = 0;
  uint32_t graph_id = 0;       // 0 unless launched from a CUDA graph
  uint64_t graph_node_id = 0;  // 0 unless launched from a CUDA graph
  uint32_t run_id = 0;         // bench run (see BenchRun); 0 in a single capture
};

enum class CopyKind : uint8_t { Unknown = 0, HtoD, DtoH, HtoA, AtoH, AtoA, AtoD, DtoA, DtoD, HtoH, PtoP };

// Where the bytes of a copy live. Pageable host memory forces a staged copy
// through a pinned bounce buffer; that is why reports split it out.
enum class MemoryKind : uint8_t { Unknown = 0, Pageable, Pinned, Device, Array, Managed, DeviceStatic, ManagedStatic };

struct Memcpy {
  uint32_t pid = 0;
  uint32_t device = 0, context = 0, stream = 0;
  CopyKind kind = CopyKind::Unknown;
  MemoryKind src_kind = MemoryKind::Unknown, dst_kind = MemoryKind::Unknown;
  bool async = false;
  uint64_t bytes = 0;
  TimeNs start = 0, end = 0;
  uint32_t correlation_id = 0;
  uint32_t graph_id = 0;
  uint32_t run_id = 0;  // bench run (see BenchRun); 0 in a single capture
};

struct Memset {
  uint32_t pid = 0;
  uint32_t device = 0, context = 0, stream = 0;
  MemoryKind memory_kind = MemoryKind::Unknown;
  bool async = false;
  uint64_t bytes = 0;
  uint32_t value = 0;
  TimeNs start = 0, end = 0;
  uint32_t correlation_id = 0;
  uint32_t graph_id = 0;
  uint32_t run_id = 0;  // bench run (see BenchRun); 0 in a single capture
};

enum class MemoryOp : uint8_t { Alloc = 0, Free = 1 };

// One allocation or free, so memory in use over time can be drawn.
struct MemoryEvent {
  uint32_t pid = 0;
  uint32_t device = 0, context = 0, stream = 0;
  MemoryOp op = MemoryOp::Alloc;
  MemoryKind memory_kind = MemoryKind::Unknown;
  uint64_t address = 0;
  uint64_t bytes = 0;
  TimeNs timestamp = 0;
  uint32_t correlation_id = 0;
  uint32_t run_id = 0;  // bench run (see BenchRun); 0 in a single capture
};

enum class SyncKind : uint8_t { Unknown = 0, EventSynchronize, StreamWaitEvent, StreamSynchronize, ContextSynchronize };

// A CPU thread waiting for the GPU. end - start is the time the CPU waited.
struct Synchronization {
  uint32_t pid = 0;
  uint32_t tid = 0;  // from the API call with the same correlation id; 0 if unknown
  uint32_t context = 0, stream = 0;
  SyncKind kind = SyncKind::Unknown;
  TimeNs start = 0, end = 0;
  uint32_t correlation_id = 0;
  uint32_t run_id = 0;  // bench run (see BenchRun); 0 in a single capture
};

// How a stream was created, as CUPTI reports it. Legacy is the NULL stream of CUDA's legacy
// default-stream semantics: work on it waits for, and holds up, every blocking stream of its
// context. Blocking streams (created without cudaStreamNonBlocking) synchronize with it.
enum class StreamFlag : uint8_t { Unknown = 0, Blocking, NonBlocking, Legacy };

// One CUDA stream of a process, as created: its flag and priority (lower numbers are scheduled
// first; 0 is the default, PyTorch's and NCCL's high-priority streams are negative). A stream
// created before the capture started has no row.
struct Stream {
  uint32_t pid = 0;
  uint32_t context = 0, stream = 0;  // CUPTI's ids, as in Kernel
  StreamFlag flag = StreamFlag::Unknown;
  int32_t priority = 0;
  uint32_t correlation_id = 0;  // of the call that created it; 0 if unknown
  uint32_t run_id = 0;          // bench run (see BenchRun); 0 in a single capture
};

// A CUDA graph node and the call that made it: what a replayed kernel (Kernel::graph_node_id)
// is attributed to, its op, module and NVTX range being those of the code that captured it.
// An instantiated graph's nodes are clones: the importer gives a clone its origin's call.
struct GraphNode {
  uint32_t pid = 0;
  uint64_t node_id = 0;         // CUPTI's, as Kernel::graph_node_id
  uint32_t tid = 0;             // the thread that made it (or its origin)
  TimeNs timestamp = 0;         // when it was made
  uint32_t correlation_id = 0;  // the CUDA call that made it (a captured launch, copy, memset); 0: unknown
  uint32_t run_id = 0;          // bench run (see BenchRun); 0 in a single capture
};

enum class NvtxKind : uint8_t { PushPop = 0, StartEnd = 1 };

struct NvtxRange {
  uint32_t pid = 0;
  uint32_t tid = 0;  // thread that opened the range
  NvtxKind kind = NvtxKind::PushPop;
  StringId domain = 0;  // 0: the default domain
  StringId name = 0;
  TimeNs start = 0, end = 0;
  uint32_t depth = 0;   // push/pop nesting level on its thread, 0 = outermost
  uint32_t run_id = 0;  // bench run (see BenchRun); 0 in a single capture
};

struct NvtxMark {
  uint32_t pid = 0;
  uint32_t tid = 0;
  StringId domain = 0;
  StringId name = 0;
  TimeNs timestamp = 0;
  uint32_t run_id = 0;  // bench run (see BenchRun); 0 in a single capture
};

struct Device {
  uint32_t pid = 0;  // process that reported it
  uint32_t id = 0;   // CUDA device ordinal as that process saw it
  std::string name;
  std::string uuid;
  uint32_t compute_major = 0, compute_minor = 0;
  uint32_t sm_count = 0;
  uint32_t core_clock_khz = 0;
  uint32_t memory_clock_khz = 0;
  uint32_t memory_bus_width_bits = 0;
  uint64_t global_memory_bytes = 0;
  uint64_t global_memory_bandwidth_kbps = 0;  // KB/s as CUPTI reports it
  uint32_t l2_cache_bytes = 0;
  uint32_t max_registers_per_sm = 0;
  uint32_t max_registers_per_block = 0;
  uint32_t max_shared_per_sm_bytes = 0;
  uint32_t max_shared_per_block_bytes = 0;
  uint32_t max_warps_per_sm = 0;
  uint32_t max_blocks_per_sm = 0;
  uint32_t max_threads_per_block = 0;
  uint32_t warp_size = 32;
  uint32_t copy_engines = 0;
  uint32_t run_id = 0;  // bench run (see BenchRun); 0 in a single capture
};

// One profiled process (the launched program and each CUDA-using child).
struct Process {
  uint32_t pid = 0;
  uint32_t parent_pid = 0;
  std::string command_line;
  TimeNs start = 0;             // when our library started in it (CUDA initialisation)
  TimeNs end = 0;               // last moment we saw it: clean shutdown or last record
  bool clean_shutdown = false;  // false: crashed/killed, the tail is lost
  uint32_t driver_version = 0;  // e.g. 13000
  uint32_t runtime_version = 0;
  uint32_t cupti_version = 0;  // CUPTI API version number
  std::string capture_status;  // "ok", or why capture did not (fully) start
  std::string cupti_path;      // the libcupti gpuscope used in this process
  // The program had loaded that libcupti itself (PyTorch does). CUPTI delivers activity
  // records to one client: while the program's own CUPTI client (torch.profiler) runs,
  // it gets them and this capture does not.
  bool cupti_shared = false;
  // What limited recording to windows (--capture-range, --delay, --duration), e.g.
  // "between cudaProfilerStart and cudaProfilerStop"; empty: the whole run was recorded.
  std::string capture_range;
  // Which CUDA API calls its api_calls hold (gpuscope captures): "full" (every call), "lean" (pure
  // queries only counted) or "core" (only the calls the analyses use); empty: not said.
  std::string api_trace;
  // Its place in a distributed job, from the launcher's environment (torchrun's
  // RANK/LOCAL_RANK/WORLD_SIZE, Open MPI's, Slurm's) or Kineto's distributedInfo; -1 and 0:
  // unknown (not launched as one of several ranks).
  int32_t rank = -1, local_rank = -1, world_size = 0;
  uint32_t run_id = 0;  // bench run (see BenchRun); 0 in a single capture
};

// With a capture range, one interval of a process in which activity was recorded.
struct CaptureWindow {
  uint32_t pid = 0;
  TimeNs start = 0, end = 0;
  uint32_t run_id = 0;
};

// The calls of one API function that the lean trace did not record one by one
// (pure queries such as cudaGetDevice): how many, and their summed duration. The first call of
// each is also in api_calls. Per process.
struct ApiCount {
  uint32_t pid = 0;
  StringId name = 0;
  ApiDomain domain = ApiDomain::Runtime;
  uint64_t calls = 0;
  TimeNs total_ns = 0;
  uint32_t run_id = 0;
};

// The whole run as launched by `gpuscope profile`.
struct Run {
  std::string command_line;
  std::string host;
  std::string gpuscope_version;
  TimeNs start = 0, end = 0;  // launcher's view: fork to exit
  int32_t exit_code = -1;     // -1 when killed by a signal or unknown
  int32_t term_signal = 0;    // signal number that ended it, 0 if none
  std::string options;        // capture options, as given
  // Where the records came from. Empty tool: gpuscope's own capture. For a file
  // imported from another profiler: the tool that wrote it ("nsys", "torch.profiler", "ncu"),
  // its version as the file states it, the file's format or schema ("export schema 3.25.0"),
  // and the file as given on the command line.
  std::string source_tool;
  std::string source_version;
  std::string source_schema;
  std::string source_file;
  // Where host_ops came from: "" none, or a framework's ops of unknown origin (a Chrome trace);
  // "torch.profiler" PyTorch's own ops in a torch.profiler trace; "nvtx" converted from PyTorch's
  // NVTX op ranges (emit_nvtx, `profile --pytorch=shapes|modules`) by src/importers/torch_nvtx/,
  // which also synthesized their external ids and correlations; "torch observer" recorded by a
  // RecordFunction observer in the program (`profile --pytorch=ops`), linked the same way. Any of
  // the last three: PyTorch's ops.
  std::string host_ops_source;
};
inline constexpr char kHostOpsFromNvtx[] = "nvtx";
inline constexpr char kHostOpsFromTorchProfiler[] = "torch.profiler";
inline constexpr char kHostOpsFromObserver[] = "torch observer";

// Something the source of a capture does not record (an imported file: Kineto traces carry no
// CUDA synchronization records, nsys exports without --cuda-memory-usage no allocations, an ncu
// CSV no timeline). Reports show such data as "not in the source", never as zero, and rules that
// need it do not fire. `what` is one of the kGap* names; `detail` says why, in the source's terms.
struct SourceGap {
  std::string what;
  std::string detail;
};
inline constexpr char kGapApiCalls[] = "api_calls";                 // CUDA runtime/driver API calls
inline constexpr char kGapSynchronization[] = "synchronization";    // CUDA synchronization records
inline constexpr char kGapMemoryEvents[] = "memory_events";         // allocations and frees with sizes
inline constexpr char kGapCopyMemoryKinds[] = "copy_memory_kinds";  // pageable/pinned of a copy
inline constexpr char kGapLaunchConfig[] = "launch_config";         // grid, block, registers, shared memory
inline constexpr char kGapDevices[] = "devices";                    // device properties (SMs, limits)
inline constexpr char kGapNvtx[] = "nvtx";                          // NVTX ranges and marks
inline constexpr char kGapTimeline[] = "timeline";                  // start/end timestamps of GPU work

// A framework operator on a CPU thread: a PyTorch op (aten::addmm), a user annotation or a
// Python function from torch.profiler. The CUDA work it launched links to it through
// its external id (ExternalCorrelation). Ops nest on their thread; depth 0 is outermost.
struct HostOp {
  uint32_t pid = 0;
  uint32_t tid = 0;
  StringId name = 0;
  StringId category = 0;  // the source's kind, e.g. "cpu_op", "user_annotation", "python_function"
  TimeNs start = 0, end = 0;
  uint64_t external_id = 0;      // 0: none (it launched nothing, or the source did not say)
  int64_t sequence_number = -1;  // autograd's forward/backward pairing; -1: none
  StringId input_shapes = 0;     // e.g. "[[64, 512], [512, 512]]"; 0: not recorded
  uint32_t depth = 0;            // nesting on its thread, set by finalize_trace
  uint32_t run_id = 0;
};

// CUPTI's external correlation: the API call (pid, correlation_id) ran inside the framework op
// whose external id is `external_id` (the innermost one open on that thread).
struct ExternalCorrelation {
  uint32_t pid = 0;
  uint32_t correlation_id = 0;
  uint64_t external_id = 0;
  uint32_t run_id = 0;
};

// What NCCL's own record of a call says about the kernel that carried it out: from
// NCCL's NVTX payloads in gpuscope's captures, from the kernel's arguments in torch.profiler
// traces. Keyed like the kernel: (pid, correlation_id of its launch).
struct CollectiveCall {
  uint32_t pid = 0;
  uint32_t correlation_id = 0;
  // nccl-tests' "size": bytes of one rank's larger buffer (all-reduce: the buffer; all-gather:
  // its output, all ranks' parts; reduce-scatter: its input). Summed over the calls that one
  // kernel carried out (a group of calls launches once).
  uint64_t bytes = 0;
  uint32_t ranks = 0;  // ranks in the communicator; 0: unknown
  uint32_t calls = 1;  // NCCL calls folded into the kernel; 0: a later kernel of a group (schema.md)
  int32_t peer = -1;   // send/recv: the other rank; -1 otherwise or unknown
  uint32_t run_id = 0;
};

// Data loss is data: every place we know we lost or could not match something.
struct DataLoss {
  uint32_t pid = 0;
  std::string what;  // e.g. "cupti_dropped_records", "spool_truncated"
  uint64_t count = 0;
  std::string detail;
  uint32_t run_id = 0;  // bench run (see BenchRun); 0 in a single capture
};

// Time CUPTI itself spent (buffer flushes, instrumentation), per CUPTI's records; also
// gpuscope's own metric collection on the program's threads, under these two kinds (written by
// the capture library's kernel profiler, cut out of the timeline by analysis_profiler_time.h).
inline constexpr char kMetricSetupOverhead[] = "gpuscope_metric_setup";    // one-time set-up
inline constexpr char kKernelReplayOverhead[] = "gpuscope_kernel_replay";  // one measured launch
struct CuptiOverhead {
  uint32_t pid = 0;
  StringId kind = 0;
  TimeNs start = 0, end = 0;
  uint32_t run_id = 0;  // bench run (see BenchRun); 0 in a single capture
};

// One measured run of `gpuscope bench`, which runs the program several times
// into one capture and stamps every record with its run's id (1, 2, ...).
// A capture made by `profile` has no BenchRun rows; all its records are run 0.
struct BenchRun {
  uint32_t run_id = 0;
  TimeNs start = 0, end = 0;  // launcher's view: fork to exit
  int32_t exit_code = -1;     // -1 when killed by a signal
  int32_t term_signal = 0;
};

// One hardware metric of one kernel launch, from the CUPTI range profiler
// (`gpuscope profile --metrics`). Linked to its Kernel by (pid, correlation_id); the
// names and units are in gpuscope/metric_sets.h (raw --metric names may be others).
struct KernelMetric {
  uint32_t pid = 0;
  uint32_t correlation_id = 0;
  StringId metric = 0;  // full Perfworks name, e.g. "dram__bytes_read.sum"
  double value = 0;
  uint32_t run_id = 0;  // bench run (see BenchRun); 0 in a single capture
};

// One PM-sampling interval of one GPU-wide counter (`gpuscope profile --gpu-metrics`).
struct GpuMetricSample {
  uint32_t pid = 0;
  uint32_t device = 0;
  TimeNs start = 0, end = 0;  // the sampling interval
  StringId metric = 0;        // e.g. "sm__cycles_active.avg.pct_of_peak_sustained_elapsed"
  double value = 0;
  uint32_t run_id = 0;
};

// How metric collection went in one process, so a report can say what it lacks and why.
struct MetricCollection {
  uint32_t pid = 0;
  std::string kind;               // "kernel" (range profiler) or "sampling" (PM sampling)
  std::string status;             // "ok", or one line: what failed and what to do
  std::string chip;               // e.g. "GH100"
  uint32_t passes = 0;            // replay passes per kernel (kernel); 0 for sampling
  uint32_t metrics = 0;           // metrics configured
  uint64_t kernels_profiled = 0;  // kernel: launches measured
  uint64_t kernels_failed = 0;    // kernel: launches whose measurement failed
  uint64_t interval_ns = 0;       // sampling: interval
  uint32_t run_id = 0;
  // Where the values came from: "" for gpuscope's own collection, else the file they
  // were imported from, e.g. "ncu CSV run.csv" (--metrics-from, or an ncu CSV imported alone).
  // Last, so brace-initialized rows written before it stay valid.
  std::string source;
};

// CUPTI's PC sampling (`profile --source`): the samples one PC of a kernel got with one stall
// reason over the run. Samples are counts, never times: no timing analysis reads them.
struct PcSample {
  uint32_t pid = 0;
  uint32_t device = 0;
  uint64_t cubin_crc = 0;     // the module the PC lies in: Cubin::crc
  StringId function = 0;      // the kernel's mangled name, as in the cubin's symbols
  uint64_t pc_offset = 0;     // bytes from the function's first instruction
  StringId stall_reason = 0;  // ncu's short name: "long_scoreboard", "barrier", "selected" (issued), ...
  uint64_t samples = 0;       // samples of this PC with this reason
  uint64_t not_issued = 0;    // of them, those where the warp issued nothing that cycle
  uint32_t run_id = 0;
};

// A loaded module's cubin (ELF), kept so that reports can map sampled PCs to SASS and source
// lines; only modules with sampled PCs are kept.
struct Cubin {
  uint32_t pid = 0;
  uint64_t crc = 0;   // CUPTI's cuptiGetCubinCrc, as PcSample::cubin_crc
  std::string image;  // the ELF's bytes
  uint32_t run_id = 0;
};

// One device's PC sampling in one process: its period and what it counted.
struct PcSampling {
  uint32_t pid = 0;
  uint32_t device = 0;
  uint32_t period_log2 = 0;       // a sample every 2^N cycles of each SM sub-partition
  uint64_t total_samples = 0;     // CUPTI's count: user kernels' PCs, other kernels' and dropped ones
  uint64_t dropped_samples = 0;   // dropped by the hardware (buffer backpressure); also in data_loss
  uint64_t non_user_samples = 0;  // in kernels CUPTI gives no PCs for (the driver's own)
  uint32_t buffer_full = 0;       // drains that found the hardware buffer full
  uint32_t run_id = 0;
};

struct Trace {
  StringTable strings;
  Run run;                     // for a bench: the whole bench (first start to last end)
  std::vector<BenchRun> runs;  // empty unless made by `gpuscope bench`
  std::vector<Process> processes;
  std::vector<Device> devices;
  std::vector<ApiCall> api_calls;
  std::vector<Kernel> kernels;
  std::vector<Memcpy> memcpys;
  std::vector<Memset> memsets;
  std::vector<MemoryEvent> memory_events;
  std::vector<Synchronization> synchronizations;
  std::vector<NvtxRange> nvtx_ranges;
  std::vector<NvtxMark> nvtx_marks;
  std::vector<CuptiOverhead> overheads;
  std::vector<DataLoss> data_loss;
  std::vector<KernelMetric> kernel_metrics;
  std::vector<GpuMetricSample> gpu_metric_samples;
  std::vector<MetricCollection> metric_collections;
  std::vector<SourceGap> source_gaps;  // empty for gpuscope's own captures
  std::vector<HostOp> host_ops;
  std::vector<ExternalCorrelation> external_correlations;
  std::vector<CaptureWindow> capture_windows;
  std::vector<ApiCount> api_counts;
  std::vector<CollectiveCall> collective_calls;
  std::vector<Stream> streams;
  std::vector<GraphNode> graph_nodes;
  std::vector<PcSample> pc_samples;
  std::vector<Cubin> cubins;
  std::vector<PcSampling> pc_sampling;

  // The source does not record `what` (a kGap* name): show "not in the source", not zero.
  bool lacks(std::string_view what) const { return gap(what) != nullptr; }
  const SourceGap* gap(std::string_view what) const;  // nullptr: the source records it
};

const char* to_string(CopyKind kind);
const char* to_string(MemoryKind kind);
const char* to_string(SyncKind kind);
const char* to_string(ApiDomain domain);
const char* to_string(NvtxKind kind);
const char* to_string(MemoryOp op);
const char* to_string(StreamFlag flag);

// NCCL's communication kernels: ncclDevKernel_AllReduce_Sum_f32_RING_LL, older
// ncclKernel_AllReduce_RING_LL_Sum_float, ncclDevKernel_SendRecv, ...
inline bool is_nccl_kernel(std::string_view name) {
  return name.rfind("ncclDevKernel_", 0) == 0 || name.rfind("ncclKernel_", 0) == 0;
}

}  // namespace gpuscope

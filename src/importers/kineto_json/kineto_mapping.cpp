// Kineto trace events -> the trace model, one event at a time as the file streams past.
// Categories and argument names are Kineto's (libkineto ActivityType names, output_json.cpp).
// Times stay as written (µs relative to baseTimeNanoseconds, in ns) until finish() adds the base;
// GPU work carries a device as its "pid" and gets its process in finish() too.
#include <algorithm>
#include <cstring>
#include <string_view>

#include "importers/kineto_json/kineto_import.h"

namespace gpuscope::kineto {

namespace {

std::string where(const Event& e) {
  return "traceEvents[" + std::to_string(e.index) + "] (" + e.cat + " '" + e.name + "')";
}

// A numeric argument the category needs, as an unsigned 32-bit id; `fallback` when absent.
uint32_t id_arg(JsonStream& in, const Event& e, const NumArg& arg, const char* field, int64_t fallback = 0) {
  if (arg.wrong_type) in.fail(where(e) + ": \"" + field + "\" is not a number");
  const int64_t v = arg.present ? arg.value : fallback;
  if (v < 0 || v > UINT32_MAX) in.fail(where(e) + ": \"" + field + "\" is out of range");
  return static_cast<uint32_t>(v);
}

uint64_t size_arg(JsonStream& in, const Event& e, const NumArg& arg, const char* field) {
  if (arg.wrong_type) in.fail(where(e) + ": \"" + field + "\" is not a number");
  if (arg.value < 0) in.fail(where(e) + ": \"" + field + "\" is negative");
  return static_cast<uint64_t>(arg.value);
}

// Kineto's memory kind names (CUPTI's, as in "Memcpy HtoD (Pageable -> Device)").
MemoryKind memory_kind(std::string_view name) {
  if (name == "Pageable") return MemoryKind::Pageable;
  if (name == "Pinned") return MemoryKind::Pinned;
  if (name == "Device") return MemoryKind::Device;
  if (name == "Array") return MemoryKind::Array;
  if (name == "Managed") return MemoryKind::Managed;
  if (name == "Device Static") return MemoryKind::DeviceStatic;
  if (name == "Managed Static") return MemoryKind::ManagedStatic;
  return MemoryKind::Unknown;
}

CopyKind copy_kind(std::string_view name) {
  for (CopyKind k : {CopyKind::HtoD, CopyKind::DtoH, CopyKind::HtoA, CopyKind::AtoH, CopyKind::AtoA, CopyKind::AtoD,
                     CopyKind::DtoA, CopyKind::DtoD, CopyKind::HtoH, CopyKind::PtoP})
    if (name == to_string(k)) return k;
  return CopyKind::Unknown;
}

// The text between '(' and ')' of "Memcpy HtoD (Pageable -> Device)" or "Memset (Device)".
std::string_view in_parens(std::string_view name) {
  const size_t open = name.find('('), close = name.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) return {};
  return name.substr(open + 1, close - open - 1);
}

SyncKind sync_kind(std::string_view name) {
  if (name == "Event Sync") return SyncKind::EventSynchronize;
  if (name == "Stream Wait Event") return SyncKind::StreamWaitEvent;
  if (name == "Stream Sync") return SyncKind::StreamSynchronize;
  if (name == "Context Sync") return SyncKind::ContextSynchronize;
  return SyncKind::Unknown;
}

bool is_step_name(std::string_view name) { return name.rfind("ProfilerStep#", 0) == 0; }

// Where GPU work ran and what launched it: Kineto's GPU rows have the device as "pid" and the
// stream as "tid", repeated in the arguments.
template <class Record>
void gpu_fields(JsonStream& in, const Event& e, Record& r) {
  const EventArgs& a = e.args;
  r.device = id_arg(in, e, a.device, "device", e.pid_is_number ? e.pid : 0);
  r.context = id_arg(in, e, a.context, "context");
  r.stream = id_arg(in, e, a.stream, "stream", e.tid_is_number ? e.tid : 0);
  r.correlation_id = id_arg(in, e, a.correlation, "correlation");
  r.start = e.ts;
  r.end = e.ts + e.dur;
}

// Bytes per element of c10's scalar types as Kineto names them ("dtype"); 0: not known.
uint64_t dtype_bytes(std::string_view t) {
  if (t == "Float" || t == "Int" || t == "UInt32" || t == "ComplexHalf") return 4;
  if (t == "Double" || t == "Long" || t == "UInt64" || t == "ComplexFloat") return 8;
  if (t == "Half" || t == "BFloat16" || t == "Short" || t == "UInt16") return 2;
  if (t == "Byte" || t == "Char" || t == "Bool" || t.rfind("Float8_", 0) == 0) return 1;
  if (t == "ComplexDouble") return 16;
  return 0;
}

// A communication kernel's message as nccl-tests sizes it: one rank's larger buffer ("In msg
// nelems" of a reduce-scatter, "Out msg nelems" of an all-gather). 0 when the trace lacks it.
uint64_t message_bytes(const EventArgs& a) {
  const uint64_t element = dtype_bytes(a.dtype);
  const auto count = [](const NumArg& n) {
    return n.present && !n.wrong_type && n.value > 0 ? static_cast<uint64_t>(n.value) : 0;
  };
  const uint64_t elements = std::max(count(a.in_nelems), count(a.out_nelems));
  return elements <= UINT64_MAX / 16 ? elements * element : 0;
}

}  // namespace

void TraceImport::seen(TimeNs start, TimeNs end) {
  first_ = std::min(first_, start);
  last_ = std::max(last_, end);
}

uint32_t TraceImport::cpu_pid(JsonStream& in, const Event& e) {
  if (!e.pid_is_number || e.pid < 0 || e.pid > UINT32_MAX) return 0;
  const uint32_t pid = static_cast<uint32_t>(e.pid);
  Span& span = cpu_pids_[pid];
  span.first = std::min(span.first, e.ts);
  span.last = std::max(span.last, e.ts + e.dur);
  return pid;
}

void TraceImport::map(JsonStream& in, const Event& e) {
  if (e.ph == "X") return complete_event(in, e);
  if (e.ph == "M") return metadata_event(e);
  if ((e.ph == "i" || e.ph == "I") && e.name == "[memory]") return memory_event(in, e);
  if (e.ph == "f" && e.cat == "ac2g" && e.has_id && e.id > 0 && e.id <= UINT32_MAX)
    flow_ends_.push_back(static_cast<uint32_t>(e.id));
  if (e.ph == "B" || e.ph == "E") ++skipped_["begin/end (B/E) events"];
  // Other instants (Kineto's iteration and window markers), flow starts, counters: nothing to keep.
}

void TraceImport::complete_event(JsonStream& in, const Event& e) {
  if (!e.has_ts || !e.has_dur) in.fail(where(e) + ": a complete event (\"ph\": \"X\") without \"ts\" and \"dur\"");
  if (e.dur < 0) in.fail(where(e) + ": negative \"dur\"");
  const std::string& c = e.cat;
  if (c == "kernel") kernel(in, e);
  else if (c == "gpu_memcpy") memcpy(in, e);
  else if (c == "gpu_memset") memset(in, e);
  else if (c == "cuda_runtime" || c == "cuda_driver") api_call(in, e);
  else if (c == "cpu_op" || c == "user_annotation" || c == "python_function") host_op(in, e);
  else if (c == "gpu_user_annotation") gpu_annotation(e);
  else if (c == "cuda_sync") synchronization(in, e);
  else if (c == "overhead") {
    trace_.overheads.push_back({0, trace_.strings.intern(e.name), e.ts, e.ts + e.dur, 0});
    kineto_ = true;
  } else {
    if (c != "Trace") ++skipped_[c.empty() ? "(no category)" : c];  // "Trace": Kineto's profiling window
    return;
  }
  seen(e.ts, e.ts + e.dur);
}

void TraceImport::kernel(JsonStream& in, const Event& e) {
  const EventArgs& a = e.args;
  Kernel k;
  gpu_fields(in, e, k);
  k.name = k.mangled_name = trace_.strings.intern(e.name);  // Kineto writes demangled names only
  k.registers_per_thread = id_arg(in, e, a.registers, "registers per thread");
  // Kineto sums static and dynamic shared memory into one number; kept as static.
  k.static_shared_bytes = id_arg(in, e, a.shared_memory, "shared memory");
  if (a.has_grid && a.has_block) {
    std::copy(a.grid, a.grid + 3, k.grid);
    std::copy(a.block, a.block + 3, k.block);
    ++kernels_with_config_;
  }
  if (a.external_id.present && !a.external_id.wrong_type && a.external_id.value > 0 && k.correlation_id)
    gpu_external_.push_back({k.correlation_id, static_cast<uint64_t>(a.external_id.value)});
  if (const uint64_t bytes = message_bytes(a); bytes > 0 && k.correlation_id) {
    CollectiveCall c;  // its pid is the launching process's, set in finish()
    c.correlation_id = k.correlation_id;
    c.bytes = bytes;
    const int64_t ranks = a.group_size.present && !a.group_size.wrong_type ? a.group_size.value : 0;
    c.ranks = ranks > 0 && ranks <= INT32_MAX ? static_cast<uint32_t>(ranks) : 0;
    trace_.collective_calls.push_back(c);
  }
  trace_.kernels.push_back(k);
  kineto_ = true;
}

void TraceImport::memcpy(JsonStream& in, const Event& e) {
  const EventArgs& a = e.args;
  Memcpy m;
  gpu_fields(in, e, m);
  m.bytes = size_arg(in, e, a.bytes, "bytes");
  // "Memcpy HtoD (Pageable -> Device)": the direction after "Memcpy ", the memory kinds in parentheses.
  const std::string_view name = e.name;
  const std::string_view rest = name.rfind("Memcpy ", 0) == 0 ? name.substr(7) : std::string_view{};
  m.kind = copy_kind(rest.substr(0, rest.find(' ')));
  const std::string_view kinds = in_parens(name);
  const size_t arrow = kinds.find(" -> ");
  if (arrow != std::string_view::npos) {
    m.src_kind = memory_kind(kinds.substr(0, arrow));
    m.dst_kind = memory_kind(kinds.substr(arrow + 4));
  }
  if (m.src_kind == MemoryKind::Unknown && m.dst_kind == MemoryKind::Unknown) ++copies_without_kinds_;
  m.async = true;  // until finish() sees the launching call's name (Kineto does not say)
  trace_.memcpys.push_back(m);
  kineto_ = true;
}

void TraceImport::memset(JsonStream& in, const Event& e) {
  const EventArgs& a = e.args;
  Memset m;
  gpu_fields(in, e, m);
  m.bytes = size_arg(in, e, a.bytes, "bytes");
  m.memory_kind = memory_kind(in_parens(e.name));
  m.async = true;
  trace_.memsets.push_back(m);
  kineto_ = true;
}

void TraceImport::api_call(JsonStream& in, const Event& e) {
  const uint32_t pid = cpu_pid(in, e);
  if (!e.pid_is_number || !e.tid_is_number) return void(++string_pid_events_);
  ApiCall c;
  c.pid = pid;
  c.tid = static_cast<uint32_t>(e.tid);
  c.domain = e.cat == "cuda_driver" ? ApiDomain::Driver : ApiDomain::Runtime;
  c.cbid = id_arg(in, e, e.args.cbid, "cbid");
  c.name = trace_.strings.intern(e.name);
  c.start = e.ts;
  c.end = e.ts + e.dur;
  c.correlation_id = id_arg(in, e, e.args.correlation, "correlation");
  trace_.api_calls.push_back(c);
  const NumArg& ext = e.args.external_id;
  if (ext.present && !ext.wrong_type && ext.value > 0 && c.correlation_id)
    trace_.external_correlations.push_back({pid, c.correlation_id, static_cast<uint64_t>(ext.value), 0});
  kineto_ = true;
}

void TraceImport::host_op(JsonStream& in, const Event& e) {
  const uint32_t pid = cpu_pid(in, e);
  if (!e.pid_is_number || !e.tid_is_number) return void(++string_pid_events_);
  const EventArgs& a = e.args;
  HostOp op;
  op.pid = pid;
  op.tid = static_cast<uint32_t>(e.tid);
  op.name = trace_.strings.intern(e.name);
  op.category = trace_.strings.intern(e.cat);
  op.start = e.ts;
  op.end = e.ts + e.dur;
  // Ops and annotations launch GPU work under their External id. A python_function's id is its
  // Python id, another numbering: kept out so it can never claim an op's kernels.
  if (e.cat != "python_function" && a.external_id.present && !a.external_id.wrong_type && a.external_id.value > 0)
    op.external_id = static_cast<uint64_t>(a.external_id.value);
  if (a.sequence_number.present && !a.sequence_number.wrong_type) op.sequence_number = a.sequence_number.value;
  if (!a.input_dims.empty()) op.input_shapes = trace_.strings.intern(a.input_dims);
  trace_.host_ops.push_back(op);
  // record_function annotations (and the profiler's ProfilerStep#N) are ranges on their thread,
  // as NVTX ranges would be: the NVTX sections and iteration ranges see them.
  if (e.cat == "user_annotation" || (e.cat == "cpu_op" && is_step_name(e.name))) {
    NvtxRange r;
    r.pid = pid;
    r.tid = op.tid;
    r.kind = NvtxKind::PushPop;
    r.domain = trace_.strings.intern(kAnnotationDomain);
    r.name = op.name;
    r.start = op.start;
    r.end = op.end;
    trace_.nvtx_ranges.push_back(r);
  }
  kineto_ = true;
}

// The GPU-side span of an annotation (from its first to its last GPU work, per stream): a
// start/end range in its own domain, owned by the process that launched the work (finish()).
void TraceImport::gpu_annotation(const Event& e) {
  NvtxRange r;
  r.pid = 0;
  r.tid = 0;
  r.kind = NvtxKind::StartEnd;
  r.domain = trace_.strings.intern(kGpuAnnotationDomain);
  r.name = trace_.strings.intern(std::string(kGpuAnnotationPrefix) + e.name);
  r.start = e.ts;
  r.end = e.ts + e.dur;
  trace_.nvtx_ranges.push_back(r);
  kineto_ = true;
}

void TraceImport::synchronization(JsonStream& in, const Event& e) {
  Synchronization s;
  s.context = id_arg(in, e, e.args.context, "context");
  s.stream = id_arg(in, e, e.args.stream, "stream");
  s.kind = sync_kind(e.name);
  s.start = e.ts;
  s.end = e.ts + e.dur;
  s.correlation_id = id_arg(in, e, e.args.correlation, "correlation");
  trace_.synchronizations.push_back(s);
  ++sync_events_;
  kineto_ = true;
}

// profile_memory's "[memory]" instants: one per allocation (Bytes > 0) or free (Bytes < 0) of
// PyTorch's allocators. CPU memory (Device Type 0, Device Id -1) has no place in the model.
void TraceImport::memory_event(JsonStream& in, const Event& e) {
  const EventArgs& a = e.args;
  if (!e.has_ts) in.fail(where(e) + ": no \"ts\"");
  if (a.mem_bytes.wrong_type || a.device_id.wrong_type)
    in.fail(where(e) + ": \"Bytes\" or \"Device Id\" is not a number");
  kineto_ = true;
  if (!a.mem_bytes.present || !a.device_id.present) return;
  if (a.device_id.value < 0 || (a.device_type.present && a.device_type.value == 0)) return void(++cpu_memory_events_);
  if (a.device_id.value > UINT32_MAX) in.fail(where(e) + ": \"Device Id\" is out of range");
  MemoryEvent m;
  m.pid = cpu_pid(in, e);
  m.device = static_cast<uint32_t>(a.device_id.value);
  m.op = a.mem_bytes.value < 0 ? MemoryOp::Free : MemoryOp::Alloc;
  m.memory_kind = MemoryKind::Device;
  m.address = a.addr;
  m.bytes = a.mem_bytes.value < 0 ? static_cast<uint64_t>(-(a.mem_bytes.value + 1)) + 1
                                  : static_cast<uint64_t>(a.mem_bytes.value);
  m.timestamp = e.ts;
  trace_.memory_events.push_back(m);
  seen(e.ts, e.ts);
}

void TraceImport::metadata_event(const Event& e) {
  if (e.name == "process_name" && e.pid_is_number && e.pid >= 0 && e.pid <= UINT32_MAX && e.args.has_name)
    process_names_[static_cast<uint32_t>(e.pid)] = e.args.name;
}

}  // namespace gpuscope::kineto

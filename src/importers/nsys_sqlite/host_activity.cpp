// CPU-side CUDA records of an nsys export: runtime and driver API calls, synchronization waits,
// CUDA event records (counted) and the profiler's own overhead.
#include <array>
#include <cctype>
#include <string>

#include "importers/nsys_sqlite/readers.h"

namespace gpuscope::nsys {

namespace {

uint64_t key(uint32_t pid, uint32_t correlation_id) { return (uint64_t{pid} << 32) | correlation_id; }

// nsys's ENUM_NSYS_EVENT_CLASS id of driver API calls, when the export lacks the table.
constexpr int64_t kEventClassDriver = 1;

// nsys writes driver calls into CUPTI_ACTIVITY_KIND_RUNTIME too, told apart by eventClass;
// a separate _DRIVER table (other versions) is read the same way, driver by default.
void read_api_table(NsysSource& source, const std::string& table, ApiDomain default_domain, int64_t driver_class) {
  enum : size_t { kStart, kEnd, kGlobalTid, kCorrelation, kNameId, kReturnValue, kEventClass };
  constexpr std::string_view kApiColumns[] = {"start",  "end",         "globalTid", "correlationId",
                                              "nameId", "returnValue", "eventClass"};
  NsysTable rows(source, table, kApiColumns);
  rows.require(kStart);
  rows.require(kEnd);
  auto& calls = source.trace().api_calls;
  while (rows.next()) {
    if (rows.lacks_time(kStart, kEnd)) continue;
    ApiCall& c = calls.emplace_back();
    const int64_t global_tid = rows.integer(kGlobalTid);
    c.pid = pid_of(global_tid);
    c.tid = tid_of(global_tid);
    c.domain = rows.has(kEventClass) && rows.integer(kEventClass, -1) == driver_class ? ApiDomain::Driver
                                                                                      : default_domain;
    c.name = source.api_name(rows.integer(kNameId, -1));
    c.start = source.time(rows.integer(kStart));
    c.end = source.time(rows.integer(kEnd));
    c.return_code = static_cast<int32_t>(rows.integer(kReturnValue));
    c.correlation_id = static_cast<uint32_t>(rows.integer(kCorrelation));
  }
  source.untimed(table, rows.untimed_rows());
}

int64_t event_class(const std::unordered_map<int64_t, std::string>& classes, std::string_view name, int64_t fallback) {
  for (const auto& [id, n] : classes)
    if (n == name) return id;
  return fallback;
}

// ENUM_CUPTI_SYNC_TYPE, decoded once; without the table, CUPTI's numbering (which nsys keeps).
std::array<SyncKind, 8> sync_kinds(NsysSource& source) {
  std::array<SyncKind, 8> kinds = {SyncKind::Unknown,
                                   SyncKind::EventSynchronize,
                                   SyncKind::StreamWaitEvent,
                                   SyncKind::StreamSynchronize,
                                   SyncKind::ContextSynchronize,
                                   SyncKind::Unknown,
                                   SyncKind::Unknown,
                                   SyncKind::Unknown};
  for (const auto& [code, name] : source.enum_names("ENUM_CUPTI_SYNC_TYPE")) {
    if (code < 0 || code >= static_cast<int64_t>(kinds.size())) continue;
    const std::string_view n = name;
    kinds[static_cast<size_t>(code)] = n.ends_with("_EVENT_SYNCHRONIZE")     ? SyncKind::EventSynchronize
                                       : n.ends_with("_STREAM_WAIT_EVENT")   ? SyncKind::StreamWaitEvent
                                       : n.ends_with("_STREAM_SYNCHRONIZE")  ? SyncKind::StreamSynchronize
                                       : n.ends_with("_CONTEXT_SYNCHRONIZE") ? SyncKind::ContextSynchronize
                                                                             : SyncKind::Unknown;
  }
  return kinds;
}

}  // namespace

void read_api_calls(NsysSource& source) {
  const auto classes = source.enum_names("ENUM_NSYS_EVENT_CLASS");
  const int64_t driver_class = event_class(classes, "TRACE_PROCESS_EVENT_CUDA_DRIVER", kEventClassDriver);
  if (const std::string runtime = source.table("CUPTI_ACTIVITY_KIND_RUNTIME"); !runtime.empty())
    read_api_table(source, runtime, ApiDomain::Runtime, driver_class);
  if (const std::string driver = source.table("CUPTI_ACTIVITY_KIND_DRIVER"); !driver.empty())
    read_api_table(source, driver, ApiDomain::Driver, driver_class);
}

void read_synchronizations(NsysSource& source) {
  const std::string table = source.table("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION");
  if (table.empty()) return;
  enum : size_t { kStart, kEnd, kContext, kStream, kCorrelation, kGlobalPid, kSyncType, kOldSyncType };
  static constexpr std::string_view kColumns[] = {"start",         "end",       "contextId", "streamId",
                                                  "correlationId", "globalPid", "syncType",  "deprecatedSyncType"};
  const std::array<SyncKind, 8> kinds = sync_kinds(source);
  NsysTable rows(source, table, kColumns);
  rows.require(kStart);
  rows.require(kEnd);
  LaunchIndex launches(source.trace());
  auto& syncs = source.trace().synchronizations;
  while (rows.next()) {
    if (rows.lacks_time(kStart, kEnd)) continue;
    Synchronization& s = syncs.emplace_back();
    s.correlation_id = static_cast<uint32_t>(rows.integer(kCorrelation));
    s.pid = rows.has(kGlobalPid) ? pid_of(rows.integer(kGlobalPid)) : launches.pid(s.correlation_id);
    s.context = static_cast<uint32_t>(rows.integer(kContext));
    s.stream = static_cast<uint32_t>(rows.integer(kStream));
    const int64_t type = rows.is_null(kSyncType) ? rows.integer(kOldSyncType) : rows.integer(kSyncType);
    s.kind = type >= 0 && type < static_cast<int64_t>(kinds.size()) ? kinds[static_cast<size_t>(type)]
                                                                    : SyncKind::Unknown;
    s.start = source.time(rows.integer(kStart));
    s.end = source.time(rows.integer(kEnd));
  }
  source.untimed(table, rows.untimed_rows());
}

void count_cuda_events(NsysSource& source) {
  const std::string table = source.table("CUPTI_ACTIVITY_KIND_CUDA_EVENT");
  if (table.empty()) return;
  source.mark_read(table);
  auto count = source.db().prepare("SELECT COUNT(*) FROM \"" + table + "\"");
  const uint64_t events = count.next() ? static_cast<uint64_t>(count.integer(0)) : 0;
  if (events)
    source.skipped("nsys_cuda_events", events,
                   table +
                       ": completions of cudaEventRecord; the trace model has no event records (the waits on "
                       "them are imported as synchronizations, the record calls as API calls)");
}

void read_overheads(NsysSource& source) {
  // The overhead's kind in the names gpuscope's own capture uses for CUPTI's overhead kinds:
  // ENUM_CUPTI_OVERHEAD_TYPE's name without "OVERHEAD_", lower case ("cupti_buffer_flush").
  static constexpr std::string_view kByCode[] = {"undefined",
                                                 "unknown",
                                                 "driver_compiler",
                                                 "cupti_buffer_flush",
                                                 "cupti_instrumentation",
                                                 "cupti_resource",
                                                 "runtime_triggered_module_loading",
                                                 "lazy_function_loading",
                                                 "command_buffer_full"};
  std::unordered_map<int64_t, StringId> kinds;
  for (size_t code = 0; code < std::size(kByCode); ++code)
    kinds[static_cast<int64_t>(code)] = source.text(kByCode[code]);
  for (const auto& [code, name] : source.enum_names("ENUM_CUPTI_OVERHEAD_TYPE")) {
    std::string kind = name.starts_with("OVERHEAD_") ? name.substr(9) : name;
    for (char& c : kind) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    kinds[code] = source.text(kind);
  }

  enum : size_t { kStart, kEnd, kGlobalTid, kType };
  static constexpr std::string_view kColumns[] = {"start", "end", "globalTid", "overheadType"};
  for (std::string_view base : {"PROFILER_OVERHEAD", "CUPTI_ACTIVITY_KIND_OVERHEAD"}) {
    const std::string table = source.table(base);
    if (table.empty()) continue;
    NsysTable rows(source, table, kColumns);
    rows.require(kStart);
    rows.require(kEnd);
    while (rows.next()) {
      if (rows.lacks_time(kStart, kEnd)) continue;
      CuptiOverhead& o = source.trace().overheads.emplace_back();
      o.pid = pid_of(rows.integer(kGlobalTid));
      const int64_t type = rows.integer(kType, 1);
      auto kind = kinds.find(type);
      o.kind = kind != kinds.end() ? kind->second : source.text("overhead type " + std::to_string(type));
      o.start = source.time(rows.integer(kStart));
      o.end = source.time(rows.integer(kEnd));
    }
    source.untimed(table, rows.untimed_rows());
  }
}

bool LaunchIndex::async(uint32_t pid, uint32_t correlation_id) {
  if (!async_calls_) {
    async_calls_.emplace();
    std::vector<int8_t> is_async(trace_.strings.size(), -1);  // by name: -1 not yet known
    for (const ApiCall& c : trace_.api_calls) {
      if (c.name >= is_async.size()) continue;
      int8_t& known = is_async[c.name];
      if (known < 0) known = trace_.strings.get(c.name).find("Async") != std::string::npos;
      if (known) async_calls_->insert(key(c.pid, c.correlation_id));
    }
  }
  return async_calls_->count(key(pid, correlation_id)) > 0;
}

uint32_t LaunchIndex::pid(uint32_t correlation_id) {
  if (!pid_of_call_) {
    pid_of_call_.emplace();
    for (const ApiCall& c : trace_.api_calls) pid_of_call_->emplace(c.correlation_id, c.pid);
  }
  auto it = pid_of_call_->find(correlation_id);
  return it == pid_of_call_->end() ? 0 : it->second;
}

}  // namespace gpuscope::nsys

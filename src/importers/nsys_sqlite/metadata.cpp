// What an nsys export says about itself and the machine: its version and schema, when the
// session started, the command, the host, the processes and the GPUs, and nsys's own warnings.
#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "importers/nsys_sqlite/readers.h"

namespace gpuscope::nsys {

namespace {

// name -> value pairs of a two-column metadata table (META_DATA_EXPORT, META_DATA_CAPTURE,
// TARGET_INFO_SYSTEM_ENV); a name that repeats keeps its first value.
std::map<std::string, std::string> name_values(NsysSource& source, std::string_view base) {
  std::map<std::string, std::string> values;
  const std::string table = source.table(base);
  if (table.empty()) return values;
  static constexpr std::string_view kColumns[] = {"name", "value"};
  NsysTable rows(source, table, kColumns);
  while (rows.next()) values.emplace(std::string(rows.text(0)), std::string(rows.text(1)));
  return values;
}

std::string value_or(const std::map<std::string, std::string>& values, const std::string& name,
                     const std::string& fallback = "") {
  auto it = values.find(name);
  return it != values.end() ? it->second : fallback;
}

std::string shell_word(const std::string& word) {
  if (!word.empty() && word.find_first_of(" \t'\"\\$`") == std::string::npos) return word;
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// The command nsys launched: PROCESS_0:COMMAND and its PROCESS_0:ARGUMENT_<i>.
std::string launched_command(const std::map<std::string, std::string>& capture) {
  std::string command = value_or(capture, "PROCESS_0:COMMAND");
  if (command.empty()) return "";
  command = shell_word(command);
  for (int i = 0;; ++i) {
    auto it = capture.find("PROCESS_0:ARGUMENT_" + std::to_string(i));
    if (it == capture.end()) break;
    command += " " + shell_word(it->second);
  }
  return command;
}

int64_t to_integer(const std::string& text) {
  try {
    return std::stoll(text);
  } catch (...) {
    return 0;
  }
}

}  // namespace

ExportVersion read_export_metadata(NsysSource& source) {
  const auto exported = name_values(source, "META_DATA_EXPORT");
  ExportVersion version;
  version.product = value_or(exported, "EXPORT_PRODUCT_VERSION");
  version.schema = value_or(exported, "EXPORT_SCHEMA_VERSION");
  version.major = static_cast<int>(to_integer(value_or(exported, "EXPORT_SCHEMA_VERSION_MAJOR", version.schema)));

  Run& run = source.trace().run;
  run.command_line = launched_command(name_values(source, "META_DATA_CAPTURE"));
  run.host = value_or(name_values(source, "TARGET_INFO_SYSTEM_ENV"), "Hostname");

  if (const std::string table = source.table("TARGET_INFO_SESSION_START_TIME"); !table.empty()) {
    static constexpr std::string_view kColumns[] = {"utcEpochNs"};
    NsysTable rows(source, table, kColumns);
    if (rows.has(0) && rows.next() && !rows.is_null(0)) {
      source.set_session_start(rows.integer(0));
      return version;
    }
  }
  source.skipped("nsys_relative_times", 0,
                 "the export has no TARGET_INFO_SESSION_START_TIME: times are ns since the session started, "
                 "not wall-clock dates");
  return version;
}

void read_processes(NsysSource& source) {
  Trace& trace = source.trace();
  std::map<uint32_t, std::pair<TimeNs, TimeNs>> spans;  // pid -> first start, last end
  uint32_t last_pid = UINT32_MAX;
  std::pair<TimeNs, TimeNs>* span = nullptr;
  auto add = [&](uint32_t pid, TimeNs start, TimeNs end) {
    if (pid != last_pid) {  // records come in runs of one process: look the map up per run
      span = &spans.try_emplace(pid, start, end).first->second;
      last_pid = pid;
    }
    span->first = std::min(span->first, start);
    span->second = std::max(span->second, end);
  };
  for (const ApiCall& e : trace.api_calls) add(e.pid, e.start, e.end);
  for (const Kernel& e : trace.kernels) add(e.pid, e.start, e.end);
  for (const Memcpy& e : trace.memcpys) add(e.pid, e.start, e.end);
  for (const Memset& e : trace.memsets) add(e.pid, e.start, e.end);
  for (const Synchronization& e : trace.synchronizations) add(e.pid, e.start, e.end);
  for (const MemoryEvent& e : trace.memory_events) add(e.pid, e.timestamp, e.timestamp);
  for (const NvtxRange& e : trace.nvtx_ranges) add(e.pid, e.start, e.end);
  for (const NvtxMark& e : trace.nvtx_marks) add(e.pid, e.timestamp, e.timestamp);
  for (const CuptiOverhead& e : trace.overheads) add(e.pid, e.start, e.end);

  std::map<uint32_t, std::string> names;
  if (const std::string table = source.table("PROCESSES"); !table.empty()) {
    static constexpr std::string_view kColumns[] = {"globalPid", "pid", "name"};
    NsysTable rows(source, table, kColumns);
    while (rows.next())
      names.emplace(rows.has(1) ? static_cast<uint32_t>(rows.integer(1)) : pid_of(rows.integer(0)),
                    std::string(rows.text(2)));
  }
  const auto system = name_values(source, "TARGET_INFO_SYSTEM_ENV");
  const uint32_t driver = static_cast<uint32_t>(to_integer(value_or(system, "CudaDriverVersion", "0")));

  for (const auto& [pid, times] : spans) {
    Process& p = trace.processes.emplace_back();
    p.pid = pid;
    p.command_line = names.count(pid) ? names[pid] : "";
    p.start = times.first;
    p.end = times.second;
    p.clean_shutdown = true;  // nsys does not say; its records of the process read back whole
    p.driver_version = driver;
  }
  if (!spans.empty()) {
    trace.run.start = std::min_element(spans.begin(), spans.end(), [](const auto& a, const auto& b) {
                        return a.second.first < b.second.first;
                      })->second.first;
    trace.run.end = std::max_element(spans.begin(), spans.end(), [](const auto& a, const auto& b) {
                      return a.second.second < b.second.second;
                    })->second.second;
  }
}

}  // namespace gpuscope::nsys

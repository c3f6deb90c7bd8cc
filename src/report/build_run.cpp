// The report header: what ran, where, on which GPUs, and how it ended.
#include <fmt/format.h>

#include <algorithm>
#include <ctime>

#include "gpuscope/analysis_faults.h"
#include "gpuscope/merge.h"
#include "report/builder.h"
#include "report/units.h"

namespace gpuscope::report {
namespace {

// Our own table, not strsignal(): its wording differs between libcs, and the
// report must be the same bytes everywhere.
const char* signal_name(int sig) {
  switch (sig) {
    case 1: return "SIGHUP";
    case 2: return "SIGINT";
    case 3: return "SIGQUIT";
    case 4: return "SIGILL";
    case 6: return "SIGABRT";
    case 7: return "SIGBUS";
    case 8: return "SIGFPE";
    case 9: return "SIGKILL";
    case 11: return "SIGSEGV";
    case 13: return "SIGPIPE";
    case 15: return "SIGTERM";
    default: return nullptr;
  }
}

std::string exit_status(const Run& run) {
  if (run.term_signal > 0) {
    const char* name = signal_name(run.term_signal);
    return name ? fmt::format("killed by signal {} ({})", run.term_signal, name)
                : fmt::format("killed by signal {}", run.term_signal);
  }
  if (run.exit_code >= 0) return fmt::format("exit code {}", run.exit_code);
  return "unknown";
}

// CLOCK_REALTIME ns -> "2025-10-31 08:00:00 UTC" (UTC so every machine agrees).
std::string utc_time(TimeNs ns) {
  std::time_t seconds = static_cast<std::time_t>(ns / 1'000'000'000);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return buf;
}

// CUDA encodes versions as 1000 * major + 10 * minor (13000 = 13.0).
Cell cuda_version(uint32_t v) {
  if (v == 0) return {};
  return text(fmt::format("{}.{}", v / 1000, (v % 1000) / 10));
}

Table devices_table(const Trace& trace, size_t top) {
  Table t;
  t.key = "devices";
  t.title = "Devices";
  t.columns = {num_column("id", "ID", Unit::Plain),
               text_column("name", "Name"),
               text_column("compute_capability", "CC"),
               num_column("sm_count", "SMs", Unit::Count),
               num_column("memory", "Memory", Unit::Bytes),
               num_column("memory_bandwidth", "Mem bandwidth", Unit::BytesPerSecond),
               num_column("l2_cache", "L2 cache", Unit::Bytes)};
  for (const Device& d : analysis::unique_devices(trace)) {
    t.rows.push_back({num(d.id, Unit::Plain), text(d.name.empty() ? "unknown" : d.name),
                      text(fmt::format("{}.{}", d.compute_major, d.compute_minor)), num(d.sm_count, Unit::Count),
                      num(static_cast<double>(d.global_memory_bytes), Unit::Bytes),
                      // CUPTI reports KB/s; the report's unit is bytes/s.
                      d.global_memory_bandwidth_kbps
                          ? num(static_cast<double>(d.global_memory_bandwidth_kbps) * 1000.0, Unit::BytesPerSecond)
                          : opt_num(std::nullopt, Unit::BytesPerSecond),
                      num(d.l2_cache_bytes, Unit::Bytes)});
  }
  limit_rows(t, top);
  return t;
}

Table processes_table(const Trace& trace, size_t top) {
  Table t;
  t.key = "processes";
  t.title = "Processes";
  t.columns = {num_column("pid", "PID", Unit::Plain),
               num_column("parent_pid", "Parent", Unit::Plain),
               text_column("shutdown", "Shutdown"),
               text_column("capture_status", "Capture"),
               text_column("driver", "Driver"),
               text_column("runtime", "Runtime"),
               text_column("command_line", "Command", TextStyle::Identifier)};
  std::vector<Process> processes = trace.processes;
  std::sort(processes.begin(), processes.end(), [](const Process& a, const Process& b) { return a.pid < b.pid; });
  // The ranks of a distributed job, where a launcher said: after the PID.
  const bool ranks = std::any_of(processes.begin(), processes.end(), [](const Process& p) { return p.rank >= 0; });
  if (ranks) t.columns.insert(t.columns.begin() + 1, text_column("rank", "Rank"));
  for (const Process& p : processes) {
    t.rows.push_back({num(p.pid, Unit::Plain), num(p.parent_pid, Unit::Plain),
                      text(p.clean_shutdown ? "clean" : "truncated"),
                      text(p.capture_status.empty() ? "-" : p.capture_status), cuda_version(p.driver_version),
                      cuda_version(p.runtime_version), text(p.command_line)});
    if (!ranks) continue;
    const std::string rank = p.rank < 0         ? "-"
                             : p.world_size > 0 ? std::to_string(p.rank) + "/" + std::to_string(p.world_size)
                                                : std::to_string(p.rank);
    t.rows.back().insert(t.rows.back().begin() + 1, text(rank));
  }
  limit_rows(t, top);
  return t;
}

}  // namespace

// With a capture range: what limited recording, and how much of the run the windows cover.
static void add_capture_range_line(Section& s, const Trace& trace) {
  std::string range;
  for (const Process& p : trace.processes)
    if (!p.capture_range.empty()) range = p.capture_range;
  if (range.empty()) return;
  TimeNs covered = 0;
  for (const CaptureWindow& w : trace.capture_windows) covered += w.end - w.start;
  const TimeNs wall = trace.run.end - trace.run.start;
  std::string note = std::to_string(trace.capture_windows.size()) + " window" +
                     (trace.capture_windows.size() == 1 ? "" : "s") + ", " +
                     format_duration(static_cast<double>(covered));
  if (wall > 0) note += " of the " + format_duration(static_cast<double>(wall)) + " run";
  if (trace.capture_windows.empty()) note = "the range never opened (or the process ended before it could say)";
  s.lines.push_back({"capture_range", "Recorded only", text(range), note});
}

// A GPU fault ends a process's CUDA work: say which call learned of it, when, and what the
// capture could keep (analysis_faults.h).
static void add_gpu_fault_lines(Section& s, const Trace& trace) {
  for (const analysis::GpuFault& f : analysis::find_gpu_faults(trace)) {
    std::string note = "pid " + std::to_string(f.pid) + " tid " + std::to_string(f.tid);
    if (trace.run.start > 0 && f.at >= trace.run.start)
      note += ", " + format_duration(static_cast<double>(f.at - trace.run.start)) + " into the run";
    note += "; the context is unusable from then on (" + format_count(static_cast<double>(f.failed_calls)) + " call" +
            (f.failed_calls == 1 ? "" : "s") + " returned the error)";
    if (f.last_timed_end)
      note += ". Last GPU work with times ended " + format_duration(static_cast<double>(f.at - *f.last_timed_end)) +
              " before" + (f.last_timed_kernel.empty() ? "" : ": " + f.last_timed_kernel);
    if (f.untimed_records > 0)
      note += ". " + format_count(static_cast<double>(f.untimed_records)) +
              " GPU records lost their times (CUPTI cannot read them after a fault) and are left out of every "
              "timing analysis";
    s.lines.push_back({"gpu_fault", "GPU fault", text(f.call + " returned " + f.error), note});
  }
}

Section build_run_section(const Trace& trace, size_t top) {
  Section s;
  s.key = "run";
  s.title = "Run";
  const Run& run = trace.run;
  std::string command = run.command_line;
  if (command.empty() && !trace.processes.empty()) command = trace.processes.front().command_line;
  s.lines.push_back({"command", "Command", text(command.empty() ? "unknown" : command), "", true});
  s.lines.push_back({"host", "Host", text(run.host.empty() ? "unknown" : run.host), ""});
  if (run.start > 0) s.lines.push_back({"started", "Started", text(utc_time(run.start)), ""});
  s.lines.push_back({"exit_status", "Exit status", text(exit_status(run)), ""});
  s.lines.push_back(
      {"processes", "Processes captured", num(static_cast<double>(trace.processes.size()), Unit::Count), ""});
  if (!run.source_tool.empty()) {
    // An imported file: the tool that wrote it, not gpuscope, captured it.
    std::string source = run.source_tool + (run.source_version.empty() ? "" : " " + run.source_version);
    if (!run.source_schema.empty()) source += " (" + run.source_schema + ")";
    s.lines.push_back({"source", "Captured by", text(source), ""});
    if (!run.source_file.empty()) s.lines.push_back({"source_file", "Imported from", text(run.source_file), ""});
    for (const SourceGap& gap : trace.source_gaps)
      s.lines.push_back({"not_in_source." + gap.what, "Not in the source", text(gap.what + ": " + gap.detail), ""});
  } else if (!run.gpuscope_version.empty()) {
    s.lines.push_back({"captured_by", "Captured by", text("gpuscope " + run.gpuscope_version), ""});
  }
  // A merged capture (gpuscope merge): each input file, its processes, and its clock alignment.
  const std::vector<std::string> merged = analysis::merge_note_lines(run);
  for (size_t i = 0; i < merged.size(); ++i)
    s.lines.push_back({"merged." + std::to_string(i + 1), "Merged from", text(merged[i]), ""});
  add_capture_range_line(s, trace);
  add_gpu_fault_lines(s, trace);
  s.tables.push_back(devices_table(trace, top));
  s.tables.push_back(processes_table(trace, top));
  return s;
}

}  // namespace gpuscope::report

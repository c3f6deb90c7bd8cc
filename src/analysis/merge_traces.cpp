// merge_traces (gpuscope/merge.h): several captures of one job as one trace.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "common/error.h"
#include "gpuscope/analysis_stats.h"
#include "gpuscope/merge.h"
#include "gpuscope/trace_tables.h"

namespace gpuscope::analysis {
namespace {

// A later input's colliding pid becomes pid + kPidStride × its position: Linux pids stay below
// 2^22 (pid_max), so the new one cannot be a real pid of another input, and the old one can still
// be read off it.
constexpr uint32_t kPidStride = 10'000'000;

// A same-host pair whose collectives end this far apart was not one run (or not paired right):
// one clock would put them within µs.
constexpr TimeNs kSameHostSuspectNs = 1'000'000;

// Every pid an input's rows name: its processes, and pids of rows without a process (an import
// that lost it). 0 counts only as a process: elsewhere it means "no process" (a whole-trace loss).
std::set<uint32_t> pids_of(const Trace& t) {
  std::set<uint32_t> pids;
  for (const Process& p : t.processes) pids.insert(p.pid);
  for_each_table(
      [&](const auto& rows) {
        for (const auto& row : rows)
          if (row.pid != 0) pids.insert(row.pid);
      },
      t);
  return pids;
}

std::string ms(TimeNs ns) { return format_clock(ns, false); }

std::string signed_ms(TimeNs ns) { return format_clock(ns, true); }

// Whether `input` gets the clock estimate applied, and why (MergedInput::decision); returns a
// warning when its times may not line up with the first input's.
std::optional<std::string> decide_shift(const MergedInput& first, MergedInput& input, const MergeOptions& options) {
  const ClockEstimate* c = input.clock ? &*input.clock : nullptr;
  const std::string measured = c ? fmt::format("{} collectives paired{}: offset {} ± {}{}", c->matched,
                                               c->skipped ? fmt::format(" ({} skipped at one start)", c->skipped) : "",
                                               signed_ms(c->offset_ns), ms(c->precision_ns),
                                               c->bounds ? " (causal bounds " + signed_ms(c->bounds->first) + " to " +
                                                               signed_ms(c->bounds->second) + ")"
                                                         : "")
                                 : "no collectives paired with " + first.file;
  const bool same_host = !input.host.empty() && input.host == first.host;
  if (const auto given = options.offsets.find(input.file); given != options.offsets.end()) {
    input.shift_ns = given->second;
    input.decision = measured + "; shifted by " + signed_ms(given->second) + " (--offset)";
  } else if (!options.align) {
    input.decision = measured + "; not shifted (--no-align)";
  } else if (same_host) {
    input.decision = measured + "; same host as " + first.file + ", one clock: not shifted";
    if (c && c->matched >= kMinAlignCollectives && std::llabs(c->offset_ns) > kSameHostSuspectNs)
      return input.file + ": on the same host as " + first.file + ", but its collectives end " +
             signed_ms(c->offset_ns) + " apart: not one run, or not the same job";
  } else if (c && c->matched >= kMinAlignCollectives) {
    input.shift_ns = c->offset_ns;
    input.decision = measured + "; shifted by " + signed_ms(c->offset_ns);
  } else {
    input.decision = measured + "; not shifted";
    const std::string hosts = input.host.empty() || first.host.empty() ? "hosts unknown" : "different hosts";
    return input.file + ": " + hosts + " and " + (c ? std::to_string(c->matched) : "no") + " collectives paired with " +
           first.file + ": merged unshifted, its times may not line up with the others'";
  }
  return std::nullopt;
}

// A shift that would carry one of the input's times past the range of a time is refused, and so
// is an offset given by --offset that moves its times clear of the reference's: neither can be
// the clock of one job's hosts, and its ranks would be compared with nothing.
void check_shift(const MergeInput& first, const MergeInput& input, TimeNs shift, bool given) {
  const auto span = time_span(input.trace);
  if (!span) return;
  TimeNs from = 0, to = 0;
  if (__builtin_add_overflow(span->first, shift, &from) || __builtin_add_overflow(span->second, shift, &to))
    throw Error(input.file + ": shifted by " + std::to_string(shift) + " ns, its times (" +
                std::to_string(span->first) + " to " + std::to_string(span->second) +
                " ns) leave the range of a time: not a clock offset of one job");
  const auto reference = time_span(first.trace);
  if (!given || !reference || (to >= reference->first && from <= reference->second)) return;
  const bool before = to < reference->first;
  throw Error("--offset " + input.file + "=" + std::to_string(shift) + ": shifted by that, its records end " +
              (before ? ms(subtract_saturated(reference->first, to)) + " before " + first.file + "'s begin"
                      : ms(subtract_saturated(from, reference->second)) + " after " + first.file + "'s end") +
              ": the wrong offset or sign, or not the same job");
}

// Two files of one capture (a copy, or a file given under two names): the same host, launcher
// window and pids.
bool same_capture(const Trace& a, const Trace& b) {
  return a.run.host == b.run.host && a.run.start == b.run.start && a.run.end == b.run.end && pids_of(a) == pids_of(b);
}

// Each rank once: two inputs with a process of the same rank are the same capture given twice or
// captures of two jobs, and a rank's figures (and a gate on it) would mix them.
void check_ranks(const MergeReport& report, const MergedInput& input) {
  for (int32_t rank : input.ranks)
    for (const MergedInput& other : report.inputs)
      if (std::find(other.ranks.begin(), other.ranks.end(), rank) != other.ranks.end())
        throw Error(input.file + ": rank " + std::to_string(rank) + " is in " + other.file +
                    " too: the same capture twice, or ranks of two jobs");
}

std::string join(const std::vector<std::string>& parts, const char* sep) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : sep) + p;
  return out;
}

// The one value every input agrees on, else `mixed`.
template <class Get>
std::string common(const std::vector<MergeInput>& inputs, Get get, const std::string& mixed) {
  for (const MergeInput& in : inputs)
    if (get(in.trace.run) != get(inputs.front().trace.run)) return mixed;
  return get(inputs.front().trace.run);
}

// The merged run: the span of all inputs, the one host or all of them, the one source or all.
void describe_run(const std::vector<MergeInput>& inputs, const MergeReport& report, Run& run) {
  std::vector<std::string> files, hosts, tools;
  bool windows = true;  // every input has a launcher window
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Run& r = inputs[i].trace.run;
    files.push_back(inputs[i].file);
    if (!r.host.empty() && std::find(hosts.begin(), hosts.end(), r.host) == hosts.end()) hosts.push_back(r.host);
    const std::string tool = r.source_tool.empty() ? "gpuscope" : r.source_tool;
    if (std::find(tools.begin(), tools.end(), tool) == tools.end()) tools.push_back(tool);
    windows = windows && r.start > 0 && r.end >= r.start;
  }
  run.command_line = fmt::format("merged from {} captures (gpuscope merge)", inputs.size());
  run.host = join(hosts, ", ");
  if (windows) {  // else no window covers every input: the wall time is the span of the records
    run.start = INT64_MAX, run.end = INT64_MIN;
    for (size_t i = 0; i < inputs.size(); ++i) {
      const TimeNs shift = report.inputs[i].shift_ns;
      run.start = std::min(run.start, inputs[i].trace.run.start + shift);
      run.end = std::max(run.end, inputs[i].trace.run.end + shift);
    }
  }
  const Run& first = inputs.front().trace.run;
  const bool same_exit = std::all_of(inputs.begin(), inputs.end(), [&](const MergeInput& in) {
    return in.trace.run.exit_code == first.exit_code && in.trace.run.term_signal == first.term_signal;
  });
  run.exit_code = same_exit ? first.exit_code : -1;
  for (const MergeInput& in : inputs)
    if (!run.term_signal) run.term_signal = in.trace.run.term_signal;
  // An empty source_tool means gpuscope's own capture: keep it so when every input is one.
  if (tools.size() > 1 || tools.front() != "gpuscope") {
    run.source_tool = join(tools, " + ");
    run.source_version = common(
        inputs, [](const Run& r) { return r.source_version; }, "");
    run.source_schema = common(
        inputs, [](const Run& r) { return r.source_schema; }, "");
    run.source_file = join(files, ", ");
  }
  run.gpuscope_version = common(
      inputs, [](const Run& r) { return r.gpuscope_version; }, "");
  run.host_ops_source = common(
      inputs, [](const Run& r) { return r.host_ops_source; }, "");
  std::vector<std::string> notes;
  for (const MergedInput& in : report.inputs) {
    std::vector<std::string> pids, ranks;
    for (uint32_t pid : in.pids) {
      std::string text = std::to_string(pid);
      for (const auto& [old_pid, new_pid] : in.renamed)
        if (new_pid == pid) text += " (" + std::to_string(old_pid) + " in the file)";
      pids.push_back(text);
    }
    for (int32_t rank : in.ranks) ranks.push_back(std::to_string(rank));
    notes.push_back(std::string(kMergedNotePrefix) + in.file + ": host " + (in.host.empty() ? "unknown" : in.host) +
                    ", pid " + join(pids, ", ") + (ranks.empty() ? "" : ", rank " + join(ranks, ", ")) + "; " +
                    in.decision);
  }
  run.options = join(notes, "\n");
}

}  // namespace

std::string format_clock(TimeNs ns, bool sign) {
  const double magnitude = std::fabs(static_cast<double>(ns));
  const std::string text = magnitude < 1e3   ? fmt::format("{} ns", std::llabs(ns))
                           : magnitude < 1e6 ? fmt::format("{:.1f} µs", magnitude / 1e3)
                                             : fmt::format("{:.3f} ms", magnitude / 1e6);
  return (sign ? (ns < 0 ? "-" : "+") : "") + text;
}

std::vector<std::string> merge_note_lines(const Run& run) {
  std::vector<std::string> lines;
  size_t at = 0;
  while (at <= run.options.size()) {
    const size_t end = std::min(run.options.find('\n', at), run.options.size());
    const std::string line = run.options.substr(at, end - at);
    if (line.rfind(kMergedNotePrefix, 0) == 0) lines.push_back(line.substr(sizeof kMergedNotePrefix - 1));
    at = end + 1;
  }
  return lines;
}

Trace merge_traces(std::vector<MergeInput> inputs, const MergeOptions& options, MergeReport& report) {
  if (inputs.size() < 2) throw Error("merge needs at least two captures");
  for (size_t i = 1; i < inputs.size(); ++i)
    for (size_t j = 0; j < i; ++j) {
      if (inputs[i].file == inputs[j].file) throw Error(inputs[i].file + ": given twice");
      if (same_capture(inputs[i].trace, inputs[j].trace))
        throw Error(inputs[i].file + ": the same capture as " + inputs[j].file + " (host, run and processes)");
    }
  for (const auto& offset : options.offsets) {
    const std::string& file = offset.first;  // not a structured binding: clang 14 cannot capture one
    if (file == inputs.front().file) throw Error("--offset " + file + ": the first input is the reference clock");
    if (std::none_of(inputs.begin(), inputs.end(), [&](const MergeInput& in) { return in.file == file; }))
      throw Error("--offset " + file + ": not one of the inputs");
  }
  for (const MergeInput& in : inputs)
    if (!in.trace.runs.empty())  // even of one run: its records carry run ids a single capture lacks
      throw Error(in.file + ": a bench capture (" + std::to_string(in.trace.runs.size()) +
                  " run(s) of one program, not ranks of one job); merge captures made by profile");

  report = {};
  Trace merged;
  std::set<uint32_t> taken;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Trace& t = inputs[i].trace;
    MergedInput in;
    in.decision = "the reference clock";
    in.file = inputs[i].file;
    in.host = t.run.host;
    std::optional<std::string> warning;
    if (i > 0) {
      in.clock = estimate_clock_offset(inputs.front().trace, t);
      warning = decide_shift(report.inputs.front(), in, options);
      if (in.shift_ns) check_shift(inputs.front(), inputs[i], in.shift_ns, options.offsets.count(in.file));
    }

    AppendMap map;
    map.shift_ns = in.shift_ns;
    for (uint32_t pid : pids_of(t)) {
      uint32_t to = pid;
      for (uint32_t k = std::max<uint32_t>(static_cast<uint32_t>(i), 1); taken.count(to); ++k)
        to = pid + k * kPidStride;
      taken.insert(to);
      if (to != pid) map.pids[pid] = to, in.renamed.emplace_back(pid, to);
    }
    const size_t first_process = merged.processes.size();
    append_records(merged, t, map);
    for (size_t p = first_process; p < merged.processes.size(); ++p) {
      in.pids.push_back(merged.processes[p].pid);
      if (merged.processes[p].rank >= 0) in.ranks.push_back(merged.processes[p].rank);
    }
    check_ranks(report, in);
    for (const SourceGap& gap : t.source_gaps)
      if (!merged.lacks(gap.what)) merged.source_gaps.push_back({gap.what, gap.detail + " (" + in.file + ")"});
    if (warning) {  // stored too: a report of the merged capture must not present its times as aligned
      merged.data_loss.push_back({in.pids.empty() ? 0 : in.pids.front(), "clock_unaligned", 1, *warning});
      report.warnings.push_back(std::move(*warning));
    }
    report.inputs.push_back(std::move(in));
  }
  describe_run(inputs, report, merged.run);
  sort_records(merged);
  return merged;
}

}  // namespace gpuscope::analysis

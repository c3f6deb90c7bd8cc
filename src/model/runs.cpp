// append_run / select_run / select_process (gpuscope/runs.h).
#include "gpuscope/runs.h"

#include "gpuscope/trace_tables.h"

namespace gpuscope {

void append_run(Trace& into, const Trace& run, uint32_t run_id) {
  AppendMap map;
  map.run_id = run_id;
  append_records(into, run, map);
  if (into.source_gaps.empty()) into.source_gaps = run.source_gaps;
  if (into.run.host_ops_source.empty()) into.run.host_ops_source = run.run.host_ops_source;  // one --pytorch for all
}

Trace select_run(const Trace& trace, uint32_t run_id) {
  Trace out;
  out.strings = trace.strings;
  out.run = trace.run;
  for (const BenchRun& r : trace.runs)
    if (r.run_id == run_id) {
      // The run's own launcher times and status, so wall time is this run's.
      out.run.start = r.start;
      out.run.end = r.end;
      out.run.exit_code = r.exit_code;
      out.run.term_signal = r.term_signal;
    }
  for_each_table(
      [&](auto& dst, const auto& src) {
        for (const auto& row : src)
          if (row.run_id == run_id) dst.push_back(row);
      },
      out, trace);
  out.source_gaps = trace.source_gaps;
  return out;
}

Trace select_process(const Trace& trace, uint32_t pid) {
  Trace out;
  out.strings = trace.strings;
  out.run = trace.run;  // the job's start: every rank's file has the same time origin
  out.runs = trace.runs;
  for_each_table(
      [&](auto& dst, const auto& src) {
        for (const auto& row : src)
          if (row.pid == pid) dst.push_back(row);
      },
      out, trace);
  out.source_gaps = trace.source_gaps;
  return out;
}

}  // namespace gpuscope

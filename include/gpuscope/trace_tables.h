// Every per-process record table of a Trace, for code that treats them alike: appending one
// trace to another (bench runs, merged captures), taking one run or some processes back out.
// A table missing here is silently dropped by all of them, so tests/unit/merge_test.cpp checks
// kTraceFields against the number of Trace's fields: a new table fails that test until it is
// listed here (and in kTraceFields).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>

#include "gpuscope/model.h"

namespace gpuscope {

// Calls f with the same table of each trace given: f(a.processes, b.processes), ... The tables
// are those whose rows carry a pid; Trace's other fields (strings, run, runs, source_gaps) are
// whole-trace.
template <class F, class... T>
void for_each_table(F&& f, T&... t) {
  f(t.processes...);
  f(t.devices...);
  f(t.api_calls...);
  f(t.kernels...);
  f(t.memcpys...);
  f(t.memsets...);
  f(t.memory_events...);
  f(t.synchronizations...);
  f(t.nvtx_ranges...);
  f(t.nvtx_marks...);
  f(t.overheads...);
  f(t.data_loss...);
  f(t.kernel_metrics...);
  f(t.gpu_metric_samples...);
  f(t.metric_collections...);
  f(t.host_ops...);
  f(t.external_correlations...);
  f(t.capture_windows...);
  f(t.api_counts...);
  f(t.collective_calls...);
}
inline constexpr size_t kRecordTables = 20;
inline constexpr size_t kTraceFields = kRecordTables + 4;  // + strings, run, runs, source_gaps

// How rows change on their way into another trace (append_records).
struct AppendMap {
  std::optional<uint32_t> run_id;     // stamp every row with this bench run; nullopt: keep each row's
  std::map<uint32_t, uint32_t> pids;  // old pid -> new pid (also parent pids); a pid not in it stays
  TimeNs shift_ns = 0;                // added to every timestamp (not to durations)
};

// Appends every row of `from`'s tables to `into`'s, changed as `map` says, with its names
// re-interned into into's string table. into's run, runs and source_gaps are left alone.
void append_records(Trace& into, const Trace& from, const AppendMap& map);

// The order analyses expect: events by start (allocations and marks by timestamp), processes by
// pid, devices by (pid, ordinal), metric collections by (pid, kind), host ops as sort_host_ops.
// Stable: rows that tie keep their order.
void sort_records(Trace& trace);

// Host ops by start; an op and the first op inside it can start on the same nanosecond, so the
// longer one (the parent) first.
void sort_host_ops(std::vector<HostOp>& ops);

}  // namespace gpuscope

// The per-process record tables of a Trace, listed once: appending one trace to another (bench
// runs, merged captures), taking one run or some processes back out, validating and sorting rows,
// and the capture file's writer and reader (src/store/) all run over kRecordTableList, so a new
// record table is its Trace member and one line here. tests/unit/merge_test.cpp checks
// kTraceFields against the number of Trace's fields: a member missing here fails it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "gpuscope/model.h"

namespace gpuscope {

// One record table: where its rows are in a Trace, and what a row is called, plural, in the data
// loss rows that count rows left out ("3 copies without valid times").
template <class Row>
struct RecordTable {
  using RowType = Row;
  std::vector<Row> Trace::*rows;
  const char* what;
};

// The tables whose rows carry a pid, in the order the capture file writes them. Trace's other
// fields (strings, run, runs, source_gaps) are whole-trace.
inline constexpr std::tuple kRecordTableList{
    RecordTable<Process>{&Trace::processes, "processes"},
    RecordTable<Device>{&Trace::devices, "devices"},
    RecordTable<ApiCall>{&Trace::api_calls, "API calls"},
    RecordTable<Kernel>{&Trace::kernels, "kernels"},
    RecordTable<Memcpy>{&Trace::memcpys, "copies"},
    RecordTable<Memset>{&Trace::memsets, "memsets"},
    RecordTable<MemoryEvent>{&Trace::memory_events, "memory events"},
    RecordTable<Synchronization>{&Trace::synchronizations, "synchronizations"},
    RecordTable<NvtxRange>{&Trace::nvtx_ranges, "NVTX ranges"},
    RecordTable<NvtxMark>{&Trace::nvtx_marks, "NVTX marks"},
    RecordTable<CuptiOverhead>{&Trace::overheads, "CUPTI overheads"},
    RecordTable<DataLoss>{&Trace::data_loss, "data loss rows"},
    RecordTable<KernelMetric>{&Trace::kernel_metrics, "kernel metrics"},
    RecordTable<GpuMetricSample>{&Trace::gpu_metric_samples, "GPU metric samples"},
    RecordTable<MetricCollection>{&Trace::metric_collections, "metric collections"},
    RecordTable<HostOp>{&Trace::host_ops, "host ops"},
    RecordTable<ExternalCorrelation>{&Trace::external_correlations, "external correlations"},
    RecordTable<CaptureWindow>{&Trace::capture_windows, "capture windows"},
    RecordTable<ApiCount>{&Trace::api_counts, "API call counts"},
    RecordTable<CollectiveCall>{&Trace::collective_calls, "collective calls"},
    RecordTable<Stream>{&Trace::streams, "streams"},
    RecordTable<GraphNode>{&Trace::graph_nodes, "graph nodes"},
    RecordTable<PcSample>{&Trace::pc_samples, "PC samples"},
    RecordTable<Cubin>{&Trace::cubins, "cubins"},
    RecordTable<PcSampling>{&Trace::pc_sampling, "PC sampling totals"},
};
inline constexpr size_t kRecordTables = std::tuple_size_v<decltype(kRecordTableList)>;
inline constexpr size_t kTraceFields = kRecordTables + 4;  // + strings, run, runs, source_gaps

// The row type of a RecordTable, as for_each_record_table's callbacks receive it (`const auto&`).
template <class Table>
using RowOf = typename std::remove_cvref_t<Table>::RowType;

// Calls f with each RecordTable of the list, in its order.
template <class F>
void for_each_record_table(F&& f) {
  std::apply([&f](const auto&... table) { (f(table), ...); }, kRecordTableList);
}

// Calls f with the same table of each trace given: f(a.processes, b.processes), ...
template <class F, class... T>
void for_each_table(F&& f, T&... traces) {
  for_each_record_table([&](const auto& table) { f((traces.*table.rows)...); });
}

// How rows change on their way into another trace (append_records).
struct AppendMap {
  std::optional<uint32_t> run_id;     // stamp every row with this bench run; nullopt: keep each row's
  std::map<uint32_t, uint32_t> pids;  // old pid -> new pid (also parent pids); a pid not in it stays
  TimeNs shift_ns = 0;                // added to every timestamp (not to durations)
};

// Appends every row of `from`'s tables to `into`'s, changed as `map` says, with its names
// re-interned into into's string table. into's run, runs and source_gaps are left alone.
void append_records(Trace& into, const Trace& from, const AppendMap& map);

// The earliest and latest time point of the trace: every row's start, end and timestamp and the
// run's window, 0 (no time) left out; nullopt when there is none.
std::optional<std::pair<TimeNs, TimeNs>> time_span(const Trace& trace);

// The order analyses expect: events by start (allocations and marks by timestamp), processes by
// pid, devices by (pid, ordinal), metric collections by (pid, kind), host ops as sort_host_ops.
// Stable: rows that tie keep their order.
void sort_records(Trace& trace);

// Host ops by start; an op and the first op inside it can start on the same nanosecond, so the
// longer one (the parent) first.
void sort_host_ops(std::vector<HostOp>& ops);

}  // namespace gpuscope

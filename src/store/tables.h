// One description per stored table: its name, its columns and how each column
// maps to a field of the trace model. The writer, the reader and the schema
// DDL are all generated from these descriptions, so a column is declared once.
// docs/schema.md documents every column; keep it in step with this file.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "gpuscope/model.h"
#include "gpuscope/store.h"
#include "store/row_codec.h"
#include "store/sqlite_db.h"

namespace gpuscope::store {

template <class Row>
struct Column {
  std::string name;
  std::string type;  // SQL type: "INTEGER", "REAL" or "TEXT"
  // RowCodec (row_codec.h): what packed columns need besides the row, one per file written or
  // read: the time base, and the launch dictionary the writer fills and the reader loads first.
  std::function<void(const Row&, Statement&, int index, RowCodec&)> bind;
  std::function<void(Row&, const Statement&, int column, const RowCodec&)> load;
  // For a packed table: the select expression(s) that give this column's public columns in the
  // table's view, e.g. start_ns from start_offset_ns; empty: the column as is.
  std::string view = "";
};

template <class Row>
struct TableSpec {
  std::string name;
  std::vector<Column<Row>> columns;
  // A packed table is read through a view of the public name (e.g. kernels over kernels_packed),
  // which unpacks times, codes and launch configurations; `view_joins` is what that view joins
  // to the table `t` (e.g. the launch dictionary). Empty: no view.
  std::string view_name = "";
  std::string view_joins = "";
};

// An enum column stored as readable text (e.g. 'HtoD', 'pageable').
template <class Enum>
Enum parse_enum(const std::string& text, int count) {
  for (int i = 0; i < count; ++i)
    if (text == to_string(static_cast<Enum>(i))) return static_cast<Enum>(i);
  return static_cast<Enum>(0);
}

template <class Row, class Field>
Column<Row> integer_column(std::string name, Field Row::*field) {
  return {std::move(name), "INTEGER",
          [field](const Row& r, Statement& s, int i, RowCodec&) { s.bind(i, static_cast<int64_t>(r.*field)); },
          [field](Row& r, const Statement& s, int c, const RowCodec&) { r.*field = static_cast<Field>(s.integer(c)); }};
}

// A measured quantity that is not a whole number (metric values), stored as REAL.
template <class Row>
Column<Row> real_column(std::string name, double Row::*field) {
  return {std::move(name), "REAL", [field](const Row& r, Statement& s, int i, RowCodec&) { s.bind(i, r.*field); },
          [field](Row& r, const Statement& s, int c, const RowCodec&) { r.*field = s.real(c); }};
}

template <class Row>
Column<Row> text_column(std::string name, std::string Row::*field) {
  return {std::move(name), "TEXT", [field](const Row& r, Statement& s, int i, RowCodec&) { s.bind(i, r.*field); },
          [field](Row& r, const Statement& s, int c, const RowCodec&) { r.*field = s.text(c); }};
}

template <class Row, class Enum>
Column<Row> enum_column(std::string name, Enum Row::*field, int count) {
  return {std::move(name), "TEXT",
          [field](const Row& r, Statement& s, int i, RowCodec&) { s.bind(i, std::string(to_string(r.*field))); },
          [field, count](Row& r, const Statement& s, int c, const RowCodec&) {
            r.*field = parse_enum<Enum>(s.text(c), count);
          }};
}

// Element `index` of a fixed array field such as Kernel::grid.
template <class Row, class Element, size_t N>
Column<Row> array_column(std::string name, Element (Row::*field)[N], size_t index) {
  return {std::move(name), "INTEGER",
          [field, index](const Row& r, Statement& s, int i, RowCodec&) {
            s.bind(i, static_cast<int64_t>((r.*field)[index]));
          },
          [field, index](Row& r, const Statement& s, int c, const RowCodec&) {
            (r.*field)[index] = static_cast<Element>(s.integer(c));
          }};
}

// Every record carries the bench run it belongs to (0 outside a bench).
template <class Row>
Column<Row> run_id_column() {
  return integer_column("run_id", &Row::run_id);
}

const TableSpec<Run>& run_table();
const TableSpec<BenchRun>& bench_run_table();
const TableSpec<Process>& process_table();
const TableSpec<Device>& device_table();
const TableSpec<CuptiOverhead>& overhead_table();
const TableSpec<DataLoss>& data_loss_table();
const TableSpec<KernelMetric>& kernel_metric_table();
const TableSpec<MetricCollection>& metric_collection_table();
const TableSpec<SourceGap>& source_gap_table();
const TableSpec<ExternalCorrelation>& external_correlation_table();
const TableSpec<CaptureWindow>& capture_window_table();
const TableSpec<CollectiveCall>& collective_call_table();
const TableSpec<ApiCount>& api_count_table();

// The high-volume event tables, packed (tables_packed.cpp).
const TableSpec<ApiCall>& api_call_table();
const TableSpec<Kernel>& kernel_table();
const TableSpec<Memcpy>& memcpy_table();
const TableSpec<Memset>& memset_table();
const TableSpec<MemoryEvent>& memory_event_table();
const TableSpec<Synchronization>& synchronization_table();
const TableSpec<NvtxRange>& nvtx_range_table();
const TableSpec<NvtxMark>& nvtx_mark_table();
const TableSpec<GpuMetricSample>& gpu_metric_sample_table();
const TableSpec<HostOp>& host_op_table();

const TableSpec<KernelLaunch>& kernel_launch_table();  // kernels_packed.launch_id -> names, configuration

// Views that join names from the strings table, for people using sqlite3.
const std::vector<std::string>& view_statements();

}  // namespace gpuscope::store

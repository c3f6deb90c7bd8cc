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

// Bytes (a cubin), stored as a BLOB.
template <class Row>
Column<Row> blob_column(std::string name, std::string Row::*field) {
  return {std::move(name), "BLOB", [field](const Row& r, Statement& s, int i, RowCodec&) { s.bind_blob(i, r.*field); },
          [field](Row& r, const Statement& s, int c, const RowCodec&) { r.*field = s.blob(c); }};
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

// The stored form of each row type: one explicit specialization per table, defined in tables.cpp
// (and tables_packed.cpp for the packed event tables). The writer and the reader call it for every
// table of kRecordTableList (gpuscope/trace_tables.h), so a record table without one does not link.
template <class Row>
const TableSpec<Row>& table_spec();

template <>
const TableSpec<Run>& table_spec<Run>();
template <>
const TableSpec<BenchRun>& table_spec<BenchRun>();
template <>
const TableSpec<Process>& table_spec<Process>();
template <>
const TableSpec<Device>& table_spec<Device>();
template <>
const TableSpec<CuptiOverhead>& table_spec<CuptiOverhead>();
template <>
const TableSpec<DataLoss>& table_spec<DataLoss>();
template <>
const TableSpec<KernelMetric>& table_spec<KernelMetric>();
template <>
const TableSpec<MetricCollection>& table_spec<MetricCollection>();
template <>
const TableSpec<SourceGap>& table_spec<SourceGap>();
template <>
const TableSpec<ExternalCorrelation>& table_spec<ExternalCorrelation>();
template <>
const TableSpec<CaptureWindow>& table_spec<CaptureWindow>();
template <>
const TableSpec<CollectiveCall>& table_spec<CollectiveCall>();
template <>
const TableSpec<ApiCount>& table_spec<ApiCount>();
template <>
const TableSpec<Stream>& table_spec<Stream>();
template <>
const TableSpec<GraphNode>& table_spec<GraphNode>();
template <>
const TableSpec<PcSample>& table_spec<PcSample>();
template <>
const TableSpec<Cubin>& table_spec<Cubin>();
template <>
const TableSpec<PcSampling>& table_spec<PcSampling>();

// The high-volume event tables, packed (tables_packed.cpp).
template <>
const TableSpec<ApiCall>& table_spec<ApiCall>();
template <>
const TableSpec<Kernel>& table_spec<Kernel>();
template <>
const TableSpec<Memcpy>& table_spec<Memcpy>();
template <>
const TableSpec<Memset>& table_spec<Memset>();
template <>
const TableSpec<MemoryEvent>& table_spec<MemoryEvent>();
template <>
const TableSpec<Synchronization>& table_spec<Synchronization>();
template <>
const TableSpec<NvtxRange>& table_spec<NvtxRange>();
template <>
const TableSpec<NvtxMark>& table_spec<NvtxMark>();
template <>
const TableSpec<GpuMetricSample>& table_spec<GpuMetricSample>();
template <>
const TableSpec<HostOp>& table_spec<HostOp>();

template <>
const TableSpec<KernelLaunch>& table_spec<KernelLaunch>();  // kernels_packed.launch_id -> names, configuration

// Views that join names from the strings table, for people using sqlite3.
const std::vector<std::string>& view_statements();

}  // namespace gpuscope::store

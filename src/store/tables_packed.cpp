// The packed event tables (docs/schema.md, "Packed tables"): the tables that grow with the run
// store times as an offset from run.start_ns plus a duration, enums as small integer codes, and
// a kernel's names and launch configuration as an id into kernel_launches. A view of the public
// name and columns (kernels, api_calls, ...) unpacks them, so SQL reads plain times and names.
// No indices: gpuscope reads whole tables in rowid order, and a user who queries one column
// often can CREATE INDEX on their copy.
#include <string>

#include "store/row_codec.h"
#include "store/tables.h"

namespace gpuscope::store {

namespace {

constexpr int kCopyKinds = 11, kMemoryKinds = 8, kSyncKinds = 5, kDomains = 2, kNvtxKinds = 2, kMemoryOps = 2;
const std::string kRunStart = "(SELECT start_ns FROM run)";

// A time stored as ns after run.start_ns; the view shows it as `shown` (absolute ns).
template <class Row>
Column<Row> offset_column(std::string stored, TimeNs Row::*field, const std::string& shown) {
  std::string view = "t." + stored + " + " + kRunStart + " AS " + shown;
  return {std::move(stored), "INTEGER",
          [field](const Row& r, Statement& s, int i, RowCodec& codec) {
            s.bind(i, wrapping_sub(r.*field, codec.time_base));
          },
          [field](Row& r, const Statement& s, int c, const RowCodec& codec) {
            r.*field = wrapping_add(codec.time_base, s.integer(c));
          },
          std::move(view)};
}

// An end time stored as a duration after the row's start, which must be loaded first (it
// comes earlier in the columns). The view shows end_ns and the duration.
template <class Row>
Column<Row> duration_column(TimeNs Row::*start, TimeNs Row::*end, const std::string& start_stored) {
  std::string view = "t." + start_stored + " + t.duration_ns + " + kRunStart + " AS end_ns, t.duration_ns";
  return {"duration_ns", "INTEGER",
          [start, end](const Row& r, Statement& s, int i, RowCodec&) { s.bind(i, wrapping_sub(r.*end, r.*start)); },
          [start, end](Row& r, const Statement& s, int c, const RowCodec&) {
            r.*end = wrapping_add(r.*start, s.integer(c));
          },
          std::move(view)};
}

// An enum as its model value (pinned by store_test's CodesKeepTheirMeaning); the view shows
// its name. An unknown code reads as value 0.
template <class Row, class Enum>
Column<Row> code_column(const std::string& name, Enum Row::*field, int count) {
  std::string view = "CASE t." + name;
  for (int code = 0; code < count; ++code)
    view += " WHEN " + std::to_string(code) + " THEN '" + to_string(static_cast<Enum>(code)) + "'";
  view += " ELSE '" + std::string(to_string(static_cast<Enum>(0))) + "' END AS " + name;
  return {name, "INTEGER",
          [field](const Row& r, Statement& s, int i, RowCodec&) { s.bind(i, static_cast<int64_t>(r.*field)); },
          [field, count](Row& r, const Statement& s, int c, const RowCodec&) {
            const int64_t code = s.integer(c);
            r.*field = static_cast<Enum>(code >= 0 && code < count ? code : 0);
          },
          std::move(view)};
}

Column<Kernel> launch_column() {
  return {"launch_id", "INTEGER",
          [](const Kernel& k, Statement& s, int i, RowCodec& codec) {
            s.bind(i, static_cast<int64_t>(codec.launch_id(k)));
          },
          [](Kernel& k, const Statement& s, int c, const RowCodec& codec) { codec.apply_launch(s.integer(c), k); },
          "l.mangled_name_id, l.name_id, l.grid_x, l.grid_y, l.grid_z, l.block_x, l.block_y, l.block_z, "
          "l.cluster_x, l.cluster_y, l.cluster_z, l.registers_per_thread, l.static_shared_bytes, "
          "l.dynamic_shared_bytes, l.local_bytes_per_thread"};
}

template <class Row>
TableSpec<Row> packed(std::string view_name, std::vector<Column<Row>> columns, std::string view_joins = "") {
  TableSpec<Row> spec{view_name + "_packed", std::move(columns)};
  spec.view_name = std::move(view_name);
  spec.view_joins = std::move(view_joins);
  return spec;
}

}  // namespace

template <>
const TableSpec<KernelLaunch>& table_spec<KernelLaunch>() {
  static const TableSpec<KernelLaunch> spec{
      "kernel_launches",
      {{"id", "INTEGER PRIMARY KEY",
        [](const KernelLaunch& l, Statement& s, int i, RowCodec&) { s.bind(i, static_cast<int64_t>(l.id)); },
        [](KernelLaunch& l, const Statement& s, int c, const RowCodec&) {
          l.id = static_cast<uint32_t>(s.integer(c));
        }},
       integer_column("mangled_name_id", &KernelLaunch::mangled_name),
       integer_column("name_id", &KernelLaunch::name),
       array_column("grid_x", &KernelLaunch::grid, 0),
       array_column("grid_y", &KernelLaunch::grid, 1),
       array_column("grid_z", &KernelLaunch::grid, 2),
       array_column("block_x", &KernelLaunch::block, 0),
       array_column("block_y", &KernelLaunch::block, 1),
       array_column("block_z", &KernelLaunch::block, 2),
       array_column("cluster_x", &KernelLaunch::cluster, 0),
       array_column("cluster_y", &KernelLaunch::cluster, 1),
       array_column("cluster_z", &KernelLaunch::cluster, 2),
       integer_column("registers_per_thread", &KernelLaunch::registers_per_thread),
       integer_column("static_shared_bytes", &KernelLaunch::static_shared_bytes),
       integer_column("dynamic_shared_bytes", &KernelLaunch::dynamic_shared_bytes),
       integer_column("local_bytes_per_thread", &KernelLaunch::local_bytes_per_thread)}};
  return spec;
}

template <>
const TableSpec<ApiCall>& table_spec<ApiCall>() {
  static const TableSpec<ApiCall> spec = packed<ApiCall>(
      "api_calls",
      {integer_column("pid", &ApiCall::pid), integer_column("tid", &ApiCall::tid),
       code_column("domain", &ApiCall::domain, kDomains), integer_column("cbid", &ApiCall::cbid),
       integer_column("name_id", &ApiCall::name), offset_column("start_offset_ns", &ApiCall::start, "start_ns"),
       duration_column(&ApiCall::start, &ApiCall::end, "start_offset_ns"),
       integer_column("return_code", &ApiCall::return_code), integer_column("correlation_id", &ApiCall::correlation_id),
       run_id_column<ApiCall>()});
  return spec;
}

template <>
const TableSpec<Kernel>& table_spec<Kernel>() {
  static const TableSpec<Kernel> spec = packed<Kernel>(
      "kernels",
      {integer_column("pid", &Kernel::pid), integer_column("device", &Kernel::device),
       integer_column("context", &Kernel::context), integer_column("stream", &Kernel::stream), launch_column(),
       offset_column("start_offset_ns", &Kernel::start, "start_ns"),
       duration_column(&Kernel::start, &Kernel::end, "start_offset_ns"),
       integer_column("correlation_id", &Kernel::correlation_id), integer_column("graph_id", &Kernel::graph_id),
       integer_column("graph_node_id", &Kernel::graph_node_id), run_id_column<Kernel>()},
      "JOIN kernel_launches l ON l.id = t.launch_id");
  return spec;
}

template <>
const TableSpec<Memcpy>& table_spec<Memcpy>() {
  static const TableSpec<Memcpy> spec = packed<Memcpy>(
      "memcpys",
      {integer_column("pid", &Memcpy::pid), integer_column("device", &Memcpy::device),
       integer_column("context", &Memcpy::context), integer_column("stream", &Memcpy::stream),
       code_column("copy_kind", &Memcpy::kind, kCopyKinds), code_column("src_kind", &Memcpy::src_kind, kMemoryKinds),
       code_column("dst_kind", &Memcpy::dst_kind, kMemoryKinds), integer_column("async", &Memcpy::async),
       integer_column("bytes", &Memcpy::bytes), offset_column("start_offset_ns", &Memcpy::start, "start_ns"),
       duration_column(&Memcpy::start, &Memcpy::end, "start_offset_ns"),
       integer_column("correlation_id", &Memcpy::correlation_id), integer_column("graph_id", &Memcpy::graph_id),
       run_id_column<Memcpy>()});
  return spec;
}

template <>
const TableSpec<Memset>& table_spec<Memset>() {
  static const TableSpec<Memset> spec = packed<Memset>(
      "memsets", {integer_column("pid", &Memset::pid), integer_column("device", &Memset::device),
                  integer_column("context", &Memset::context), integer_column("stream", &Memset::stream),
                  code_column("memory_kind", &Memset::memory_kind, kMemoryKinds),
                  integer_column("async", &Memset::async), integer_column("bytes", &Memset::bytes),
                  integer_column("value", &Memset::value), offset_column("start_offset_ns", &Memset::start, "start_ns"),
                  duration_column(&Memset::start, &Memset::end, "start_offset_ns"),
                  integer_column("correlation_id", &Memset::correlation_id),
                  integer_column("graph_id", &Memset::graph_id), run_id_column<Memset>()});
  return spec;
}

template <>
const TableSpec<MemoryEvent>& table_spec<MemoryEvent>() {
  static const TableSpec<MemoryEvent> spec = packed<MemoryEvent>(
      "memory_events", {integer_column("pid", &MemoryEvent::pid), integer_column("device", &MemoryEvent::device),
                        integer_column("context", &MemoryEvent::context),
                        integer_column("stream", &MemoryEvent::stream), code_column("op", &MemoryEvent::op, kMemoryOps),
                        code_column("memory_kind", &MemoryEvent::memory_kind, kMemoryKinds),
                        integer_column("address", &MemoryEvent::address), integer_column("bytes", &MemoryEvent::bytes),
                        offset_column("timestamp_offset_ns", &MemoryEvent::timestamp, "timestamp_ns"),
                        integer_column("correlation_id", &MemoryEvent::correlation_id), run_id_column<MemoryEvent>()});
  return spec;
}

template <>
const TableSpec<Synchronization>& table_spec<Synchronization>() {
  static const TableSpec<Synchronization> spec = packed<Synchronization>(
      "synchronizations",
      {integer_column("pid", &Synchronization::pid), integer_column("tid", &Synchronization::tid),
       integer_column("context", &Synchronization::context), integer_column("stream", &Synchronization::stream),
       code_column("sync_kind", &Synchronization::kind, kSyncKinds),
       offset_column("start_offset_ns", &Synchronization::start, "start_ns"),
       duration_column(&Synchronization::start, &Synchronization::end, "start_offset_ns"),
       integer_column("correlation_id", &Synchronization::correlation_id), run_id_column<Synchronization>()});
  return spec;
}

template <>
const TableSpec<NvtxRange>& table_spec<NvtxRange>() {
  static const TableSpec<NvtxRange> spec = packed<NvtxRange>(
      "nvtx_ranges",
      {integer_column("pid", &NvtxRange::pid), integer_column("tid", &NvtxRange::tid),
       code_column("kind", &NvtxRange::kind, kNvtxKinds), integer_column("domain_id", &NvtxRange::domain),
       integer_column("name_id", &NvtxRange::name), offset_column("start_offset_ns", &NvtxRange::start, "start_ns"),
       duration_column(&NvtxRange::start, &NvtxRange::end, "start_offset_ns"),
       integer_column("depth", &NvtxRange::depth), run_id_column<NvtxRange>()});
  return spec;
}

template <>
const TableSpec<NvtxMark>& table_spec<NvtxMark>() {
  static const TableSpec<NvtxMark> spec = packed<NvtxMark>(
      "nvtx_marks",
      {integer_column("pid", &NvtxMark::pid), integer_column("tid", &NvtxMark::tid),
       integer_column("domain_id", &NvtxMark::domain), integer_column("name_id", &NvtxMark::name),
       offset_column("timestamp_offset_ns", &NvtxMark::timestamp, "timestamp_ns"), run_id_column<NvtxMark>()});
  return spec;
}

template <>
const TableSpec<GpuMetricSample>& table_spec<GpuMetricSample>() {
  static const TableSpec<GpuMetricSample> spec = packed<GpuMetricSample>(
      "gpu_metric_samples",
      {integer_column("pid", &GpuMetricSample::pid), integer_column("device", &GpuMetricSample::device),
       offset_column("start_offset_ns", &GpuMetricSample::start, "start_ns"),
       duration_column(&GpuMetricSample::start, &GpuMetricSample::end, "start_offset_ns"),
       integer_column("metric_id", &GpuMetricSample::metric), real_column("value", &GpuMetricSample::value),
       run_id_column<GpuMetricSample>()});
  return spec;
}

template <>
const TableSpec<HostOp>& table_spec<HostOp>() {
  static const TableSpec<HostOp> spec = packed<HostOp>(
      "host_ops",
      {integer_column("pid", &HostOp::pid), integer_column("tid", &HostOp::tid),
       integer_column("name_id", &HostOp::name), integer_column("category_id", &HostOp::category),
       offset_column("start_offset_ns", &HostOp::start, "start_ns"),
       duration_column(&HostOp::start, &HostOp::end, "start_offset_ns"),
       integer_column("external_id", &HostOp::external_id), integer_column("sequence_number", &HostOp::sequence_number),
       integer_column("input_shapes_id", &HostOp::input_shapes), integer_column("depth", &HostOp::depth),
       run_id_column<HostOp>()});
  return spec;
}

}  // namespace gpuscope::store

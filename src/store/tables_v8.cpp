// The plain layouts of the event tables in schema v1-v8: absolute start_ns / end_ns, enums
// as text, launch configurations inline, an index per time column. This build no longer
// writes them; they stay so older captures read as they always did (read_trace picks the
// layout by the file's schema version). Frozen: never change a column here.
#include "store/tables.h"

namespace gpuscope::store::v8 {

namespace {
constexpr int kCopyKinds = 11, kMemoryKinds = 8, kSyncKinds = 5, kDomains = 2, kNvtxKinds = 2,
              kMemoryOps = 2;
}

const TableSpec<ApiCall>& api_call_table() {
  static const TableSpec<ApiCall> spec{
      "api_calls",
      {integer_column("pid", &ApiCall::pid), integer_column("tid", &ApiCall::tid),
       enum_column("domain", &ApiCall::domain, kDomains), integer_column("cbid", &ApiCall::cbid),
       integer_column("name_id", &ApiCall::name), integer_column("start_ns", &ApiCall::start),
       integer_column("end_ns", &ApiCall::end),
       integer_column("return_code", &ApiCall::return_code),
       integer_column("correlation_id", &ApiCall::correlation_id),
       run_id_column<ApiCall>()},
      {"start_ns", "pid, correlation_id"}};
  return spec;
}

const TableSpec<Kernel>& kernel_table() {
  static const TableSpec<Kernel> spec{
      "kernels",
      {integer_column("pid", &Kernel::pid), integer_column("device", &Kernel::device),
       integer_column("context", &Kernel::context), integer_column("stream", &Kernel::stream),
       integer_column("mangled_name_id", &Kernel::mangled_name),
       integer_column("name_id", &Kernel::name), integer_column("start_ns", &Kernel::start),
       integer_column("end_ns", &Kernel::end), array_column("grid_x", &Kernel::grid, 0),
       array_column("grid_y", &Kernel::grid, 1), array_column("grid_z", &Kernel::grid, 2),
       array_column("block_x", &Kernel::block, 0), array_column("block_y", &Kernel::block, 1),
       array_column("block_z", &Kernel::block, 2),
       array_column("cluster_x", &Kernel::cluster, 0),
       array_column("cluster_y", &Kernel::cluster, 1),
       array_column("cluster_z", &Kernel::cluster, 2),
       integer_column("registers_per_thread", &Kernel::registers_per_thread),
       integer_column("static_shared_bytes", &Kernel::static_shared_bytes),
       integer_column("dynamic_shared_bytes", &Kernel::dynamic_shared_bytes),
       integer_column("local_bytes_per_thread", &Kernel::local_bytes_per_thread),
       integer_column("correlation_id", &Kernel::correlation_id),
       integer_column("graph_id", &Kernel::graph_id),
       integer_column("graph_node_id", &Kernel::graph_node_id),
       run_id_column<Kernel>()},
      {"start_ns", "pid, correlation_id", "name_id"}};
  return spec;
}

const TableSpec<Memcpy>& memcpy_table() {
  static const TableSpec<Memcpy> spec{
      "memcpys",
      {integer_column("pid", &Memcpy::pid), integer_column("device", &Memcpy::device),
       integer_column("context", &Memcpy::context), integer_column("stream", &Memcpy::stream),
       enum_column("copy_kind", &Memcpy::kind, kCopyKinds),
       enum_column("src_kind", &Memcpy::src_kind, kMemoryKinds),
       enum_column("dst_kind", &Memcpy::dst_kind, kMemoryKinds),
       integer_column("async", &Memcpy::async), integer_column("bytes", &Memcpy::bytes),
       integer_column("start_ns", &Memcpy::start), integer_column("end_ns", &Memcpy::end),
       integer_column("correlation_id", &Memcpy::correlation_id),
       integer_column("graph_id", &Memcpy::graph_id),
       run_id_column<Memcpy>()},
      {"start_ns", "pid, correlation_id"}};
  return spec;
}

const TableSpec<Memset>& memset_table() {
  static const TableSpec<Memset> spec{
      "memsets",
      {integer_column("pid", &Memset::pid), integer_column("device", &Memset::device),
       integer_column("context", &Memset::context), integer_column("stream", &Memset::stream),
       enum_column("memory_kind", &Memset::memory_kind, kMemoryKinds),
       integer_column("async", &Memset::async), integer_column("bytes", &Memset::bytes),
       integer_column("value", &Memset::value), integer_column("start_ns", &Memset::start),
       integer_column("end_ns", &Memset::end),
       integer_column("correlation_id", &Memset::correlation_id),
       integer_column("graph_id", &Memset::graph_id),
       run_id_column<Memset>()},
      {"start_ns"}};
  return spec;
}

const TableSpec<MemoryEvent>& memory_event_table() {
  static const TableSpec<MemoryEvent> spec{
      "memory_events",
      {integer_column("pid", &MemoryEvent::pid), integer_column("device", &MemoryEvent::device),
       integer_column("context", &MemoryEvent::context),
       integer_column("stream", &MemoryEvent::stream),
       enum_column("op", &MemoryEvent::op, kMemoryOps),
       enum_column("memory_kind", &MemoryEvent::memory_kind, kMemoryKinds),
       integer_column("address", &MemoryEvent::address),
       integer_column("bytes", &MemoryEvent::bytes),
       integer_column("timestamp_ns", &MemoryEvent::timestamp),
       integer_column("correlation_id", &MemoryEvent::correlation_id),
       run_id_column<MemoryEvent>()},
      {"timestamp_ns"}};
  return spec;
}

const TableSpec<Synchronization>& synchronization_table() {
  static const TableSpec<Synchronization> spec{
      "synchronizations",
      {integer_column("pid", &Synchronization::pid), integer_column("tid", &Synchronization::tid),
       integer_column("context", &Synchronization::context),
       integer_column("stream", &Synchronization::stream),
       enum_column("sync_kind", &Synchronization::kind, kSyncKinds),
       integer_column("start_ns", &Synchronization::start),
       integer_column("end_ns", &Synchronization::end),
       integer_column("correlation_id", &Synchronization::correlation_id),
       run_id_column<Synchronization>()},
      {"start_ns"}};
  return spec;
}

const TableSpec<NvtxRange>& nvtx_range_table() {
  static const TableSpec<NvtxRange> spec{
      "nvtx_ranges",
      {integer_column("pid", &NvtxRange::pid), integer_column("tid", &NvtxRange::tid),
       enum_column("kind", &NvtxRange::kind, kNvtxKinds),
       integer_column("domain_id", &NvtxRange::domain), integer_column("name_id", &NvtxRange::name),
       integer_column("start_ns", &NvtxRange::start), integer_column("end_ns", &NvtxRange::end),
       integer_column("depth", &NvtxRange::depth),
       run_id_column<NvtxRange>()},
      {"start_ns"}};
  return spec;
}

const TableSpec<NvtxMark>& nvtx_mark_table() {
  static const TableSpec<NvtxMark> spec{
      "nvtx_marks",
      {integer_column("pid", &NvtxMark::pid), integer_column("tid", &NvtxMark::tid),
       integer_column("domain_id", &NvtxMark::domain), integer_column("name_id", &NvtxMark::name),
       integer_column("timestamp_ns", &NvtxMark::timestamp),
       run_id_column<NvtxMark>()},
      {}};
  return spec;
}

const TableSpec<GpuMetricSample>& gpu_metric_sample_table() {
  static const TableSpec<GpuMetricSample> spec = since(
      4, TableSpec<GpuMetricSample>{"gpu_metric_samples",
                                    {integer_column("pid", &GpuMetricSample::pid),
                                     integer_column("device", &GpuMetricSample::device),
                                     integer_column("start_ns", &GpuMetricSample::start),
                                     integer_column("end_ns", &GpuMetricSample::end),
                                     integer_column("metric_id", &GpuMetricSample::metric),
                                     real_column("value", &GpuMetricSample::value),
                                     run_id_column<GpuMetricSample>()},
                                    {"start_ns"}});
  return spec;
}

const TableSpec<HostOp>& host_op_table() {
  static const TableSpec<HostOp> spec = since(
      5, TableSpec<HostOp>{"host_ops",
                           {integer_column("pid", &HostOp::pid), integer_column("tid", &HostOp::tid),
                            integer_column("name_id", &HostOp::name),
                            integer_column("category_id", &HostOp::category),
                            integer_column("start_ns", &HostOp::start), integer_column("end_ns", &HostOp::end),
                            integer_column("external_id", &HostOp::external_id),
                            integer_column("sequence_number", &HostOp::sequence_number),
                            integer_column("input_shapes_id", &HostOp::input_shapes),
                            integer_column("depth", &HostOp::depth), run_id_column<HostOp>()},
                           {"start_ns", "pid, external_id"}});
  return spec;
}

}  // namespace gpuscope::store::v8

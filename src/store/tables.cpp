#include "store/tables.h"

namespace gpuscope::store {

template <>
const TableSpec<Run>& table_spec<Run>() {
  static const TableSpec<Run> spec{
      "run",
      {text_column("command_line", &Run::command_line), text_column("host", &Run::host),
       text_column("gpuscope_version", &Run::gpuscope_version), integer_column("start_ns", &Run::start),
       integer_column("end_ns", &Run::end), integer_column("exit_code", &Run::exit_code),
       integer_column("term_signal", &Run::term_signal), text_column("options", &Run::options),
       text_column("source_tool", &Run::source_tool), text_column("source_version", &Run::source_version),
       text_column("source_schema", &Run::source_schema), text_column("source_file", &Run::source_file),
       text_column("host_ops_source", &Run::host_ops_source)}};
  return spec;
}

template <>
const TableSpec<BenchRun>& table_spec<BenchRun>() {
  static const TableSpec<BenchRun> spec{
      "bench_runs",
      {integer_column("run_id", &BenchRun::run_id), integer_column("start_ns", &BenchRun::start),
       integer_column("end_ns", &BenchRun::end), integer_column("exit_code", &BenchRun::exit_code),
       integer_column("term_signal", &BenchRun::term_signal)}};
  return spec;
}

template <>
const TableSpec<Process>& table_spec<Process>() {
  static const TableSpec<Process> spec{
      "processes",
      {integer_column("pid", &Process::pid), integer_column("parent_pid", &Process::parent_pid),
       text_column("command_line", &Process::command_line), integer_column("start_ns", &Process::start),
       integer_column("end_ns", &Process::end), integer_column("clean_shutdown", &Process::clean_shutdown),
       integer_column("driver_version", &Process::driver_version),
       integer_column("runtime_version", &Process::runtime_version),
       integer_column("cupti_version", &Process::cupti_version),
       text_column("capture_status", &Process::capture_status), run_id_column<Process>(),
       text_column("cupti_path", &Process::cupti_path), integer_column("cupti_shared", &Process::cupti_shared),
       text_column("capture_range", &Process::capture_range), integer_column("rank", &Process::rank),
       integer_column("local_rank", &Process::local_rank), integer_column("world_size", &Process::world_size),
       text_column("api_trace", &Process::api_trace)}};
  return spec;
}

template <>
const TableSpec<Device>& table_spec<Device>() {
  static const TableSpec<Device> spec{
      "devices",
      {integer_column("pid", &Device::pid),
       integer_column("id", &Device::id),
       text_column("name", &Device::name),
       text_column("uuid", &Device::uuid),
       integer_column("compute_major", &Device::compute_major),
       integer_column("compute_minor", &Device::compute_minor),
       integer_column("sm_count", &Device::sm_count),
       integer_column("core_clock_khz", &Device::core_clock_khz),
       integer_column("memory_clock_khz", &Device::memory_clock_khz),
       integer_column("memory_bus_width_bits", &Device::memory_bus_width_bits),
       integer_column("global_memory_bytes", &Device::global_memory_bytes),
       integer_column("global_memory_bandwidth_kbps", &Device::global_memory_bandwidth_kbps),
       integer_column("l2_cache_bytes", &Device::l2_cache_bytes),
       integer_column("max_registers_per_sm", &Device::max_registers_per_sm),
       integer_column("max_registers_per_block", &Device::max_registers_per_block),
       integer_column("max_shared_per_sm_bytes", &Device::max_shared_per_sm_bytes),
       integer_column("max_shared_per_block_bytes", &Device::max_shared_per_block_bytes),
       integer_column("max_warps_per_sm", &Device::max_warps_per_sm),
       integer_column("max_blocks_per_sm", &Device::max_blocks_per_sm),
       integer_column("max_threads_per_block", &Device::max_threads_per_block),
       integer_column("warp_size", &Device::warp_size),
       integer_column("copy_engines", &Device::copy_engines),
       run_id_column<Device>()}};
  return spec;
}

template <>
const TableSpec<CuptiOverhead>& table_spec<CuptiOverhead>() {
  static const TableSpec<CuptiOverhead> spec{
      "cupti_overhead",
      {integer_column("pid", &CuptiOverhead::pid), integer_column("kind_id", &CuptiOverhead::kind),
       integer_column("start_ns", &CuptiOverhead::start), integer_column("end_ns", &CuptiOverhead::end),
       run_id_column<CuptiOverhead>()}};
  return spec;
}

template <>
const TableSpec<DataLoss>& table_spec<DataLoss>() {
  static const TableSpec<DataLoss> spec{"data_loss",
                                        {integer_column("pid", &DataLoss::pid), text_column("what", &DataLoss::what),
                                         integer_column("count", &DataLoss::count),
                                         text_column("detail", &DataLoss::detail), run_id_column<DataLoss>()}};
  return spec;
}

// Hardware metrics (`gpuscope profile --metrics / --gpu-metrics`).
template <>
const TableSpec<KernelMetric>& table_spec<KernelMetric>() {
  static const TableSpec<KernelMetric> spec{
      "kernel_metrics",
      {integer_column("pid", &KernelMetric::pid), integer_column("correlation_id", &KernelMetric::correlation_id),
       integer_column("metric_id", &KernelMetric::metric), real_column("value", &KernelMetric::value),
       run_id_column<KernelMetric>()}};
  return spec;
}

template <>
const TableSpec<MetricCollection>& table_spec<MetricCollection>() {
  static const TableSpec<MetricCollection> spec{
      "metric_collections",
      {integer_column("pid", &MetricCollection::pid), text_column("kind", &MetricCollection::kind),
       text_column("status", &MetricCollection::status), text_column("chip", &MetricCollection::chip),
       integer_column("passes", &MetricCollection::passes), integer_column("metrics", &MetricCollection::metrics),
       integer_column("kernels_profiled", &MetricCollection::kernels_profiled),
       integer_column("kernels_failed", &MetricCollection::kernels_failed),
       integer_column("interval_ns", &MetricCollection::interval_ns), text_column("source", &MetricCollection::source),
       run_id_column<MetricCollection>()}};
  return spec;
}

template <>
const TableSpec<SourceGap>& table_spec<SourceGap>() {
  static const TableSpec<SourceGap> spec{
      "source_gaps", {text_column("what", &SourceGap::what), text_column("detail", &SourceGap::detail)}};
  return spec;
}

template <>
const TableSpec<ExternalCorrelation>& table_spec<ExternalCorrelation>() {
  static const TableSpec<ExternalCorrelation> spec{
      "external_correlations",
      {integer_column("pid", &ExternalCorrelation::pid),
       integer_column("correlation_id", &ExternalCorrelation::correlation_id),
       integer_column("external_id", &ExternalCorrelation::external_id), run_id_column<ExternalCorrelation>()}};
  return spec;
}

template <>
const TableSpec<CollectiveCall>& table_spec<CollectiveCall>() {
  static const TableSpec<CollectiveCall> spec{
      "collective_calls",
      {integer_column("pid", &CollectiveCall::pid), integer_column("correlation_id", &CollectiveCall::correlation_id),
       integer_column("bytes", &CollectiveCall::bytes), integer_column("ranks", &CollectiveCall::ranks),
       integer_column("calls", &CollectiveCall::calls), integer_column("peer", &CollectiveCall::peer),
       run_id_column<CollectiveCall>()}};
  return spec;
}

template <>
const TableSpec<CaptureWindow>& table_spec<CaptureWindow>() {
  static const TableSpec<CaptureWindow> spec{
      "capture_windows",
      {integer_column("pid", &CaptureWindow::pid), integer_column("start_ns", &CaptureWindow::start),
       integer_column("end_ns", &CaptureWindow::end), run_id_column<CaptureWindow>()}};
  return spec;
}

template <>
const TableSpec<ApiCount>& table_spec<ApiCount>() {
  static const TableSpec<ApiCount> spec{
      "api_call_counts",
      {integer_column("pid", &ApiCount::pid), integer_column("name_id", &ApiCount::name),
       enum_column("domain", &ApiCount::domain, 2), integer_column("calls", &ApiCount::calls),
       integer_column("total_ns", &ApiCount::total_ns), run_id_column<ApiCount>()}};
  return spec;
}

template <>
const TableSpec<Stream>& table_spec<Stream>() {
  static const TableSpec<Stream> spec{"streams",
                                      {integer_column("pid", &Stream::pid), integer_column("context", &Stream::context),
                                       integer_column("stream", &Stream::stream), enum_column("flag", &Stream::flag, 4),
                                       integer_column("priority", &Stream::priority),
                                       integer_column("correlation_id", &Stream::correlation_id),
                                       run_id_column<Stream>()}};
  return spec;
}

template <>
const TableSpec<GraphNode>& table_spec<GraphNode>() {
  static const TableSpec<GraphNode> spec{
      "graph_nodes",
      {integer_column("pid", &GraphNode::pid), integer_column("node_id", &GraphNode::node_id),
       integer_column("tid", &GraphNode::tid), integer_column("created_ns", &GraphNode::timestamp),
       integer_column("correlation_id", &GraphNode::correlation_id), run_id_column<GraphNode>()}};
  return spec;
}

template <>
const TableSpec<PcSample>& table_spec<PcSample>() {
  static const TableSpec<PcSample> spec{
      "pc_samples",
      {integer_column("pid", &PcSample::pid), integer_column("device", &PcSample::device),
       integer_column("cubin_crc", &PcSample::cubin_crc), integer_column("function_id", &PcSample::function),
       integer_column("pc_offset", &PcSample::pc_offset), integer_column("stall_reason_id", &PcSample::stall_reason),
       integer_column("samples", &PcSample::samples), integer_column("not_issued", &PcSample::not_issued),
       run_id_column<PcSample>()}};
  return spec;
}

template <>
const TableSpec<Cubin>& table_spec<Cubin>() {
  static const TableSpec<Cubin> spec{"cubins",
                                     {integer_column("pid", &Cubin::pid), integer_column("crc", &Cubin::crc),
                                      blob_column("image", &Cubin::image), run_id_column<Cubin>()}};
  return spec;
}

template <>
const TableSpec<PcSampling>& table_spec<PcSampling>() {
  static const TableSpec<PcSampling> spec{
      "pc_sampling",
      {integer_column("pid", &PcSampling::pid), integer_column("device", &PcSampling::device),
       integer_column("period_log2", &PcSampling::period_log2),
       integer_column("total_samples", &PcSampling::total_samples),
       integer_column("dropped_samples", &PcSampling::dropped_samples),
       integer_column("non_user_samples", &PcSampling::non_user_samples),
       integer_column("buffer_full", &PcSampling::buffer_full), run_id_column<PcSampling>()}};
  return spec;
}

const std::vector<std::string>& view_statements() {
  static const std::vector<std::string> views{
      "CREATE VIEW kernels_named AS SELECT k.*, s.value AS name, m.value AS mangled_name "
      "FROM kernels k JOIN strings s ON s.id = k.name_id JOIN strings m ON m.id = k.mangled_name_id",
      "CREATE VIEW api_calls_named AS SELECT a.*, s.value AS name "
      "FROM api_calls a JOIN strings s ON s.id = a.name_id",
      "CREATE VIEW pc_samples_named AS SELECT p.*, f.value AS function, r.value AS stall_reason "
      "FROM pc_samples p JOIN strings f ON f.id = p.function_id JOIN strings r ON r.id = p.stall_reason_id",
      "CREATE VIEW api_call_counts_named AS SELECT c.*, s.value AS name "
      "FROM api_call_counts c JOIN strings s ON s.id = c.name_id",
      "CREATE VIEW nvtx_ranges_named AS SELECT r.*, n.value AS name, d.value AS domain "
      "FROM nvtx_ranges r JOIN strings n ON n.id = r.name_id JOIN strings d ON d.id = r.domain_id",
      // One row per metric value, next to its kernel (same run, process and correlation id).
      // LEFT JOIN: a value whose kernel record was lost (data_loss 'metrics_unmatched')
      // still shows, with NULL kernel columns.
      "CREATE VIEW kernel_metrics_named AS SELECT m.run_id, m.pid, m.correlation_id, kn.value AS kernel, "
      "k.start_ns, k.end_ns - k.start_ns AS duration_ns, s.value AS metric, m.value "
      "FROM kernel_metrics m JOIN strings s ON s.id = m.metric_id "
      "LEFT JOIN kernels k ON k.run_id = m.run_id AND k.pid = m.pid AND k.correlation_id = m.correlation_id "
      "LEFT JOIN strings kn ON kn.id = k.name_id",
      "CREATE VIEW gpu_metric_samples_named AS SELECT g.*, s.value AS metric "
      "FROM gpu_metric_samples g JOIN strings s ON s.id = g.metric_id",
      "CREATE VIEW host_ops_named AS SELECT o.*, n.value AS name, c.value AS category, sh.value AS input_shapes "
      "FROM host_ops o JOIN strings n ON n.id = o.name_id JOIN strings c ON c.id = o.category_id "
      "JOIN strings sh ON sh.id = o.input_shapes_id",
  };
  return views;
}

}  // namespace gpuscope::store

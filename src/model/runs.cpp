// append_run / select_run (gpuscope/runs.h).
#include "gpuscope/runs.h"

namespace gpuscope {
namespace {

// Re-interns a name from `from` into `to`.
StringId move_name(StringId id, const StringTable& from, StringTable& to) { return to.intern(from.get(id)); }

template <class Row, class Fix>
void append_rows(std::vector<Row>& into, const std::vector<Row>& rows, uint32_t run_id, Fix fix) {
  for (Row row : rows) {
    row.run_id = run_id;
    fix(row);
    into.push_back(std::move(row));
  }
}

template <class Row>
void select_rows(std::vector<Row>& into, const std::vector<Row>& rows, uint32_t run_id) {
  for (const Row& row : rows)
    if (row.run_id == run_id) into.push_back(row);
}

}  // namespace

void append_run(Trace& into, const Trace& run, uint32_t run_id) {
  const StringTable& s = run.strings;
  StringTable& t = into.strings;
  auto none = [](auto&) {};
  append_rows(into.processes, run.processes, run_id, none);
  append_rows(into.devices, run.devices, run_id, none);
  append_rows(into.api_calls, run.api_calls, run_id, [&](ApiCall& c) { c.name = move_name(c.name, s, t); });
  append_rows(into.kernels, run.kernels, run_id, [&](Kernel& k) {
    k.name = move_name(k.name, s, t);
    k.mangled_name = move_name(k.mangled_name, s, t);
  });
  append_rows(into.memcpys, run.memcpys, run_id, none);
  append_rows(into.memsets, run.memsets, run_id, none);
  append_rows(into.memory_events, run.memory_events, run_id, none);
  append_rows(into.synchronizations, run.synchronizations, run_id, none);
  append_rows(into.nvtx_ranges, run.nvtx_ranges, run_id, [&](NvtxRange& r) {
    r.name = move_name(r.name, s, t);
    r.domain = move_name(r.domain, s, t);
  });
  append_rows(into.nvtx_marks, run.nvtx_marks, run_id, [&](NvtxMark& m) {
    m.name = move_name(m.name, s, t);
    m.domain = move_name(m.domain, s, t);
  });
  append_rows(into.overheads, run.overheads, run_id, [&](CuptiOverhead& o) { o.kind = move_name(o.kind, s, t); });
  append_rows(into.data_loss, run.data_loss, run_id, none);
  append_rows(into.kernel_metrics, run.kernel_metrics, run_id, [&](KernelMetric& m) { m.metric = move_name(m.metric, s, t); });
  append_rows(into.gpu_metric_samples, run.gpu_metric_samples, run_id,
              [&](GpuMetricSample& g) { g.metric = move_name(g.metric, s, t); });
  append_rows(into.metric_collections, run.metric_collections, run_id, none);
  append_rows(into.host_ops, run.host_ops, run_id, [&](HostOp& o) {
    o.name = move_name(o.name, s, t);
    o.category = move_name(o.category, s, t);
    o.input_shapes = move_name(o.input_shapes, s, t);
  });
  append_rows(into.external_correlations, run.external_correlations, run_id, none);
  append_rows(into.collective_calls, run.collective_calls, run_id, none);
  if (into.source_gaps.empty()) into.source_gaps = run.source_gaps;
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
  select_rows(out.processes, trace.processes, run_id);
  select_rows(out.devices, trace.devices, run_id);
  select_rows(out.api_calls, trace.api_calls, run_id);
  select_rows(out.kernels, trace.kernels, run_id);
  select_rows(out.memcpys, trace.memcpys, run_id);
  select_rows(out.memsets, trace.memsets, run_id);
  select_rows(out.memory_events, trace.memory_events, run_id);
  select_rows(out.synchronizations, trace.synchronizations, run_id);
  select_rows(out.nvtx_ranges, trace.nvtx_ranges, run_id);
  select_rows(out.nvtx_marks, trace.nvtx_marks, run_id);
  select_rows(out.overheads, trace.overheads, run_id);
  select_rows(out.data_loss, trace.data_loss, run_id);
  select_rows(out.kernel_metrics, trace.kernel_metrics, run_id);
  select_rows(out.gpu_metric_samples, trace.gpu_metric_samples, run_id);
  select_rows(out.metric_collections, trace.metric_collections, run_id);
  select_rows(out.host_ops, trace.host_ops, run_id);
  select_rows(out.external_correlations, trace.external_correlations, run_id);
  select_rows(out.collective_calls, trace.collective_calls, run_id);
  out.source_gaps = trace.source_gaps;
  return out;
}

std::vector<uint32_t> run_ids(const Trace& trace) {
  std::vector<uint32_t> ids;
  for (const BenchRun& r : trace.runs) ids.push_back(r.run_id);
  return ids;
}

}  // namespace gpuscope

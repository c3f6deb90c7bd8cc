// Synchronization (CPU waits for the GPU) and NVTX range summaries: both are
// "how long did this named host-side span take", grouped and described.
#include <map>
#include <string>
#include <utility>

#include "analysis/grouping.h"
#include "gpuscope/analysis.h"
#include "gpuscope/analysis_nvtx_gpu.h"

namespace gpuscope::analysis {

std::vector<SyncGroup> summarize_sync(const Trace& trace) {
  detail::DurationGroups<SyncKind> groups;
  for (const Synchronization& s : trace.synchronizations) groups.add(s.kind, duration(s.start, s.end));
  std::vector<SyncGroup> rows;
  groups.for_each([&](SyncKind kind, const Stats& stats) { rows.push_back({kind, stats}); });
  detail::sort_by_total_then_name(
      rows, [](const SyncGroup& g) { return g.wait.total; },
      [](const SyncGroup& g) { return std::string(to_string(g.kind)); });
  return rows;
}

NvtxSummary summarize_nvtx(const Trace& trace) {
  NvtxSummary out;
  using Key = std::pair<std::string, std::string>;  // (domain, name)
  detail::DurationGroups<Key> groups;
  std::map<Key, NvtxGroup> gpu;  // the GPU projection's sums per group
  const NvtxGpuProjection projection = project_nvtx_gpu(trace);
  out.gpu_unlaunched = projection.unlaunched;
  for (size_t i = 0; i < trace.nvtx_ranges.size(); ++i) {
    const NvtxRange& r = trace.nvtx_ranges[i];
    if (r.end <= r.start) {  // never closed (process ended inside it) or inverted
      ++out.unclosed_ranges;
      continue;
    }
    const Key key{trace.strings.get(r.domain), trace.strings.get(r.name)};
    groups.add(key, r.end - r.start);
    const NvtxInstanceGpu& p = projection.ranges[i];
    NvtxGroup& g = gpu[key];
    g.gpu_ns += static_cast<double>(p.gpu_ns);
    g.gpu_span_ns += static_cast<double>(p.span_ns());
    g.kernels += p.kernels;
    g.gpu_activities += p.activities;
  }
  groups.for_each([&](const Key& key, const Stats& stats) {
    NvtxGroup g = gpu[key];
    g.domain = key.first;
    g.name = key.second;
    g.duration = stats;
    out.ranges.push_back(std::move(g));
  });
  // Ties by name, then domain, so equal names in two domains keep a fixed order.
  detail::sort_by_total_then_name(
      out.ranges, [](const NvtxGroup& g) { return g.duration.total; },
      [](const NvtxGroup& g) { return std::make_pair(g.name, g.domain); });
  out.marks = trace.nvtx_marks.size();
  return out;
}

}  // namespace gpuscope::analysis

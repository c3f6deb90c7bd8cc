// Synchronization (CPU waits for the GPU) and NVTX range summaries: both are
// "how long did this named host-side span take", grouped and described.
#include <string>
#include <utility>

#include "analysis/grouping.h"
#include "gpuscope/analysis.h"

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
  detail::DurationGroups<std::pair<std::string, std::string>> groups;  // (domain, name)
  for (const NvtxRange& r : trace.nvtx_ranges) {
    if (r.end <= r.start) {  // never closed (process ended inside it) or inverted
      ++out.unclosed_ranges;
      continue;
    }
    groups.add({trace.strings.get(r.domain), trace.strings.get(r.name)}, r.end - r.start);
  }
  groups.for_each([&](const std::pair<std::string, std::string>& key, const Stats& stats) {
    out.ranges.push_back({key.first, key.second, stats});
  });
  // Ties by name, then domain, so equal names in two domains keep a fixed order.
  detail::sort_by_total_then_name(
      out.ranges, [](const NvtxGroup& g) { return g.duration.total; },
      [](const NvtxGroup& g) { return std::make_pair(g.name, g.domain); });
  out.marks = trace.nvtx_marks.size();
  return out;
}

}  // namespace gpuscope::analysis

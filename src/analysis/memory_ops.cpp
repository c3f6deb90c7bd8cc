// Memory operations by direction. Copies touching host memory are split by
// the host side's kind, because pageable memory forces a staged copy through
// a pinned bounce buffer and is the usual reason for poor copy bandwidth.
#include <map>
#include <string>
#include <tuple>

#include "analysis/grouping.h"
#include "gpuscope/analysis.h"

namespace gpuscope::analysis {
std::vector<MemoryGroup> summarize_memory_ops(const Trace& trace) {
  std::map<std::tuple<CopyKind, MemoryKind>, MemoryGroup> copies;
  for (const Memcpy& m : trace.memcpys) {
    MemoryKind host = detail::host_side(m);
    MemoryGroup& g = copies[{m.kind, host}];
    g.kind = m.kind;
    g.host_kind = host;
    ++g.count;
    g.bytes += m.bytes;
    g.time_ns = add_saturated(g.time_ns, duration(m.start, m.end));
  }

  std::vector<MemoryGroup> rows;
  for (auto& [key, g] : copies) {
    g.label = detail::memory_label(g.kind, g.host_kind);
    rows.push_back(std::move(g));
  }
  if (!trace.memsets.empty()) {
    MemoryGroup g;
    g.label = "Memset";
    g.is_memset = true;
    for (const Memset& m : trace.memsets) {
      ++g.count;
      g.bytes += m.bytes;
      g.time_ns = add_saturated(g.time_ns, duration(m.start, m.end));
    }
    rows.push_back(std::move(g));
  }
  for (MemoryGroup& g : rows) {
    if (g.time_ns > 0) g.bandwidth_bps = static_cast<double>(g.bytes) / (static_cast<double>(g.time_ns) * 1e-9);
  }
  detail::sort_by_total_then_name(
      rows, [](const MemoryGroup& g) { return g.time_ns; }, [](const MemoryGroup& g) { return g.label; });
  return rows;
}

}  // namespace gpuscope::analysis

#include "model/tracks_graphs.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "gpuscope/analysis_stats.h"

namespace gpuscope::tracks {

std::vector<ReplayPlaces> graph_replays(const Trace& trace, std::optional<uint32_t> run_id) {
  struct Pending {
    GraphReplay replay;
    std::map<std::pair<uint32_t, uint32_t>, std::pair<TimeNs, TimeNs>> streams;  // (device, stream) -> span
  };
  std::map<std::tuple<uint32_t, uint32_t, uint32_t, uint32_t>, Pending> pending;  // (run, pid, graph, correlation)
  const auto see = [&](const auto& node) {
    if (node.graph_id == 0 || node.correlation_id == 0 || (run_id && node.run_id != *run_id) ||
        !analysis::timed(node.start, node.end))
      return;
    auto [it, added] = pending.try_emplace({node.run_id, node.pid, node.graph_id, node.correlation_id});
    GraphReplay& r = it->second.replay;
    if (added) r = {node.run_id, node.pid, node.graph_id, node.correlation_id, 0, 0, 0, node.start, node.end};
    ++r.nodes;
    r.start = std::min(r.start, node.start), r.end = std::max(r.end, node.end);
    auto [span, first] = it->second.streams.try_emplace({node.device, node.stream}, node.start, node.end);
    if (!first) span->second = {std::min(span->second.first, node.start), std::max(span->second.second, node.end)};
  };
  for (const Kernel& k : trace.kernels) see(k);
  for (const Memcpy& m : trace.memcpys) see(m);
  for (const Memset& m : trace.memsets) see(m);

  std::vector<ReplayPlaces> out;
  out.reserve(pending.size());
  for (auto& [key, p] : pending) {
    ReplayPlaces& r = out.emplace_back();
    r.replay = p.replay;
    for (const auto& [where, span] : p.streams)
      r.streams.push_back({where.first, where.second, span.first, span.second});
  }
  const auto graph_of = [](const GraphReplay& r) { return std::tie(r.run_id, r.pid, r.graph_id); };
  std::stable_sort(out.begin(), out.end(), [&](const ReplayPlaces& a, const ReplayPlaces& b) {
    return std::tuple(graph_of(a.replay), a.replay.start) < std::tuple(graph_of(b.replay), b.replay.start);
  });
  // Ordinals within each graph, then each graph's count from its last replay back.
  for (size_t i = 0, first = 0; i < out.size(); ++i) {
    if (i > 0 && graph_of(out[i].replay) != graph_of(out[i - 1].replay)) first = i;
    out[i].replay.replay = static_cast<uint32_t>(i - first + 1);
  }
  for (size_t i = out.size(); i-- > 0;) {
    const bool last = i + 1 == out.size() || graph_of(out[i].replay) != graph_of(out[i + 1].replay);
    out[i].replay.replays = last ? out[i].replay.replay : out[i + 1].replay.replays;
  }
  return out;
}

}  // namespace gpuscope::tracks

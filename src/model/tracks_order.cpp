#include "model/tracks_order.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <tuple>
#include <unordered_map>

namespace gpuscope::tracks {

void pack_rows(Track& t) {
  // A graph replay first among slices of the same times: it holds its nodes (a replay of one node).
  const auto holder = [](SliceKind kind) { return kind == SliceKind::GraphReplay ? 0 : 1; };
  std::sort(t.slices.begin(), t.slices.end(), [&](const Slice& a, const Slice& b) {
    return std::tuple(a.start, b.end, holder(a.kind), a.kind, a.source) <
           std::tuple(b.start, a.end, holder(b.kind), b.kind, b.source);
  });
  std::sort(t.marks.begin(), t.marks.end(), [](const Instant& a, const Instant& b) { return a.time < b.time; });
  std::vector<TimeNs> row_end;  // end of the last slice in each row
  t.nests = true;
  for (Slice& s : t.slices) {
    size_t row = 0;
    while (row < row_end.size() && row_end[row] > s.start) ++row;
    if (row == row_end.size()) row_end.push_back(0);
    // Nested: the slice lies inside the open slice of the row above it.
    if (row > 0 && s.end > row_end[row - 1]) t.nests = false;
    row_end[row] = s.end;
    s.row = static_cast<uint32_t>(row);
  }
  t.rows = static_cast<uint32_t>(row_end.size());
}

void order_groups(Layout& layout) {
  std::vector<Group>& groups = layout.groups;
  // Processes as they first appeared; in a distributed job's capture, by run and then the ranks
  // side by side in rank order (processes without a rank after them).
  std::vector<uint32_t> processes;
  bool ranked = false;
  for (uint32_t p = 0; p < groups.size(); ++p) {
    if (groups[p].kind != GroupKind::Process) continue;
    processes.push_back(p);
    ranked = ranked || groups[p].rank >= 0;
  }
  const auto rank_key = [&](uint32_t g) {
    return groups[g].rank >= 0 ? static_cast<int64_t>(groups[g].rank) : std::numeric_limits<int64_t>::max();
  };
  if (ranked)
    std::stable_sort(processes.begin(), processes.end(), [&](uint32_t a, uint32_t b) {
      return std::tuple(groups[a].run_id, rank_key(a)) < std::tuple(groups[b].run_id, rank_key(b));
    });
  std::vector<uint32_t> order;  // new position -> old index
  for (uint32_t p : processes) {
    order.push_back(p);
    const size_t first_device = order.size();
    for (uint32_t d = 0; d < groups.size(); ++d)
      if (groups[d].kind == GroupKind::Device && groups[d].run_id == groups[p].run_id && groups[d].pid == groups[p].pid)
        order.push_back(d);
    std::sort(order.begin() + first_device, order.end(),
              [&](uint32_t a, uint32_t b) { return groups[a].device < groups[b].device; });
  }
  std::vector<uint32_t> renumbered(groups.size());
  std::vector<Group> ordered;
  for (uint32_t i = 0; i < order.size(); ++i) {
    renumbered[order[i]] = i;
    ordered.push_back(std::move(groups[order[i]]));
  }
  groups = std::move(ordered);
  for (Track& t : layout.tracks) t.group = renumbered[t.group];
  for (Counter& c : layout.counters) c.group = renumbered[c.group];
  for (Group& g : groups)
    std::sort(g.tracks.begin(), g.tracks.end(), [&](uint32_t a, uint32_t b) {
      const Track &ta = layout.tracks[a], &tb = layout.tracks[b];
      return std::tuple(ta.kind, ta.tid, ta.stream) < std::tuple(tb.kind, tb.tid, tb.stream);
    });
}

void add_flows(const Trace& trace, Layout& layout) {
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> processes;  // (run, pid) -> process group
  for (uint32_t g = 0; g < layout.groups.size(); ++g)
    if (layout.groups[g].kind == GroupKind::Process) processes[{layout.groups[g].run_id, layout.groups[g].pid}] = g;
  const auto process_of = [&](const Track& t) {
    const Group& g = layout.groups[t.group];
    return processes.at({g.run_id, g.pid});
  };
  const auto key = [](uint32_t process, uint32_t correlation) { return (uint64_t(process) << 32) | correlation; };
  std::unordered_map<uint64_t, SliceRef> calls;  // (process group, correlation id) -> call
  for (uint32_t ti = 0; ti < layout.tracks.size(); ++ti) {
    const Track& t = layout.tracks[ti];
    if (t.kind != TrackKind::Thread) continue;
    for (uint32_t si = 0; si < t.slices.size(); ++si) {
      const Slice& s = t.slices[si];
      const bool api = s.kind == SliceKind::RuntimeApi || s.kind == SliceKind::DriverApi;
      if (const uint32_t correlation = api ? correlation_of(trace, layout, s) : 0)
        calls.try_emplace(key(process_of(t), correlation), SliceRef{ti, si});
    }
  }
  for (uint32_t ti = 0; ti < layout.tracks.size(); ++ti) {
    const Track& t = layout.tracks[ti];
    if (t.kind != TrackKind::Stream) continue;
    for (uint32_t si = 0; si < t.slices.size(); ++si) {
      if (t.slices[si].kind == SliceKind::GraphReplay) continue;  // its nodes have the flows
      const uint32_t correlation = correlation_of(trace, layout, t.slices[si]);
      const auto it = correlation ? calls.find(key(process_of(t), correlation)) : calls.end();
      if (it != calls.end()) layout.flows.push_back({it->second, {ti, si}, correlation});
    }
  }
}

}  // namespace gpuscope::tracks

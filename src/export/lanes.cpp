#include "export/lanes.h"

#include <map>

namespace gpuscope::exporting {

using tracks::GroupKind;
using tracks::TrackKind;

Lanes::Lanes(const tracks::Layout& layout) : layout_(layout) {
  const auto& groups = layout.groups;
  std::map<uint32_t, int> process_pids;  // OS pid -> how many process groups have it
  for (const tracks::Group& g : groups)
    if (g.kind == GroupKind::Process) ++process_pids[g.pid];
  kineto_ = process_pids.size() == 1 && process_pids.begin()->second == 1;
  for (const tracks::Group& g : groups)
    if (g.kind == GroupKind::Device && g.device == g.pid) kineto_ = false;

  pids_.resize(groups.size());
  process_group_.resize(groups.size());
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> process_of;  // (run, pid) -> process group
  for (uint32_t i = 0; i < groups.size(); ++i) {
    const tracks::Group& g = groups[i];
    const int64_t synthetic = kSyntheticId + i;
    if (g.kind == GroupKind::Process) {
      pids_[i] = kineto_ || process_pids[g.pid] == 1 ? int64_t(g.pid) : synthetic;
      process_of[{g.run_id, g.pid}] = i;
      process_group_[i] = i;
    } else {
      pids_[i] = kineto_ ? int64_t(g.device) : synthetic;
      // The layout lists a device after the process that used it, so the process is known.
      process_group_[i] = process_of.at({g.run_id, g.pid});
    }
  }

  first_lane_.assign(layout.tracks.size(), 0);
  for (uint32_t gi = 0; gi < groups.size(); ++gi) {
    int64_t next_synthetic = kSyntheticId;  // tids are per pid, so each group counts its own
    for (uint32_t ti : groups[gi].tracks) {
      const tracks::Track& t = layout.tracks[ti];
      first_lane_[ti] = static_cast<uint32_t>(lanes_.size());
      const uint32_t rows = t.nests ? 1 : t.rows;
      for (uint32_t row = 0; row < rows; ++row) {
        Lane lane{gi, ti, t.nests, row, 0, t.name};
        const bool os_id = row == 0 && (t.kind == TrackKind::Thread || t.kind == TrackKind::Stream);
        lane.tid = os_id ? int64_t(t.kind == TrackKind::Thread ? t.tid : t.stream) : next_synthetic++;
        if (row > 0) lane.name += " (row " + std::to_string(row + 1) + ")";
        lanes_.push_back(std::move(lane));
      }
    }
  }
}

std::string Lanes::label(uint32_t group) const {
  const tracks::Group& g = layout_.groups[group];
  return g.kind == GroupKind::Process ? "CPU" : "GPU " + std::to_string(g.device);
}

uint32_t Lanes::lane_of(uint32_t track, uint32_t row) const {
  return layout_.tracks[track].nests ? first_lane_[track] : first_lane_[track] + row;
}

}  // namespace gpuscope::exporting

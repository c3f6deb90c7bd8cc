// The ids both exports give the layout's lanes (docs/export.md, "Lanes and pids").
//
// Trace viewers key lanes by (pid, tid). PyTorch's profiler (Kineto) writes CPU work under the
// OS pid and tid and GPU work under pid = device ordinal, tid = stream id; torch tools expect
// that. It is ambiguous as soon as two processes share a GPU ordinal (or a bench capture holds
// the same program several times), so:
//
//  - one process in the export, and no GPU ordinal equal to its pid: Kineto's scheme;
//  - otherwise every GPU group gets its own pid, kSyntheticId + its group index, and a process
//    keeps its OS pid unless another group of the export has the same one (pid reuse across
//    bench runs), when it gets a synthetic pid too.
//
// Within a group, a thread's lane keeps its OS tid and a stream's lane its stream id. A track
// whose rows do not nest (Track::nests false) becomes one lane per row, so a viewer that nests
// slices by time cannot put one inside another it does not contain; rows after the first, and
// lanes with no OS id (NVTX start/end ranges, profiler overhead), get synthetic tids.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gpuscope/tracks.h"

namespace gpuscope::exporting {

// Above any Linux pid or tid (pid_max is at most 2^22 = 4194304); Kineto's kExceedMaxPid.
inline constexpr int64_t kSyntheticId = 5000000;

struct Lane {
  uint32_t group = 0;    // index into Layout::groups
  uint32_t track = 0;    // index into Layout::tracks
  bool all_rows = true;  // the whole (nesting) track; false: only `row`
  uint32_t row = 0;
  int64_t tid = 0;
  std::string name;  // the track's name; "stream 7 (row 2)" for a row after the first
  bool holds(const tracks::Slice& s) const { return all_rows || s.row == row; }
};

class Lanes {
 public:
  explicit Lanes(const tracks::Layout& layout);

  int64_t pid(uint32_t group) const { return pids_[group]; }
  // Kineto's process_labels: "CPU" for a process, "GPU 0" for a device.
  std::string label(uint32_t group) const;
  // For a device group, the group of the process that used it; a process group: itself.
  uint32_t process_group(uint32_t group) const { return process_group_[group]; }

  const std::vector<Lane>& all() const { return lanes_; }  // groups in layout order, then lanes
  // The lane a slice of `track` in row `row` lies in (an index into all()).
  uint32_t lane_of(uint32_t track, uint32_t row) const;
  // The lane of a track's marks and of its first row.
  uint32_t first_lane(uint32_t track) const { return first_lane_[track]; }

 private:
  const tracks::Layout& layout_;
  bool kineto_ = false;
  std::vector<int64_t> pids_;            // by group
  std::vector<uint32_t> process_group_;  // by group
  std::vector<Lane> lanes_;
  std::vector<uint32_t> first_lane_;  // by track
};

}  // namespace gpuscope::exporting

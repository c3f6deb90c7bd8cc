// The CUDA graph replays of a trace, for layout_tracks() (GraphReplay in tracks.h).
#pragma once

#include <optional>
#include <vector>

#include "gpuscope/tracks.h"

namespace gpuscope::tracks {

// Where one replay's timed nodes ran: per (device, stream), its first node start to last node end.
struct ReplayOnStream {
  uint32_t device = 0, stream = 0;
  TimeNs start = 0, end = 0;
};
struct ReplayPlaces {
  GraphReplay replay;
  std::vector<ReplayOnStream> streams;  // by device, then stream
};

// Every replay of the trace (of bench run `run_id` only, when given), ordered by run, pid, graph
// id and first node start, with its ordinal and its graph's count of replays.
std::vector<ReplayPlaces> graph_replays(const Trace& trace, std::optional<uint32_t> run_id);

}  // namespace gpuscope::tracks

// The second half of layout_tracks() (tracks.cpp): once every slice is on its track, rows,
// the order of groups and tracks, and the flows that join launch calls to their GPU work.
#pragma once

#include "gpuscope/tracks.h"

namespace gpuscope::tracks {

// Sorts a track's slices (start, then longer first) and marks, and puts each slice in the
// lowest row that is free; sets rows and nests.
void pack_rows(Track& track);

// Each process, then its devices by ordinal; in a group, threads by tid, then NVTX ranges and
// overhead, streams by id. Renumbers every index to a group.
void order_groups(Layout& layout);

// One flow per GPU slice whose process (its group: a bench run's pids and correlation ids can
// come back in another run) has an API call with the same correlation id.
void add_flows(const Trace& trace, Layout& layout);

}  // namespace gpuscope::tracks

// Re-timing a run "as if the fix were applied": replays the main thread's CUDA
// calls in order with the host work between them kept as recorded, lets the GPU
// work they issued queue per (device, stream), and makes blocking calls wait for
// the work they waited for. A scenario changes some call or copy durations; the
// saving is the replay's end without changes minus its end with them, so model
// error common to both cancels. Limits (docs/rules.md): other threads' and
// processes' work is not replayed; a synchronization waits for all work the
// thread issued so far (device-wide), which is exact for cudaDeviceSynchronize
// and an upper bound of the wait for stream/event syncs.
#pragma once

#include <unordered_map>
#include <vector>

#include "gpuscope/analysis_timeline.h"
#include "gpuscope/model.h"

namespace gpuscope::analysis {

// A sequence of launch calls replaced by one CUDA graph replay: the first call of
// `calls` becomes the cudaGraphLaunch (host_ns on the host), the others and the host
// work between them disappear (a replayed graph runs no host code per node). The
// first node starts first_node_ns after the graph launch call starts; each later node
// starts node_gap_ns after the previous node ends (kernel durations as recorded).
struct GraphReplay {
  std::vector<size_t> calls;  // trace.api_calls indices, in call order
  TimeNs host_ns = 0;
  TimeNs first_node_ns = 0;
  TimeNs node_gap_ns = 0;
};

struct Scenario {
  std::unordered_map<size_t, TimeNs> api_ns;     // trace.api_calls index -> new host duration (0: call removed)
  std::unordered_map<size_t, TimeNs> memcpy_ns;  // trace.memcpys index -> new GPU duration
  // trace.memcpys index -> new host time a synchronous copy's call spends after the copy ends
  // (a pageable copy's last staging chunk; pinned copies return almost at once).
  std::unordered_map<size_t, TimeNs> memcpy_post_ns;
  std::vector<GraphReplay> graphs;
  bool drops_wait(size_t api_index) const { return api_ns.count(api_index) != 0; }
};

// ns the scenario saves on the thread's timeline (never negative).
TimeNs retime_saving(const Trace& trace, const MainThread& thread, const Scenario& scenario);

}  // namespace gpuscope::analysis

// Re-timing a run "as if the fix were applied": replays the main thread's CUDA
// calls in order with the host work between them kept as recorded, lets the GPU
// work they issued queue per (device, stream), and makes blocking calls wait for
// the work they waited for. A scenario changes some call or copy durations; the
// saving is the replay's end without changes minus its end with them, so model
// error common to both cancels. Limits (docs/rules.md): other threads' and
// processes' work is not replayed; a synchronization waits for all work the
// thread issued so far (device-wide), which is exact for cudaDeviceSynchronize
// and an upper bound of the wait for stream/event syncs. Work that waited on
// another stream (cudaStreamWaitEvent) keeps its recorded start behind that
// stream, unless the replay is asked to follow stream waits (RetimeOptions).
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analysis/timeline_util.h"
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
  std::unordered_map<size_t, TimeNs> kernel_ns;  // trace.kernels index -> new GPU duration (0: work gone)
  // trace.memcpys index -> new host time a synchronous copy's call spends after the copy ends
  // (a pageable copy's last staging chunk; pinned copies return almost at once).
  std::unordered_map<size_t, TimeNs> memcpy_post_ns;
  std::vector<GraphReplay> graphs;
  // What a critical path's segments shrink (critical_path.cpp). Correlation id -> new GPU-side
  // gap before the work of that launch (behind its call, its stream or the stream it waited on).
  std::unordered_map<uint32_t, TimeNs> latency_ns;
  std::unordered_map<size_t, TimeNs> host_gap_ns;   // trace.api_calls index -> new host time before the call
  std::unordered_map<size_t, TimeNs> sync_tail_ns;  // synchronization's api index -> new host time after the GPU work
  std::unordered_map<size_t, TimeNs> memset_ns;     // trace.memsets index -> new GPU duration
  std::optional<TimeNs> tail_ns;                    // saving_within(): new host time after the window's last call
};

struct RetimeOptions {
  // Replay cudaStreamWaitEvent: work that waited on another stream starts after the replayed end
  // of the work it waited for (StreamWaits), not at its recorded offset behind its own stream;
  // and the calls that do not block the host (stream waits, queries) are not replayed as
  // synchronizations.
  bool follow_stream_waits = false;
  // saving_within() and end_within() will be asked: keep, per stream, how long the work launched
  // before each call holds it (a step replayed alone starts behind it). The rules' whole-thread
  // replay needs none of it.
  bool step_windows = false;
};

// One thread's replay, prepared once (its calls in order, the GPU work each issued, the
// recorded latencies) with its unchanged end; each saving() then replays one scenario.
// Sorted arrays, not maps: a launch storm has a million calls and ops, replayed per rule.
class Retimer {
 public:
  Retimer(const Trace& trace, const MainThread& thread, RetimeOptions options = {});
  // ns the scenario saves on the thread's timeline (never negative).
  TimeNs saving(const Scenario& scenario) const;
  // ns the scenario saves on the time a step is done, replaying only the thread's calls that
  // start in [from, until) (one step): the later of the host time the thread reaches `until`
  // and the end of the GPU work those calls launched. The GPU work of earlier calls holds its
  // streams until its recorded end.
  TimeNs saving_within(const Scenario& scenario, TimeNs from, TimeNs until) const;
  // The replayed time the step is done that saving_within() compares: to replay the unchanged step once.
  TimeNs end_within(const Scenario& scenario, TimeNs from, TimeNs until) const;
  // Whether GPU work of this correlation id is replayed (its launch call is one of the thread's
  // replayed calls); a scenario's change to other work changes nothing.
  bool replays(uint32_t correlation_id) const {
    return std::binary_search(replayed_ids_.begin(), replayed_ids_.end(), correlation_id);
  }
  // GPU operations (kernels, copies, memsets) the call at this trace.api_calls index issued: the
  // nodes it becomes in a CUDA graph. A query (cudaGetDevice, cudaPeekAtLastError) becomes none.
  size_t gpu_ops(size_t api_index) const {
    const auto [lo, hi] = ops_of(api_index);
    return static_cast<size_t>(hi - lo);
  }

 private:
  static constexpr uint32_t kNoCopy = UINT32_MAX;
  struct Op {
    TimeNs duration = 0;  // as recorded
    TimeNs latency = 0;   // start - max(call start, previous op end on its queue), as recorded
    TimeNs post = 0;      // blocking copy: call end - op end (host work after the copy)
    uint32_t correlation_id = 0;
    uint32_t queue = 0;               // index of its (device, stream) in the replay's ready times
    uint32_t memcpy_index = kNoCopy;  // into trace.memcpys
    uint32_t kernel_index = kNoCopy;  // into trace.kernels
    uint32_t memset_index = kNoCopy;  // into trace.memsets
    uint32_t after = kNoCopy;         // the op in ops_ it waited for on another stream (follow_stream_waits)
    TimeNs end = 0;                   // as recorded
    bool waited_on = false;           // another op's `after`
    bool blocking = false;            // a synchronous copy/memset, or a copy of pageable memory: its call waits for it
  };
  struct Call {
    TimeNs start = 0, end = 0;
    size_t api_index = 0;  // into trace.api_calls
    uint32_t correlation_id = 0;
    uint32_t ops_begin = 0, ops_end = 0;  // the ops of its correlation id, in ops_
    bool sync = false;                    // a synchronization call
  };
  using OpRange = std::pair<std::vector<Op>::const_iterator, std::vector<Op>::const_iterator>;

  static constexpr TimeNs kNoLimit = std::numeric_limits<TimeNs>::max();
  void prepare_ops(uint32_t pid, const LastByKey<uint32_t, Interval>& call_times, bool follow_stream_waits);
  void prepare_seeds();
  OpRange ops_of(size_t api_index) const;
  static TimeNs op_duration(const Op& op, const Scenario& s);
  // The replay's end: the host's, and the latest end of the GPU work the replayed calls launched.
  struct Ends {
    TimeNs host = 0;
    TimeNs gpu = std::numeric_limits<TimeNs>::min();
  };
  Ends replay_end(const Scenario& s, TimeNs from = std::numeric_limits<TimeNs>::min(), TimeNs until = kNoLimit) const;
  TimeNs replay_graph(const Scenario& s, const GraphReplay& g, TimeNs start, std::vector<TimeNs>& ready,
                      TimeNs& all_ready, TimeNs& launched_end) const;

  const Trace& trace_;
  std::vector<Call> calls_;         // by start
  std::vector<uint32_t> position_;  // trace.api_calls index -> index in calls_ (UINT32_MAX: not replayed)
  std::vector<Op> ops_;             // by correlation id, then start
  size_t queues_ = 0;
  std::vector<TimeNs> op_ends_;  // sorted, for sync waits
  TimeNs unchanged_end_ = 0;
  std::vector<uint32_t> replayed_ids_;  // correlation ids of calls_, sorted
  // Per queue, its ops by their call's start: (call start, latest recorded end so far), so that a
  // window's replay starts with each stream busy until the work issued before it ends.
  std::vector<std::vector<std::pair<TimeNs, TimeNs>>> seeds_;
};

}  // namespace gpuscope::analysis

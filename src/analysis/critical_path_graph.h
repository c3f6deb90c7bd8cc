// What critical_path_walk.cpp and critical_path.cpp share: one process's dependency graph (its
// CUDA calls per thread, its GPU work per stream, which call launched which work, the stream
// waits) and the matched collectives across ranks, and the walk's raw segments. Times in ns.
#pragma once

#include <cstdint>
#include <map>
#include <unordered_map>
#include <vector>

#include "analysis/stream_waits.h"
#include "gpuscope/analysis_critical_path.h"

namespace gpuscope::analysis::path_detail {

inline constexpr uint32_t kNone = UINT32_MAX;

enum class OpTable : uint8_t { Kernel, Memcpy, Memset };

struct GpuOp {
  TimeNs start = 0, end = 0;
  uint64_t queue = 0;  // queue_of(device, stream)
  uint32_t stream = 0;
  SegmentKind kind = SegmentKind::Kernel;  // Kernel, Copy or Collective
  OpTable table = OpTable::Kernel;
  uint32_t index = 0;  // into its trace table
  uint32_t correlation_id = 0;
  bool blocking = false;          // its call waits for it (a synchronous or pageable copy, a synchronous memset)
  uint32_t prev = kNone;          // the op before it on its queue, by start
  std::vector<uint64_t> matched;  // a collective: its operation's kernels on the other ranks (op_ref)
};

struct ProcessGraph {
  ProcessGraph(const Trace& trace, uint32_t pid, int32_t rank);
  uint32_t pid = 0;
  int32_t rank = -1;
  std::vector<GpuOp> ops;                                        // by start
  TimeNs longest_ns = 0;                                         // the longest op's duration
  std::vector<EndedOp> by_end;                                   // ops by end (id: index into ops)
  std::unordered_map<uint32_t, size_t> call_of;                  // correlation id -> trace.api_calls index
  std::unordered_map<uint32_t, std::vector<uint32_t>> work_of;   // correlation id -> its ops
  std::map<uint32_t, std::vector<size_t>> thread_calls;          // tid -> its calls (one API domain) by start
  std::unordered_map<uint32_t, const Synchronization*> sync_of;  // correlation id -> its synchronization record
  std::vector<std::pair<TimeNs, uint32_t>> by_launch;            // (its launch call's start, op), sorted
  StreamWaits waits;
  std::vector<uint32_t> streams;  // that ran its work, sorted; a synchronization on another is on an unknown one
  // The ops that ran in [from, to) (start before `to`, end after `from`), as a range of `ops`
  // that may hold some that ended before `from`: those that start after from - longest_ns.
  std::pair<size_t, size_t> ops_around(TimeNs from, TimeNs to) const;
  // Of the work launched by calls that started in [from, to), the op that ended last; kNone if none.
  uint32_t last_launched(TimeNs from, TimeNs to) const;
  // The launch call of an op (trace.api_calls index), or nullptr when the capture has none.
  const ApiCall* call_of_op(const Trace& trace, uint32_t op) const;
  // The other stream's op that op `op` waited for (cudaStreamWaitEvent): when a wait was put on its
  // stream between its previous work's launch and its own, the other stream's op that ended last
  // before it started; kNone otherwise.
  uint32_t waited_for(const Trace& trace, uint32_t op) const;
};

// An op of one of the graphs: (graph << 32) | op.
inline uint64_t op_ref(size_t graph, uint32_t op) { return (static_cast<uint64_t>(graph) << 32) | op; }

// Links each matched collective kernel to its operation's kernels on the other ranks
// (GpuOp::matched); false when nothing matched.
bool link_collectives(const Trace& trace, std::vector<ProcessGraph>& graphs);

// A segment as walked, with what re-timing it needs to know.
struct WalkedSegment {
  PathSegment segment;
  size_t graph = 0;            // index of its process's graph
  uint32_t tid = 0;            // host segments: the thread
  uint32_t op = kNone;         // GPU segments: the op; launch latency and GPU-side waits: the op after it
  size_t call = SIZE_MAX;      // a wait on the host: the blocking call (trace.api_calls index)
  TimeNs lead_ns = INT64_MAX;  // at the collective the walk crossed last before it: the last rank's lead
};

// Walks back to `stop` from the end of op `op` of the graph, or with op kNone from host time
// `end` on thread tid: the segments, in time order.
std::vector<WalkedSegment> walk_back(const Trace& trace, const std::vector<ProcessGraph>& graphs, size_t graph,
                                     uint32_t tid, uint32_t op, TimeNs stop, TimeNs end);

}  // namespace gpuscope::analysis::path_detail

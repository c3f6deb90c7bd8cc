// Work that waited on another stream. cudaStreamWaitEvent makes a stream's next work wait for the
// work recorded before an event on another stream. A capture has the wait (a synchronization of
// kind StreamWaitEvent on the waiting stream, timed by its call) but not the event's record, so
// the work waited for is taken to be the other stream's work that ended last before the waiting
// work started: the one that released it. Shared by the re-timing (retime.h) and the critical
// path (critical_path.cpp) so that both see the same dependencies. A source without
// synchronization records (torch.profiler traces) cannot show the waits: any work may then have
// waited on another stream, and the other stream's work counts where it ended last. A wait
// recorded on a stream that ran none of the process's work (a capture that could not tell the
// stream writes 0) may have been put on any of its streams. Times in ns.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "gpuscope/model.h"

namespace gpuscope::analysis {

class StreamWaits {
 public:
  StreamWaits(const Trace& trace, uint32_t pid);
  // Whether a wait for an event was put on `stream` by a call that started in [from, to): between
  // the launch of the stream's previous work and the launch of the work in question.
  bool waited(uint32_t stream, TimeNs from, TimeNs to) const;
  bool empty() const { return waits_.empty() && !unknown_; }

 private:
  static constexpr uint32_t kAnyStream = UINT32_MAX;
  bool waited_on(uint32_t stream, TimeNs from, TimeNs to) const;
  std::vector<std::pair<uint32_t, TimeNs>> waits_;  // (stream or kAnyStream, call start), sorted
  bool unknown_ = false;                            // the source records no synchronizations
};

// One GPU operation by the time it ended, on its queue (device, stream).
struct EndedOp {
  TimeNs end = 0;
  uint64_t queue = 0;
  uint32_t id = 0;  // the caller's index of it
};

// The op of another queue that ended last at or before `t`, or nullptr; `by_end` sorted by end.
// Looks back over at most kStreamWaitLookback ops: the streams of one process are few.
inline constexpr size_t kStreamWaitLookback = 64;
const EndedOp* last_ended_elsewhere(const std::vector<EndedOp>& by_end, uint64_t queue, TimeNs t);

inline uint64_t queue_of(uint32_t device, uint32_t stream) { return (static_cast<uint64_t>(device) << 32) | stream; }

}  // namespace gpuscope::analysis

// Work that waited on another stream (see stream_waits.h).
#include "analysis/stream_waits.h"

#include <algorithm>

namespace gpuscope::analysis {

StreamWaits::StreamWaits(const Trace& trace, uint32_t pid) : unknown_(trace.lacks(kGapSynchronization)) {
  for (const Synchronization& s : trace.synchronizations)
    if (s.pid == pid && s.kind == SyncKind::StreamWaitEvent) waits_.emplace_back(s.stream, s.start);
  std::sort(waits_.begin(), waits_.end());
}

bool StreamWaits::waited(uint32_t stream, TimeNs from, TimeNs to) const {
  if (unknown_) return true;
  const auto it = std::lower_bound(waits_.begin(), waits_.end(), std::pair{stream, from});
  return it != waits_.end() && it->first == stream && it->second < to;
}

const EndedOp* last_ended_elsewhere(const std::vector<EndedOp>& by_end, uint64_t queue, TimeNs t) {
  auto it = std::upper_bound(by_end.begin(), by_end.end(), t, [](TimeNs v, const EndedOp& op) { return v < op.end; });
  for (size_t looked = 0; it != by_end.begin() && looked < kStreamWaitLookback; ++looked) {
    --it;
    if (it->queue != queue) return &*it;
  }
  return nullptr;
}

}  // namespace gpuscope::analysis

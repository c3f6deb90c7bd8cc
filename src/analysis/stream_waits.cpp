// Work that waited on another stream (see stream_waits.h).
#include "analysis/stream_waits.h"

#include <algorithm>

namespace gpuscope::analysis {

StreamWaits::StreamWaits(const Trace& trace, uint32_t pid) : unknown_(trace.lacks(kGapSynchronization)) {
  for (const Synchronization& s : trace.synchronizations)
    if (s.pid == pid && s.kind == SyncKind::StreamWaitEvent) waits_.emplace_back(s.stream, s.start);
  if (waits_.empty()) return;
  std::vector<uint32_t> streams;  // that ran the process's work; a handful
  auto add = [&](const auto& rows) {
    for (const auto& r : rows)
      if (r.pid == pid && std::find(streams.begin(), streams.end(), r.stream) == streams.end())
        streams.push_back(r.stream);
  };
  add(trace.kernels), add(trace.memcpys), add(trace.memsets);
  for (auto& [stream, start] : waits_)
    if (std::find(streams.begin(), streams.end(), stream) == streams.end()) stream = kAnyStream;
  std::sort(waits_.begin(), waits_.end());
}

bool StreamWaits::waited_on(uint32_t stream, TimeNs from, TimeNs to) const {
  const auto it = std::lower_bound(waits_.begin(), waits_.end(), std::pair{stream, from});
  return it != waits_.end() && it->first == stream && it->second < to;
}

bool StreamWaits::waited(uint32_t stream, TimeNs from, TimeNs to) const {
  return unknown_ || waited_on(stream, from, to) || waited_on(kAnyStream, from, to);
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

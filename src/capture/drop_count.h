// Records dropped on the program's threads: counted there (lock-free), written by the writer
// thread as a Loss record of what was lost since its last write, so a crash keeps the count so far.
#pragma once

#include <atomic>
#include <cstdint>

#include "capture/record_sink.h"
#include "spool/format.h"

namespace gpuscope::capture {

class DropCount {
 public:
  void add() { dropped_.fetch_add(1, std::memory_order_relaxed); }

  // On the writer thread: `what` names the loss, `detail` says it in a sentence.
  void write(RecordSink& out, const char* what, const char* detail) {
    const uint64_t dropped = dropped_.load(std::memory_order_relaxed);
    if (dropped == written_) return;
    out.add(spool::RecordKind::Loss, spool::LossRecord{dropped - written_, out.intern(what), out.intern(detail)});
    written_ = dropped;
  }

 private:
  std::atomic<uint64_t> dropped_{0};
  uint64_t written_ = 0;  // writer thread only
};

}  // namespace gpuscope::capture

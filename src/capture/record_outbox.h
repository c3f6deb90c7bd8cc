// A bounded queue of spool records from the program's threads to the writer thread: push() from
// a callback (a mutex, a vector), drain() on the writer thread, which writes the records and a Loss
// record for those dropped since its last drain (the queue full: a stalled writer). For records
// made rarely enough that a lock per record costs the program nothing measurable (NCCL's calls,
// CUDA graph nodes); per-call records use per-thread rings (thread_rings.h).
#pragma once

#include <cstddef>
#include <mutex>
#include <vector>

#include "capture/drop_count.h"
#include "capture/record_sink.h"
#include "spool/format.h"

namespace gpuscope::capture {

template <class Record, spool::RecordKind kKind>
class RecordOutbox {
 public:
  // `loss_what`, `loss_detail`: the Loss record's name and sentence for dropped records.
  RecordOutbox(size_t max_pending, const char* loss_what, const char* loss_detail)
      : max_pending_(max_pending), loss_what_(loss_what), loss_detail_(loss_detail) {}

  void push(const Record& record) {
    std::lock_guard lock(mutex_);
    if (pending_.size() >= max_pending_) {
      dropped_.add();
      return;
    }
    pending_.push_back(record);
  }

  void drain(RecordSink& sink) {
    std::vector<Record> records;
    {
      std::lock_guard lock(mutex_);
      records.swap(pending_);
    }
    for (const Record& r : records) sink.add(kKind, r);
    dropped_.write(sink, loss_what_, loss_detail_);
  }

 private:
  const size_t max_pending_;
  const char* const loss_what_;
  const char* const loss_detail_;
  std::mutex mutex_;
  std::vector<Record> pending_;
  DropCount dropped_;
};

}  // namespace gpuscope::capture

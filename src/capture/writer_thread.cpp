#include "capture/writer_thread.h"

#include "capture/failed_calls.h"
#include "capture/log.h"
#include "capture/process_info.h"
#include "capture/threads.h"

namespace gpuscope::capture {

WriterThread::WriterThread(BufferPool& pool, std::unique_ptr<SpoolWriter> spool, WriterHooks hooks)
    : pool_(pool),
      spool_(std::move(spool)),
      hooks_(std::move(hooks)),
      decoder_(*spool_, DecoderHooks{hooks_.api_name, hooks_.enrich_device, is_own_thread}) {}

WriterThread::~WriterThread() {
  if (thread_.joinable()) stop_and_join();
}

bool WriterThread::start() {
  try {
    thread_ = start_quiet_thread("gpuscope-write", [this] { run(); });
    return true;
  } catch (...) {
    return false;
  }
}

void WriterThread::stop_and_join() {
  pool_.close();
  if (thread_.joinable()) thread_.join();
}

void WriterThread::run() {
  // Nothing may escape this thread: an exception here would call std::terminate
  // and take the program down with it.
  try {
    const uint32_t tid = current_thread_id();
    thread_id_.store(tid, std::memory_order_release);
    if (hooks_.on_start) {
      hooks_.on_start(*spool_);
      flush_chunk();
    }
    for (;;) {
      FilledBuffer filled;
      const BufferPool::Pop got = pool_.pop_filled(filled, hooks_.idle_wait);
      if (got == BufferPool::Pop::Closed) break;
      if (got == BufferPool::Pop::Got) {
        process(filled);
        drain_outboxes();
        flush_chunk();
      } else {
        // Idle: metric results and losses counted outside buffers (refused requests)
        // still get written.
        drain_outboxes();
        update_losses();
        if (refused_.total != refused_.written || spool_->pending_records() > 0 || takeover_pending()) flush_chunk();
      }
    }
    finish();
  } catch (...) {
    log_line("internal error in the spool writer; capture stopped, the program continues");
    // Keep recycling buffers so CUPTI is never starved because of us.
    for (;;) {
      FilledBuffer filled;
      const BufferPool::Pop got = pool_.pop_filled(filled, hooks_.idle_wait);
      if (got == BufferPool::Pop::Closed) break;
      if (got == BufferPool::Pop::Got) pool_.release(filled.data, filled.valid_bytes);
    }
    spool_->close();
  }
  finished_.store(true, std::memory_order_release);
}

void WriterThread::process(const FilledBuffer& filled) {
  cupti_dropped_ += filled.dropped;
  if (filled.valid_bytes > 0 && spool_->ok()) {
    decoder_.decode_buffer(filled.data, filled.valid_bytes, hooks_.next_record);
  }
  pool_.release(filled.data, filled.valid_bytes);
}

void WriterThread::update_losses() {
  dropped_.total = cupti_dropped_;
  refused_.total = pool_.stats().refused;
  incomplete_.total = decoder_.stats().incomplete_buffers;
  no_timestamps_.total = decoder_.stats().missing_timestamps;
  if (hooks_.metrics != nullptr) metric_values_.total = hooks_.metrics->dropped();
}

void WriterThread::drain_outboxes() {
  if (hooks_.metrics != nullptr && spool_->ok()) hooks_.metrics->drain(*spool_);
  for (const auto& drain : hooks_.outboxes)
    if (spool_->ok()) drain(*spool_);
  if (hooks_.drain_api_records && spool_->ok()) hooks_.drain_api_records(*spool_, api_namer());
}

void WriterThread::append_loss_deltas() {
  update_losses();
  for (LossCounter* loss : {&dropped_, &refused_, &incomplete_, &no_timestamps_, &metric_values_}) {
    if (loss->total == loss->written) continue;
    spool::LossRecord record{};
    record.count = loss->total - loss->written;
    record.what = spool_->intern(loss->what);
    record.detail = spool_->intern(loss->detail);
    spool_->add(spool::RecordKind::Loss, record);
    loss->written = loss->total;
  }
  for (const FailedCall& failed : failed_calls()) {
    uint64_t& written = failed_calls_written_[failed.what];
    if (failed.count == written) continue;
    spool_->add(spool::RecordKind::Loss,
                spool::LossRecord{failed.count - written, spool_->intern(failed.what), spool_->intern(failed.detail)});
    written = failed.count;
  }
  if (takeover_pending()) {
    spool::LossRecord record{};
    record.count = 1;
    record.what = spool_->intern("cupti_taken_over");
    record.detail = spool_->intern(hooks_.cupti_takeover());
    spool_->add(spool::RecordKind::Loss, record);
    takeover_written_ = true;
  }
}

bool WriterThread::takeover_pending() const {
  return !takeover_written_ && hooks_.cupti_takeover && !hooks_.cupti_takeover().empty();
}

void WriterThread::flush_chunk() {
  append_loss_deltas();
  if (!spool_->flush() && !reported_write_error_) {
    reported_write_error_ = true;
    log_line("%s; capture stops here, the program continues", spool_->error().c_str());
  }
}

void WriterThread::finish() {
  drain_outboxes();
  if (hooks_.on_finish) {
    try {
      hooks_.on_finish(*spool_, api_namer());
    } catch (...) {
      log_line("could not write the end-of-capture records (API counts, capture windows)");
    }
  }
  append_loss_deltas();
  spool::EndRecord end{};
  end.end_ns = realtime_ns();
  end.records_written = spool_->records_written() + spool_->pending_records();
  end.records_dropped = spool_->records_lost();  // ours only; CUPTI's are in the Loss records
  spool_->finish(end);
  if (!spool_->ok() && !reported_write_error_) {
    reported_write_error_ = true;
    log_line("%s; the capture is incomplete", spool_->error().c_str());
  }
}

}  // namespace gpuscope::capture

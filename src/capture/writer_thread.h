// The one thread that turns CUPTI buffers into spool chunks.
//
// It pops filled buffers from the BufferPool, decodes them (ActivityDecoder -> the
// SpoolWriter, which interns strings), recycles each buffer, and writes a chunk after
// every buffer so data reaches the file within one CUPTI flush of being recorded.
// Data loss becomes Loss records: each chunk carries the losses counted since the
// previous one (deltas; a reader sums them).
//
// Stop: BufferPool::close() (done by stop_and_join()) makes the loop drain what is
// queued, write the final losses and the End record, and close the file.
//
// Everything here is CUDA-free (CUPTI calls come in as function pointers), so tests run
// the whole path - queue, decode, chunking, losses, End - on a CPU.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "capture/activity_decoder.h"
#include "capture/buffer_pool.h"
#include "capture/metrics_outbox.h"
#include "capture/spool_writer.h"

namespace gpuscope::capture {

struct WriterHooks {
  NextRecordFn next_record = nullptr;  // cuptiActivityGetNextRecord
  ApiNameFn api_name = nullptr;        // cuptiGetCallbackName, wrapped
  DeviceEnrichFn enrich_device = nullptr;
  // Runs first, on the writer thread, with the spool: a place for records whose
  // inputs are best gathered off the program's threads (the Process record).
  std::function<void(SpoolWriter&)> on_start;
  // Runs last, on the writer thread, before the End record: records only known at the end
  // (the lean trace's API counts, capture windows). `api_name_id` names an API function as the
  // Api records do.
  std::function<void(SpoolWriter&, const std::function<uint32_t(CUpti_CallbackDomain, uint32_t)>& api_name_id)>
      on_finish;
  // Metric results from the range profiler and PM sampling (may be null): drained into
  // the spool on every turn of the loop and at the end.
  MetricsOutbox* metrics = nullptr;
  // The records the program's threads hand over (NCCL's calls, CUDA graph nodes, PyTorch's ops):
  // each drains its own into the spool, like the metrics.
  std::vector<std::function<void(SpoolWriter&)>> outboxes;
  // How long the loop waits for a buffer before it drains the outboxes anyway.
  std::chrono::milliseconds idle_wait{250};
  // API records of the core trace (api_recorder.h; may be empty): drained like the metrics, with
  // `api_name_id` to name their functions.
  std::function<void(SpoolWriter&, const std::function<uint32_t(CUpti_CallbackDomain, uint32_t)>& api_name_id)>
      drain_api_records;
  // Once another CUPTI client in the process took the activity callbacks: a line saying
  // when (written once, as a `cupti_taken_over` Loss record); empty until then. May be null.
  std::function<std::string()> cupti_takeover;
};

class WriterThread {
 public:
  WriterThread(BufferPool& pool, std::unique_ptr<SpoolWriter> spool, WriterHooks hooks);
  ~WriterThread();
  WriterThread(const WriterThread&) = delete;
  WriterThread& operator=(const WriterThread&) = delete;

  // Starts the thread; false if it could not be created (the caller fails open).
  bool start();
  // Closes the pool, lets the thread drain and finish the spool, joins it.
  void stop_and_join();
  // The loop itself, on the calling thread (tests; start() runs it on a new thread).
  void run();

  bool finished() const { return finished_.load(std::memory_order_acquire); }
  uint32_t thread_id() const { return thread_id_.load(std::memory_order_acquire); }

 private:
  struct LossCounter {
    const char* what;
    const char* detail;
    uint64_t total = 0;
    uint64_t written = 0;
  };
  void process(const FilledBuffer& filled);
  void update_losses();
  void append_loss_deltas();
  void drain_outboxes();
  // Names an API function as the decoder's Api records do (for records made outside buffers).
  auto api_namer() {
    return [this](CUpti_CallbackDomain domain, uint32_t cbid) { return decoder_.api_name_id(domain, cbid); };
  }
  bool takeover_pending() const;
  void flush_chunk();
  void finish();

  BufferPool& pool_;
  std::unique_ptr<SpoolWriter> spool_;
  WriterHooks hooks_;
  ActivityDecoder decoder_;
  std::thread thread_;
  std::atomic<uint32_t> thread_id_{0};
  std::atomic<bool> finished_{false};
  bool reported_write_error_ = false;
  bool takeover_written_ = false;
  uint64_t cupti_dropped_ = 0;

  LossCounter dropped_{"cupti_dropped_records", "records CUPTI dropped for lack of buffer space"};
  LossCounter refused_{"activity_buffer_requests_refused",
                       "CUPTI asked for a buffer while the buffer memory bound was reached"};
  LossCounter incomplete_{"cupti_incomplete_buffers",
                          "buffers whose records could not all be read (cuptiActivityGetNextRecord returned "
                          "CUPTI_ERROR_INVALID_KIND: an incomplete record)"};
  LossCounter no_timestamps_{"cupti_missing_timestamps", "GPU records without start or end time"};
  LossCounter metric_values_{"metric_values_dropped",
                             "metric values dropped because the writer fell behind (outbox full)"};
  std::map<std::string, uint64_t> failed_calls_written_;  // failed_calls.h counts already written
};

}  // namespace gpuscope::capture

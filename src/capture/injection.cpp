// Entry points of libgpuscope_inject.so and the glue between CUPTI and the writer.
//
//   InitializeInjection       called by libcuda during cuInit (CUDA_INJECTION64_PATH)
//   InitializeInjectionNvtx2  called by each NVTX copy in the process (NVTX_INJECTION64_PATH);
//                             forwarded to libcupti so CUPTI sees NVTX and makes MARKER records
//
// Threads and who owns what:
//   program / CUPTI threads  run on_buffer_requested / on_buffer_completed: take or queue a
//                            buffer (BufferPool), read CUPTI's dropped count, return. Nothing else.
//   gpuscope-write           the WriterThread: owns the SpoolWriter once started, decodes, writes.
//   gpuscope-flush           PeriodicFlusher: cuptiActivityFlushAll(0) every flush_ms.
//   the exiting thread       on_exit(): stop the flusher, force CUPTI's last buffers out, let the
//                            writer drain and write End, join it.
//   a program thread         on_cupti_takeover(), through libgpuscope_preload.so, when the
//                            program's own CUPTI client (torch.profiler) registers its buffer
//                            callbacks: take our buffers back, stop flushing for good.
//
// Fail open: every failure prints one "gpuscope: ..." line, records the reason in the spool
// when one is open (CaptureStatus), and leaves the program alone. InitializeInjection
// always returns 1 (0 would make the driver report an injection failure).
//
// The Capture object is created once and never freed: CUPTI can call us during process
// teardown, after static destructors would have run.
#include <cupti.h>
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>

#include "capture/api_filter.h"
#include "capture/api_recorder.h"
#include "capture/buffer_pool.h"
#include "capture/callback_hub.h"
#include "capture/capture_range.h"
#include "capture/config.h"
#include "capture/cupti_loader.h"
#include "capture/cupti_session.h"
#include "capture/driver_probe.h"
#include "capture/failed_calls.h"
#include "capture/gpm_sampler.h"
#include "capture/gpu_sampler.h"
#include "capture/graph_nodes.h"
#include "capture/kernel_profiler.h"
#include "capture/log.h"
#include "capture/nccl_calls.h"
#include "capture/pc_sampler.h"
#include "capture/periodic_flusher.h"
#include "capture/preload_link.h"
#include "capture/process_info.h"
#include "capture/spool_writer.h"
#include "capture/sync_flush.h"
#include "capture/torch_ops.h"
#include "capture/writer_thread.h"

#define GPUSCOPE_EXPORT extern "C" __attribute__((visibility("default")))

namespace gpuscope::capture {
namespace {

// How long a buffer request may wait for the writer to recycle a buffer once the
// memory bound is reached, before CUPTI is told "no buffer" (and drops records).
constexpr auto kRequestWait = std::chrono::microseconds(2000);

struct Capture {
  Capture(const InjectConfig& config, const CuptiLibrary& cupti)
      : config(config),
        cupti(cupti),
        pool(config.buffer_bytes(), BufferPool::max_buffers_for(config.buffer_bytes())),
        graphs(cupti.api) {}

  const InjectConfig config;
  const CuptiLibrary& cupti;
  BufferPool pool;
  std::unique_ptr<WriterThread> writer;
  PeriodicFlusher flusher;
  MetricsOutbox metrics;                            // range profiler / PM sampling -> writer
  NcclCalls nccl;                                   // NCCL's calls (NVTX payloads) -> writer
  GraphNodes graphs;                                // CUDA graph nodes as made -> writer (core trace only)
  TorchOpRecorder torch_ops;                        // PyTorch's ops (--pytorch=ops's observer) -> writer
  std::unique_ptr<KernelProfiler> kernel_profiler;  // only with metrics=
  std::unique_ptr<DeviceSampler> gpu_sampler;       // only with gpu_metrics_hz=
  std::unique_ptr<PcSampler> pc_sampler;            // only with source=; set before the writer starts
  ApiFilter api_filter;                             // the lean trace (not with api=full)
  bool filter_api = false;                          // lean and its calls can be counted
  std::unique_ptr<ApiRecorder> recorder;            // the core trace (api=core), until the end
  // Which calls the API records hold, for the spool's ApiTrace text: "core", "lean" or "full"
  // (also when core or lean fell back for want of callbacks). Set on the thread that sets up the
  // capture, read by the writer thread.
  std::atomic<const char*> api_trace{"full"};
  std::unique_ptr<CaptureRange> range;    // only with range= / delay_ms / duration_ms
  std::unique_ptr<SyncFlush> sync_flush;  // flushes at synchronizations (sync_flush.h)
  SessionSettings session;
  std::mutex note_mutex;       // guards callbacks_note (not lifecycle: on_exit
  std::string callbacks_note;  // holds that while the writer finishes)
  uint32_t pid = 0;
  uint32_t parent_pid = 0;
  int64_t start_ns = 0;
  std::atomic<int> spool_fd{-1};  // for the fork handler, which must not touch the writer
  std::atomic<bool> forked_child{false};
  std::atomic<bool> shut_down{false};

  // Another CUPTI client took the activity callbacks (on_cupti_takeover). From then on
  // CUPTI's buffers go to it, so our flushes would only race with its own.
  std::mutex lifecycle;                 // on_cupti_takeover vs on_exit
  std::string takeover_note;            // set once, before taken_over
  std::atomic<bool> taken_over{false};  // then the writer may read takeover_note
};

std::atomic<Capture*> g_capture{nullptr};

Capture* live_capture() {
  Capture* capture = g_capture.load(std::memory_order_acquire);
  if (capture == nullptr || capture->forked_child.load(std::memory_order_relaxed)) return nullptr;
  return capture;
}

// The op observer's calls (through libgpuscope_preload.so), on the program's threads.
void on_torch_op_enter(const char* name, int64_t sequence_number) {
  if (Capture* capture = live_capture()) capture->torch_ops.enter(name, sequence_number);
}
void on_torch_op_exit() {
  if (Capture* capture = live_capture()) capture->torch_ops.exit();
}

// --- CUPTI callbacks: short, never throw, never wait for long --------------------------

void CUPTIAPI on_buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = nullptr;
  *size = 0;
  *max_records = 0;  // fill the buffer with as many records as fit
  Capture* capture = live_capture();
  if (capture == nullptr) return;
  try {
    *buffer = capture->pool.acquire(kRequestWait);
    if (*buffer != nullptr) *size = capture->pool.buffer_bytes();
  } catch (...) {
  }
}

void CUPTIAPI on_buffer_completed(CUcontext context, uint32_t stream_id, uint8_t* buffer, size_t /*size*/,
                                  size_t valid_size) {
  // In a forked child the pool's mutex may have been held by a thread that no longer
  // exists: leave the buffer alone (a leak in a child that will exec or exit).
  Capture* capture = live_capture();
  if (capture == nullptr || buffer == nullptr) return;
  try {
    FilledBuffer filled{buffer, valid_size, 0};
    size_t dropped = 0;
    const CUptiResult rc = capture->cupti.api.ActivityGetNumDroppedRecords(context, stream_id, &dropped);
    if (rc == CUPTI_SUCCESS) filled.dropped = dropped;
    else
      note_failed_call("cuptiActivityGetNumDroppedRecords", cupti_result_text(capture->cupti.api, rc),
                       "records CUPTI dropped, if any, are not counted");
    capture->pool.push_filled(filled);  // after shutdown: recycled and counted as discarded
  } catch (...) {
  }
}

const char* api_name(CUpti_CallbackDomain domain, uint32_t cbid) {
  Capture* capture = g_capture.load(std::memory_order_acquire);
  const char* name = nullptr;
  if (capture == nullptr) return nullptr;
  if (const CUptiResult rc = capture->cupti.api.GetCallbackName(domain, cbid, &name); rc != CUPTI_SUCCESS) {
    note_failed_call("cuptiGetCallbackName", cupti_result_text(capture->cupti.api, rc),
                     "API calls are named by their callback id (runtime_cbid_N)");
    return nullptr;
  }
  return name;
}

// cuptiActivityFlushAll; a failure is said once and counted. Records it could not deliver
// come with a later flush, or not at all.
void flush_all(const CuptiApi& api, uint32_t flag) {
  if (const CUptiResult rc = api.ActivityFlushAll(flag); rc != CUPTI_SUCCESS)
    note_failed_call("cuptiActivityFlushAll", cupti_result_text(api, rc),
                     "activity records CUPTI still holds reach the capture late, or are missing from it");
}

// --- Process lifetime hooks ----------------------------------------------------------------

void on_exit() {
  Capture* capture = live_capture();
  if (capture == nullptr || capture->shut_down.exchange(true)) return;
  try {
    std::lock_guard lock(capture->lifecycle);
    capture->flusher.stop();
    if (capture->range) capture->range->finish();  // an open window ends at exit
    if (capture->kernel_profiler) capture->kernel_profiler->finish();
    if (capture->gpu_sampler) capture->gpu_sampler->stop();  // its last samples reach the outbox
    if (capture->pc_sampler) capture->pc_sampler->finish();  // CUPTI flushes each context's last samples
    // Forced: also buffers with records still being filled in, so nothing stays behind.
    // Not after a takeover: the buffers are the other client's, which may have freed them.
    if (!capture->taken_over.load()) flush_all(capture->cupti.api, CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    if (capture->writer) capture->writer->stop_and_join();  // drains, writes End, closes
    if (capture->pc_sampler) capture->pc_sampler->remove_cubin_file();
  } catch (...) {
  }
}

// The program's own CUPTI client is about to replace our buffer callbacks (called by
// libgpuscope_preload.so on the registering thread, before the registration). Take our
// buffers back first, so CUPTI never hands one of ours to it, and stop our periodic flush:
// flushing buffers that are no longer ours races with that client's own flush and teardown
// (with torch.profiler this crashed programs at exit, docs/capture.md). What CUDA does
// afterwards goes to the other client; the note tells the report when that began.
void on_cupti_takeover() {
  Capture* capture = live_capture();
  if (capture == nullptr) return;
  try {
    std::lock_guard lock(capture->lifecycle);
    if (capture->shut_down.load() || capture->taken_over.load()) return;
    capture->flusher.stop();
    flush_all(capture->cupti.api, CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    char note[256];
    std::snprintf(note, sizeof note,
                  "another CUPTI client in this process (torch.profiler or another tool) took CUDA's activity "
                  "records %.3f s after CUDA started; this capture has none of what ran after that",
                  static_cast<double>(realtime_ns() - capture->start_ns) / 1e9);
    capture->takeover_note = note;
    capture->taken_over.store(true, std::memory_order_release);
  } catch (...) {
  }
}

// A fork()ed child without exec inherits our memory but none of our threads. It must
// neither write to the parent's spool nor wait on locks a vanished thread may hold.
// (A child that execs starts afresh: libcuda calls InitializeInjection in it.)
void on_fork_child() {
  Capture* capture = g_capture.load(std::memory_order_acquire);
  if (capture == nullptr) return;
  capture->forked_child.store(true, std::memory_order_relaxed);
  int fd = capture->spool_fd.exchange(-1);
  if (fd >= 0) ::close(fd);
}

// --- Hardware metrics (optional) -------------------------------------------------------------

// After the writer: status records need somewhere to go. Failures are logged by the users
// and never stop the trace.
void start_metrics(Capture& capture) {
  const InjectConfig& config = capture.config;
  if (!config.metrics.empty()) {
    capture.kernel_profiler = std::make_unique<KernelProfiler>(capture.cupti.api, config, capture.metrics);
    if (!capture.kernel_profiler->start()) capture.kernel_profiler.reset();
  }
  if (config.options.gpu_metrics_hz > 0 && config.options.gpu_metrics_source == "pm") {
    auto sampler = std::make_unique<GpuSampler>(capture.cupti.api, static_cast<uint32_t>(config.options.gpu_metrics_hz),
                                                capture.metrics);
    if (sampler->start()) capture.gpu_sampler = std::move(sampler);
  } else if (config.options.gpu_metrics_hz > 0) {
    GpmSamplerOptions options;
    options.rate_hz = static_cast<uint32_t>(config.options.gpu_metrics_hz);
    auto sampler = std::make_unique<GpmSampler>(options, capture.metrics);
    if (sampler->start()) capture.gpu_sampler = std::move(sampler);
  }
}

// The lean filter, after the activity kinds (enabling RUNTIME resets CUPTI's
// per-function choice, so the filter goes after it, at every window). "" or why not.
void apply_filter(Capture& capture) {
  if (capture.filter_api) {
    const std::string error = capture.api_filter.apply(capture.cupti.api, capture.config.options.driver_api);
    if (!error.empty()) {
      capture.filter_api = false;
      log_line("lean API trace off (%s): every API call is recorded", error.c_str());
    }
    capture.api_filter.set_counting(capture.filter_api);
  }
}

bool core_api(const Capture& capture) { return capture.recorder && !capture.session.runtime_api; }

// The core trace's launch records go on before the kernels' and off after them, so that no kernel
// of a window lacks its launch call.
void record_core_api(Capture& capture, bool on) {
  if (!core_api(capture)) return;
  capture.recorder->set_recording(on);
  enable_window_callbacks(on);  // the lean filter's too, but --api is either lean or core
}

std::string begin_tracing(Capture& capture) {
  record_core_api(capture, true);
  capture.torch_ops.set_recording(true);
  const SessionResult kinds = enable_kinds(capture.cupti.api, capture.session);
  if (!kinds.ok) {
    record_core_api(capture, false);
    return kinds.error;
  }
  apply_filter(capture);
  if (capture.filter_api) enable_window_callbacks(true);
  return "";
}

void end_tracing(Capture& capture) {
  capture.torch_ops.set_recording(false);
  capture.api_filter.set_counting(false);
  if (capture.filter_api) enable_window_callbacks(false);
  stop_activity(capture.cupti.api, capture.session);
  record_core_api(capture, false);
}

// The core API trace without callbacks: CUPTI's runtime records (and the driver's launches) it is.
void core_api_off(Capture& capture, const std::string& why) {
  capture.recorder->set_recording(false);
  capture.session.runtime_api = true;
  capture.session.synchronizations = true;
  capture.api_trace.store("full", std::memory_order_release);
  capture.session.driver_launches = capture.config.options.driver_launches;
  log_line("no CUPTI callbacks (%s): CUPTI records every runtime call instead (--api full)", why.c_str());
  if (capture.range) return;  // the kinds go on at each window
  const SessionResult kinds = enable_kinds(capture.cupti.api, capture.session);
  if (!kinds.ok) log_line("%s", kinds.error.c_str());
}

// One subscription for every user of callbacks. Without it: metrics are off, the lean filter
// is not used (its calls could not be counted), and a capture range records the whole run.
void subscribe(Capture& capture) {
  CallbackUsers users;
  users.kernels = capture.kernel_profiler.get();
  users.sampler = capture.gpu_sampler.get();
  users.filter = capture.filter_api ? &capture.api_filter : nullptr;
  users.recorder = core_api(capture) ? capture.recorder.get() : nullptr;
  users.window_open = !capture.range;
  users.range = capture.range && capture.range->needs_callbacks() ? capture.range.get() : nullptr;
  users.sync_flush = capture.sync_flush.get();
  users.nccl = capture.config.options.nccl_calls ? &capture.nccl : nullptr;
  // With the core trace, whose call in flight names what made a node.
  users.graphs = users.recorder && capture.graphs.available() ? &capture.graphs : nullptr;
  users.pc_sampler = capture.pc_sampler.get();
  users.driver_api = capture.config.options.driver_api;
  if (!users.any()) return;
  const std::string error = subscribe_callbacks(capture.cupti.api, users);
  if (error.empty()) return;
  if (users.kernels || users.sampler)
    log_line("metrics: %s; metrics are off, the trace is still captured", error.c_str());
  if (users.pc_sampler) log_line("--source: %s; no PC samples, the trace is still captured", error.c_str());
  if (capture.kernel_profiler) capture.kernel_profiler->abandon(error);
  if (capture.gpu_sampler) capture.gpu_sampler->abandon(error);
  if (users.filter) {
    capture.filter_api = false;
    capture.api_trace.store("full", std::memory_order_release);
    log_line("no CUPTI callbacks (%s): every API call is recorded (--api full)", error.c_str());
  }
  if (users.recorder) core_api_off(capture, error);
  if (users.range) {
    log_line("no CUPTI callbacks (%s): the capture range cannot be seen; the whole run is recorded", error.c_str());
    capture.range.reset();
  }
  if (users.sync_flush) {
    // Said only when nothing above was: it costs nothing unless the GPU faults.
    if (!users.kernels && !users.sampler && !users.filter && !users.recorder && !users.range)
      log_line("no CUPTI callbacks (%s): kernels that end within %u ms of a GPU fault may lose their times",
               error.c_str(), static_cast<unsigned>(capture.config.options.flush_ms));
    capture.sync_flush.reset();
  }
}

// The program's own CUPTI client is about to subscribe (libgpuscope_preload.so): CUPTI allows
// one subscriber, so ours goes, and the report says what stopped.
void on_program_subscribes() {
  Capture* capture = live_capture();
  if (capture == nullptr) return;
  try {
    const std::string lost = release_callbacks();
    if (lost.empty()) return;
    std::lock_guard lock(capture->note_mutex);
    if (capture->callbacks_note.empty())
      capture->callbacks_note = "another CUPTI client in this process subscribed to CUPTI callbacks " +
                                std::to_string((realtime_ns() - capture->start_ns) / 1'000'000) +
                                " ms after CUDA started; gpuscope gave its subscription up: " + lost + " stop there";
  } catch (...) {
  }
}

// --- Start-up --------------------------------------------------------------------------------

spool::ProcessRecord process_record(const Capture& capture, uint32_t runtime_version) {
  spool::ProcessRecord record{};
  record.start_ns = capture.start_ns;
  record.pid = capture.pid;
  record.parent_pid = capture.parent_pid;
  record.driver_version = cuda_driver_version();
  record.runtime_version = runtime_version;
  record.cupti_version = capture.cupti.version;
  return record;
}

// Capture cannot start: say why on stderr and in the spool, then finish the spool so the
// importer sees a complete file whose status explains the empty capture.
void give_up(SpoolWriter& spool, const spool::ProcessRecord& process, const std::string& reason) {
  log_line("%s; the program runs without capture", reason.c_str());
  spool.add(spool::RecordKind::Process, process);
  spool.append_text(spool::TextKey::CaptureStatus, reason);
  spool::EndRecord end{};
  end.end_ns = realtime_ns();
  end.records_written = spool.records_written() + spool.pending_records();
  spool.finish(end);
}

void start_capture() {
  const ConfigResult parsed = parse_config(std::getenv(kConfigEnvVar), /*require_spool=*/true);
  if (!parsed.ok) {
    log_line("%s; the program runs without capture", parsed.error.c_str());
    return;
  }
  const InjectConfig& config = parsed.config;
  const uint32_t pid = static_cast<uint32_t>(::getpid());
  const uint32_t parent_pid = static_cast<uint32_t>(::getppid());
  const int64_t start_ns = realtime_ns();

  auto spool = std::make_unique<SpoolWriter>();
  const std::string path = spool_path(config.options.spool, pid);
  if (!spool->open(path, pid, parent_pid, start_ns)) {
    log_line("%s; the program runs without capture", spool->error().c_str());
    return;
  }
  spool->append_text(spool::TextKey::CommandLine, read_command_line());
  if (const std::string rank = distributed_identity(); !rank.empty())
    spool->append_text(spool::TextKey::Distributed, rank);

  const CuptiLibrary& cupti = load_cupti(config.options.cupti);
  if (!cupti.warning.empty()) log_line("%s", cupti.warning.c_str());
  if (!cupti.path.empty()) spool->append_text(spool::TextKey::CuptiPath, cupti.path);
  // A program with its own CUPTI may run its own CUPTI client (torch.profiler), which takes
  // the activity records from us while it runs; the report warns when that may have happened.
  if (cupti.reused) spool->append_text(spool::TextKey::CuptiShared, "1");
  // Owned here until published in g_capture, from then on never freed (see top of file): a give-up
  // before that point frees it, since nothing can reach it yet (LeakSanitizer found the leak).
  auto owned = std::make_unique<Capture>(config, cupti);
  Capture* capture = owned.get();
  capture->pid = pid;
  capture->parent_pid = parent_pid;
  capture->start_ns = start_ns;
  if (!cupti.ok) {
    give_up(*spool, process_record(*capture, 0), cupti.error);
    return;
  }

  // The program's own CUPTI client (torch.profiler started before CUDA, say) came first: it
  // keeps CUDA's activity records, and a capture that took them would harm it.
  if (program_registered_cupti_callbacks()) {
    give_up(*spool, process_record(*capture, 0),
            "another CUPTI client in this process (torch.profiler or another tool) registered for CUDA's activity "
            "records before CUDA started; gpuscope leaves them to it and records no trace");
    return;
  }
  capture->spool_fd.store(spool->fd());
  g_capture.store(owned.release(), std::memory_order_release);
  pthread_atfork(nullptr, nullptr, on_fork_child);

  // CUPTI's PM sampling cannot decode while kernels are traced (gpu_sampler.h); NVML GPM can.
  const bool trace_kernels = config.options.gpu_metrics_hz == 0 || config.options.gpu_metrics_source != "pm";
  // The core API trace: our own callbacks record the calls, CUPTI's RUNTIME and DRIVER kinds stay off.
  if (config.options.api == "core") {
    capture->recorder = std::make_unique<ApiRecorder>();
    // With --driver-api CUPTI's DRIVER kind records the launches, among every driver call.
    capture->recorder->choose(api_name, config.options.driver_launches && !config.options.driver_api);
    capture->recorder->set_stream_ids(cupti.api.GetStreamIdEx);
    capture->recorder->set_recording(config.window.kind == RecordingWindow::Kind::Whole);
  }
  capture->torch_ops.set_recording(config.window.kind == RecordingWindow::Kind::Whole);
  const bool core = capture->recorder != nullptr;
  capture->session = SessionSettings{.runtime_api = !core,
                                     .synchronizations = !core,
                                     .driver_api = config.options.driver_api,
                                     .driver_launches = config.options.driver_launches && !core,
                                     .flush_ms = static_cast<uint32_t>(config.options.flush_ms),
                                     .kernels = trace_kernels,
                                     .buffers_zeroed = true};
  SessionResult session = register_buffers(cupti.api, capture->session, on_buffer_requested, on_buffer_completed);
  if (session.ok && config.window.kind == RecordingWindow::Kind::Whole) {
    // The whole run: the kinds now, so a refusal still gives up cleanly.
    const SessionResult kinds = enable_kinds(cupti.api, capture->session);
    if (!kinds.ok) session = kinds;
    else if (kinds.status != "ok")
      session.status = session.status == "ok" ? kinds.status : session.status + "; " + kinds.status;
  }
  if (!session.ok) {
    capture->pool.close();  // callbacks that still come recycle their buffers at once
    give_up(*spool, process_record(*capture, 0), session.error);
    return;
  }
  spool->append_text(spool::TextKey::CaptureStatus, session.status);
  capture->filter_api = config.options.api == "lean";
  if (core || capture->filter_api) capture->api_trace.store(core ? "core" : "lean", std::memory_order_release);
  if (config.window.kind != RecordingWindow::Kind::Whole) {
    capture->range = std::make_unique<CaptureRange>(
        config.window, [capture] { return begin_tracing(*capture); }, [capture] { end_tracing(*capture); });
    // Now, not at the end: a capture cut short still says its trace covers only windows.
    spool->append_text(spool::TextKey::CaptureRange, capture->range->describe());
  }
  spool->flush();

  if (config.options.source) {
    capture->pc_sampler = std::make_unique<PcSampler>(cupti.api, config.options, path + ".cubins");
    if (!capture->pc_sampler->available()) {
      const std::string why = cupti.path + " lacks CUPTI's PC sampling API (or its callbacks): no PC samples";
      log_line("--source: %s; the trace is still captured", why.c_str());
      // In the capture too, so the report says why it has no Source section.
      spool->add(spool::RecordKind::Loss,
                 spool::LossRecord{1, spool->intern("pc_sampling_unavailable"), spool->intern(why)});
      capture->pc_sampler.reset();
    }
  }

  WriterHooks hooks;
  hooks.next_record = cupti.api.ActivityGetNextRecord;
  hooks.api_name = api_name;
  hooks.enrich_device = enrich_device_from_driver;
  hooks.metrics = &capture->metrics;
  hooks.outboxes.push_back([capture](SpoolWriter& out) { capture->nccl.drain(out); });
  hooks.outboxes.push_back([capture](SpoolWriter& out) { capture->graphs.drain(out); });
  hooks.outboxes.push_back([capture](SpoolWriter& out) { capture->torch_ops.drain(out); });
  if (capture->pc_sampler) hooks.outboxes.push_back([capture](SpoolWriter& out) { capture->pc_sampler->drain(out); });
  // Often enough that a thread's ring (ApiRecorder's, TorchOpRecorder's) never fills between drains.
  if (capture->recorder || config.options.pytorch == "ops") hooks.idle_wait = std::chrono::milliseconds(10);
  if (capture->recorder) {
    hooks.drain_api_records = [capture](SpoolWriter& out, const auto& api_name_id) {
      capture->recorder->drain(out, api_name_id);
    };
  }
  hooks.cupti_takeover = [capture] {
    return capture->taken_over.load(std::memory_order_acquire) ? capture->takeover_note : std::string();
  };
  // The API trace is said at the start (a killed process still says it) and again at the end,
  // after any fallback for want of callbacks (the importer keeps the last).
  hooks.on_start = [capture](SpoolWriter& out) {
    out.add(spool::RecordKind::Process, process_record(*capture, cuda_runtime_version()));
    out.append_text(spool::TextKey::ApiTrace, capture->api_trace.load(std::memory_order_acquire));
  };
  hooks.on_finish = [capture](SpoolWriter& out, const auto& api_name_id) {
    out.append_text(spool::TextKey::ApiTrace, capture->api_trace.load(std::memory_order_acquire));
    capture->api_filter.write(out, api_name_id);  // nothing unless the lean filter was applied
    if (capture->range) capture->range->write_windows(out);
    std::lock_guard lock(capture->note_mutex);
    if (!capture->callbacks_note.empty())
      out.add(spool::RecordKind::Loss,
              spool::LossRecord{1, out.intern("cupti_callbacks_taken_over"), out.intern(capture->callbacks_note)});
  };
  capture->writer = std::make_unique<WriterThread>(capture->pool, std::move(spool), std::move(hooks));
  if (!capture->writer->start()) {
    stop_activity(cupti.api, capture->session);
    log_line("cannot start the spool writer thread; the program runs without capture");
    capture->writer->stop_and_join();  // no thread: just closes the pool
    return;
  }

  start_metrics(*capture);
  // Flushes only while the records are ours (no other CUPTI client took them) and before exit.
  capture->sync_flush = std::make_unique<SyncFlush>(static_cast<uint32_t>(config.options.sync_flush_ms), [capture] {
    if (!capture->taken_over.load(std::memory_order_acquire) && !capture->shut_down.load(std::memory_order_acquire))
      capture->cupti.api.ActivityFlushAll(0);
  });
  subscribe(*capture);
  if (!capture->range) {
    apply_filter(*capture);
  } else if (!capture->range->needs_callbacks() && !capture->range->start_timer()) {
    log_line("cannot start the capture-range timer; the whole run is recorded");
    capture->range.reset();
    if (const std::string error = begin_tracing(*capture); !error.empty()) log_line("%s", error.c_str());
  }

  const CuptiApi* api = &cupti.api;
  if (!capture->flusher.start(static_cast<uint32_t>(config.options.flush_ms), [api] { flush_all(*api, 0); })) {
    log_line("cannot start the periodic flush thread; data of a crash may be lost beyond the last full buffer");
  }
  std::atexit(on_exit);
  install_cupti_takeover_hook(on_cupti_takeover);
  install_subscribe_hook(on_program_subscribes);
  install_torch_op_hooks(on_torch_op_enter, on_torch_op_exit);
}

}  // namespace
}  // namespace gpuscope::capture

GPUSCOPE_EXPORT int InitializeInjection(void) {
  static std::atomic<bool> started{false};
  if (started.exchange(true)) return 1;
  try {
    gpuscope::capture::start_capture();
  } catch (...) {
    gpuscope::capture::log_line("internal error while starting capture; the program runs without capture");
  }
  return 1;
}

GPUSCOPE_EXPORT int InitializeInjectionNvtx2(gpuscope::capture::NvtxGetExportTableFn get_export_table) {
  using namespace gpuscope::capture;
  try {
    Capture* capture = g_capture.load(std::memory_order_acquire);
    if (capture != nullptr && capture->forked_child.load()) return 0;
    const ConfigResult parsed = parse_config(std::getenv(kConfigEnvVar), /*require_spool=*/true);
    if (!parsed.ok) return 0;  // InitializeInjection reports config problems, once
    const CuptiLibrary& cupti = load_cupti(parsed.config.options.cupti);
    if (!cupti.ok || cupti.api.InitializeInjectionNvtx2 == nullptr) return 0;
    const int ok = cupti.api.InitializeInjectionNvtx2(get_export_table);
    if (ok == 0) note_failed_call("libcupti's InitializeInjectionNvtx2", "0", "NVTX ranges and marks are not captured");
    return ok;
  } catch (...) {
    return 0;
  }
}

#include "capture/capture_range.h"

#include <nvtx3/nvToolsExt.h>
// After nvToolsExt.h, which defines the types it uses.
#include <generated_nvtx_meta.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <chrono>

#include "capture/log.h"
#include "spool/format.h"

namespace gpuscope::capture {
namespace {

int64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

// gettid, once per thread: NVTX callbacks ask on every pop.
uint32_t this_tid() {
  thread_local const uint32_t tid = static_cast<uint32_t>(::syscall(SYS_gettid));
  return tid;
}

// Push/pop depth of the calling thread in the configured domain.
thread_local int t_nvtx_depth = 0;

const char* ascii_message(const nvtxEventAttributes_t* attributes) {
  if (attributes == nullptr || attributes->messageType != NVTX_MESSAGE_TYPE_ASCII) return nullptr;
  return attributes->message.ascii;
}

}  // namespace

CaptureRange::CaptureRange(RecordingWindow window, std::function<std::string()> on_begin, std::function<void()> on_end)
    : window_(std::move(window)), on_begin_(std::move(on_begin)), on_end_(std::move(on_end)) {}

CaptureRange::~CaptureRange() { finish(); }

bool CaptureRange::needs_callbacks() const {
  return window_.kind == RecordingWindow::Kind::ProfilerApi || window_.kind == RecordingWindow::Kind::Nvtx;
}

void CaptureRange::enable_callbacks(const CuptiApi& api, CUpti_SubscriberHandle subscriber) const {
  constexpr const char* kCost = "the capture range may start or end late, or never";
  if (window_.kind == RecordingWindow::Kind::ProfilerApi) {
    enable_callback(api, 1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000,
                    kCost);
    enable_callback(api, 1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000,
                    kCost);
    enable_callback(api, 1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStart, kCost);
    enable_callback(api, 1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStop, kCost);
  } else if (window_.kind == RecordingWindow::Kind::Nvtx) {
    for (CUpti_CallbackId id :
         {CUPTI_CBID_NVTX_nvtxRangePushA, CUPTI_CBID_NVTX_nvtxRangePushEx, CUPTI_CBID_NVTX_nvtxRangePop,
          CUPTI_CBID_NVTX_nvtxDomainCreateA, CUPTI_CBID_NVTX_nvtxDomainRangePushEx, CUPTI_CBID_NVTX_nvtxDomainRangePop})
      enable_callback(api, 1, subscriber, CUPTI_CB_DOMAIN_NVTX, id, kCost);
  }
}

void CaptureRange::on_api_callback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const CUpti_CallbackData& data) {
  if (window_.kind != RecordingWindow::Kind::ProfilerApi) return;
  const bool start = domain == CUPTI_CB_DOMAIN_RUNTIME_API ? cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000
                                                           : cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStart;
  const bool stop = domain == CUPTI_CB_DOMAIN_RUNTIME_API ? cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000
                                                          : cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStop;
  // The window holds what runs between the two calls, not the calls themselves (cudaProfilerStart
  // calls cuProfilerStart: the second begin or end finds the window already in that state).
  if (start && data.callbackSite == CUPTI_API_EXIT) begin(0, 0);
  if (stop && data.callbackSite == CUPTI_API_ENTER) end();
}

void CaptureRange::on_nvtx_callback(CUpti_CallbackId cbid, const void* params, const void* return_value) {
  if (window_.kind != RecordingWindow::Kind::Nvtx || params == nullptr) return;
  switch (cbid) {
    case CUPTI_CBID_NVTX_nvtxRangePushA:
      on_push(static_cast<const nvtxRangePushA_params*>(params)->message, nullptr);
      break;
    case CUPTI_CBID_NVTX_nvtxRangePushEx:
      on_push(ascii_message(static_cast<const nvtxRangePushEx_params*>(params)->eventAttrib), nullptr);
      break;
    case CUPTI_CBID_NVTX_nvtxRangePop: on_pop(nullptr); break;
    case CUPTI_CBID_NVTX_nvtxDomainRangePushEx: {
      const auto* p = static_cast<const nvtxDomainRangePushEx_params*>(params);
      on_push(ascii_message(p->core.eventAttrib), p->domain);
      break;
    }
    case CUPTI_CBID_NVTX_nvtxDomainRangePop:
      on_pop(static_cast<const nvtxDomainRangePop_params*>(params)->domain);
      break;
    case CUPTI_CBID_NVTX_nvtxDomainCreateA: {
      const char* name = static_cast<const nvtxDomainCreateA_params*>(params)->name;
      if (return_value != nullptr && name != nullptr && window_.nvtx_domain == name) {
        std::lock_guard lock(mutex_);
        domains_.insert(*static_cast<const nvtxDomainHandle_t*>(return_value));
      }
      break;
    }
    default: break;
  }
}

// Every NVTX push and pop of the program comes here: only a named domain takes the lock.
bool CaptureRange::our_domain(const void* domain) {
  if (window_.nvtx_domain.empty()) return domain == nullptr;
  std::lock_guard lock(mutex_);
  return domains_.count(domain) != 0;
}

void CaptureRange::on_push(const char* message, const void* domain) {
  if (!our_domain(domain)) return;
  const int depth = t_nvtx_depth++;
  if (message != nullptr && window_.nvtx_message == message) begin(this_tid(), depth);
}

void CaptureRange::on_pop(const void* domain) {
  if (!our_domain(domain)) return;
  if (t_nvtx_depth > 0) --t_nvtx_depth;
  // Lock-free test first; end() checks again under its lock that the window is still open.
  if (t_nvtx_depth == open_depth_.load(std::memory_order_acquire) &&
      open_tid_.load(std::memory_order_acquire) == this_tid())
    end();
}

bool CaptureRange::begin(uint32_t tid, int depth) {
  std::lock_guard lock(mutex_);
  if (open_ || done_) return false;
  const std::string error = on_begin_();
  if (!error.empty()) {
    if (failure_.empty()) log_line("capture range: %s; nothing is recorded in this range", error.c_str());
    failure_ = error;
    return false;
  }
  open_ = true;
  open_since_ = now_ns();
  open_depth_.store(depth, std::memory_order_release);
  open_tid_.store(tid, std::memory_order_release);
  return true;
}

void CaptureRange::end() {
  std::lock_guard lock(mutex_);
  if (!open_) return;
  on_end_();
  open_ = false;
  open_tid_.store(0, std::memory_order_release);
  windows_.emplace_back(open_since_, now_ns());
  const bool limit = window_.repeat_limit > 0 && windows_.size() >= window_.repeat_limit;
  if (!window_.repeat || limit || window_.kind == RecordingWindow::Kind::Timer) done_ = true;
}

bool CaptureRange::start_timer() {
  if (window_.kind != RecordingWindow::Kind::Timer) return true;
  try {
    timer_ = std::thread([this] {
      std::unique_lock lock(timer_mutex_);
      const auto delay = std::chrono::milliseconds(window_.delay_ms);
      if (timer_wake_.wait_for(lock, delay, [this] { return timer_stop_; })) return;
      begin(0, 0);
      if (window_.duration_ms == 0) return;
      if (timer_wake_.wait_for(lock, std::chrono::milliseconds(window_.duration_ms), [this] { return timer_stop_; }))
        return;
      end();
    });
  } catch (...) {
    return false;
  }
  return true;
}

void CaptureRange::finish() {
  {
    std::lock_guard lock(timer_mutex_);
    timer_stop_ = true;
  }
  timer_wake_.notify_all();
  if (timer_.joinable()) timer_.join();
  end();
}

void CaptureRange::write_windows(SpoolWriter& out) {
  std::lock_guard lock(mutex_);
  for (const auto& [start, end] : windows_)
    out.add(spool::RecordKind::CaptureWindow, spool::CaptureWindowRecord{start, end});
}

std::string CaptureRange::describe() const {
  const std::string repeat = !window_.repeat ? ""
                             : window_.repeat_limit > 0
                                 ? ", repeated up to " + std::to_string(window_.repeat_limit) + " times"
                                 : ", repeated";
  switch (window_.kind) {
    case RecordingWindow::Kind::ProfilerApi: return "between cudaProfilerStart and cudaProfilerStop" + repeat;
    case RecordingWindow::Kind::Nvtx:
      return "inside NVTX range '" + window_.nvtx_message + "'" +
             (window_.nvtx_domain.empty() ? "" : " of domain '" + window_.nvtx_domain + "'") + repeat;
    case RecordingWindow::Kind::Timer:
      return "from " + std::to_string(window_.delay_ms) + " ms after CUDA started" +
             (window_.duration_ms ? " for " + std::to_string(window_.duration_ms) + " ms" : "");
    case RecordingWindow::Kind::Whole: break;
  }
  return "the whole run";
}

}  // namespace gpuscope::capture

#include "capture/kernel_profiler.h"

#include <atomic>
#include <map>
#include <mutex>

#include "capture/cupti_compat.h"
#include "capture/driver_probe.h"
#include "capture/launch_callbacks.h"
#include "capture/launch_filter.h"
#include "capture/log.h"
#include "capture/metrics_host.h"
#include "capture/process_info.h"

namespace gpuscope::capture {
namespace {

// Ranges one counter data image holds before it is re-initialized. We decode after every
// kernel, so a few are enough; more only cost memory per context.
constexpr size_t kRangesPerImage = 16;

// One context's range profiler and the counter data image it decodes into.
struct ContextState {
  CUpti_RangeProfiler_Object* object = nullptr;
  std::vector<uint8_t> counter_data;
  size_t evaluated = 0;  // ranges of counter_data already turned into values
};

// The launch this thread is inside of (the outermost launch call; nested ones are ignored).
struct ThreadLaunch {
  int depth = 0;
  ContextState* profiling = nullptr;  // non-null: the range profiler runs for this launch
  uint32_t correlation_id = 0;
  // CLOCK_REALTIME ns of a measured launch: when our work on it began (in the launch call's
  // first callback), and the end of the one-time set-up it did (0: none). Our callbacks run outside CUPTI's API record
  // of the call, so this is the only record of the time they take.
  int64_t entered_ns = 0, setup_end_ns = 0;
};
thread_local ThreadLaunch t_launch;

}  // namespace

struct KernelProfiler::Impl {
  Impl(const CuptiApi& api, const InjectConfig& config, MetricsOutbox& outbox)
      : api(api),
        p(api.profiler),
        config(config),
        outbox(outbox),
        filter(config.options.kernel, config.options.launch_skip,
               config.options.launch_count > 0 ? config.options.launch_count : UINT64_MAX, filter_error) {
    if (!filter_error.empty()) fail(filter_error);
  }

  const CuptiApi& api;
  const ProfilerApi& p;
  const InjectConfig& config;
  MetricsOutbox& outbox;
  // What is collected: the configured metrics, less those this chip lacks (configure_for_chip).
  std::vector<std::string> metrics = config.metrics;
  std::vector<const char*> name_ptrs;  // into `metrics`, once it is final
  std::string filter_error;            // set by `filter` for a bad --kernel regex
  LaunchFilter filter;

  std::mutex mutex;  // held from a measured launch's entry to its exit; guards all below
  std::atomic<bool> off{false};
  // Set once --launch-count launches are measured: later launches return before taking the
  // mutex, so a long run pays nothing per launch after its measured ones.
  std::atomic<bool> enough{false};
  std::unique_ptr<MetricsHost> host;
  MetricConfig metric_config;
  std::string chip;
  std::map<CUcontext, ContextState> contexts;
  uint64_t profiled = 0, failed = 0;
  std::string status = "ok";

  void publish() {
    spool::MetricCollectionRecord record{};
    record.kind = static_cast<uint8_t>(spool::MetricCollectionKind::Kernel);
    record.kernels_profiled = profiled;
    record.kernels_failed = failed;
    record.passes = static_cast<uint32_t>(metric_config.passes);
    record.metrics = static_cast<uint32_t>(metrics.size());
    outbox.set_collection(record, status, chip);
  }

  // Turns collection off for the rest of the run; the trace goes on.
  void fail(const std::string& why) {
    if (off.exchange(true)) return;
    status = why;
    log_line("metrics: %s; the trace is still captured", why.c_str());
    publish();
  }

  bool refuse(const std::string& why) {
    fail(why);
    return false;
  }

  std::string cupti_failure(const char* call, CUptiResult rc) const { return cupti_call_failure(api, call, rc); }

  bool wanted(const char* symbol) {
    const LaunchFilter::Verdict verdict = filter.next(symbol, profiled + failed);
    if (verdict == LaunchFilter::Verdict::Done) enough.store(true);
    return verdict == LaunchFilter::Verdict::Measure;
  }

  // The chip of the calling thread's current device, or "" with `error` set.
  std::string chip_of_current_device(std::string& error) const {
    const int device = current_context_device();
    auto params = GPUSCOPE_CUPTI_PARAMS(CUpti_Device_GetChipName_Params);
    params.deviceIndex = device < 0 ? 0 : static_cast<size_t>(device);
    if (CUptiResult rc = p.DeviceGetChipName(&params); rc != CUPTI_SUCCESS || params.pChipName == nullptr) {
      error = cupti_failure("cuptiDeviceGetChipName", rc);
      return "";
    }
    return params.pChipName;
  }

  // Chip, host configuration and profiler initialization, once per process, on the first
  // measured launch's thread. (Doing this on a thread of ours from start-up, to overlap the
  // program's own start-up, saved ~70 ms per run on an H100 but crashed a program with
  // SIGSEGV in 1 of 3 GPU test runs: CUPTI's profiler initialization must not race with the
  // program's CUDA start-up.)
  bool prepare_process() {
    if (host) return true;
    auto init = GPUSCOPE_CUPTI_PARAMS(CUpti_Profiler_Initialize_Params);
    if (CUptiResult rc = p.Initialize(&init); rc != CUPTI_SUCCESS)
      return refuse(cupti_failure("cuptiProfilerInitialize", rc));
    std::string error;
    if ((chip = chip_of_current_device(error)).empty()) return refuse(error);
    ChipConfig chosen = configure_for_chip(api, chip, config.metrics, config.options.metrics);
    if (!chosen.host) return refuse(chosen.error);
    if (!chosen.dropped.empty()) record_not_on_chip(chosen);
    host = std::move(chosen.host);
    metric_config = std::move(chosen.config);
    metrics = std::move(chosen.collected);
    for (const std::string& name : metrics) name_ptrs.push_back(name.c_str());
    outbox.set_kernel_metric_names(metrics);  // before any value: none is pushed until now
    publish();
    return true;
  }

  // The sets are written for Hopper; what this chip lacks of them is a loss people should see.
  void record_not_on_chip(const ChipConfig& chosen) {
    std::string names;
    for (const std::string& name : chosen.dropped) names += (names.empty() ? "" : ", ") + name;
    outbox.add_loss("metrics_not_on_chip", chosen.dropped.size(),
                    std::to_string(chosen.dropped.size()) + " metrics of the requested sets do not exist on " + chip +
                        " and were not collected: " + names);
    log_line("metrics: %zu metrics of the sets do not exist on %s; collecting the other %zu", chosen.dropped.size(),
             chip.c_str(), chosen.collected.size());
  }

  std::string configure(ContextState& state) {
    auto init = GPUSCOPE_CUPTI_PARAMS(CUpti_RangeProfiler_CounterDataImage_Initialize_Params);
    init.pRangeProfilerObject = state.object;
    init.pCounterData = state.counter_data.data();
    init.counterDataSize = state.counter_data.size();
    if (CUptiResult rc = p.RangeCounterDataImageInitialize(&init); rc != CUPTI_SUCCESS)
      return cupti_failure("cuptiRangeProfilerCounterDataImageInitialize", rc);
    auto set = GPUSCOPE_CUPTI_PARAMS(CUpti_RangeProfiler_SetConfig_Params);
    set.pRangeProfilerObject = state.object;
    set.configSize = metric_config.image.size();
    set.pConfig = metric_config.image.data();
    set.counterDataImageSize = state.counter_data.size();
    set.pCounterDataImage = state.counter_data.data();
    set.range = CUPTI_AutoRange;
    set.replayMode = CUPTI_KernelReplay;
    set.maxRangesPerPass = kRangesPerImage;
    set.numNestingLevels = 1;
    set.minNestingLevel = 1;
    if (CUptiResult rc = p.RangeSetConfig(&set); rc != CUPTI_SUCCESS)
      return cupti_failure("cuptiRangeProfilerSetConfig", rc);
    state.evaluated = 0;
    return "";
  }

  ContextState* context_state(CUcontext context) {
    auto found = contexts.find(context);
    if (found != contexts.end()) return found->second.object ? &found->second : nullptr;
    ContextState& state = contexts[context];  // a failed context stays in the map, empty
    // One configuration serves the process: it is only valid on a device of its chip.
    std::string error;
    if (std::string other = chip_of_current_device(error); other != chip) {
      fail(other.empty() ? error
                         : "a kernel ran on a " + other + " GPU, but this run's metrics were set up for " + chip +
                               " (one GPU model per process)");
      return nullptr;
    }
    auto enable = GPUSCOPE_CUPTI_PARAMS(CUpti_RangeProfiler_Enable_Params);
    enable.ctx = context;
    if (CUptiResult rc = p.RangeEnable(&enable); rc != CUPTI_SUCCESS) {
      fail(cupti_failure("cuptiRangeProfilerEnable", rc));
      return nullptr;
    }
    auto size = GPUSCOPE_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataSize_Params);
    size.pRangeProfilerObject = enable.pRangeProfilerObject;
    size.pMetricNames = name_ptrs.data();
    size.numMetrics = name_ptrs.size();
    size.maxNumOfRanges = kRangesPerImage;
    size.maxNumRangeTreeNodes = kRangesPerImage;
    if (CUptiResult rc = p.RangeGetCounterDataSize(&size); rc != CUPTI_SUCCESS) {
      fail(cupti_failure("cuptiRangeProfilerGetCounterDataSize", rc));
      return nullptr;
    }
    state.object = enable.pRangeProfilerObject;
    state.counter_data.assign(size.counterDataSize, 0);
    if (std::string error = configure(state); !error.empty()) {
      state.object = nullptr;
      fail(error);
      return nullptr;
    }
    return &state;
  }

  // Entry of an outermost launch call. The mutex stays locked from a measured launch's
  // entry to its exit: one measured launch at a time, in the whole process.
  void on_enter(const CUpti_CallbackData& data) {
    if (off.load() || enough.load()) return;
    mutex.lock();
    bool measuring = false;
    try {
      measuring = begin(data);
    } catch (...) {
    }
    if (!measuring) mutex.unlock();
  }

  bool begin(const CUpti_CallbackData& data) {
    if (off.load() || !wanted(data.symbolName)) return false;
    t_launch.entered_ns = realtime_ns();  // the profiler's time on this launch starts here
    t_launch.setup_end_ns = 0;
    const bool fresh = !host || contexts.find(data.context) == contexts.end();
    if (!prepare_process()) return false;
    ContextState* state = context_state(data.context);
    if (state == nullptr) return false;
    if (fresh) t_launch.setup_end_ns = realtime_ns();
    auto start = GPUSCOPE_CUPTI_PARAMS(CUpti_RangeProfiler_Start_Params);
    start.pRangeProfilerObject = state->object;
    if (CUptiResult rc = p.RangeStart(&start); rc != CUPTI_SUCCESS) {
      ++failed;
      return refuse(cupti_failure("cuptiRangeProfilerStart", rc));
    }
    t_launch.profiling = state;
    t_launch.correlation_id = data.correlationId;
    return true;
  }

  void on_exit() {
    ContextState& state = *t_launch.profiling;
    t_launch.profiling = nullptr;
    try {
      if (std::string error = collect(state, t_launch.correlation_id); !error.empty()) {
        ++failed;
        fail(error);
      }
      publish();
      record_profiler_time();
    } catch (...) {
    }
    mutex.unlock();
  }

  // The launch's set-up (if any) and replay time, for analysis to take out of the timeline.
  void record_profiler_time() {
    const int64_t replay_start = t_launch.setup_end_ns ? t_launch.setup_end_ns : t_launch.entered_ns;
    if (t_launch.setup_end_ns)
      outbox.push_profiler_time(kMetricSetupOverhead, t_launch.entered_ns, t_launch.setup_end_ns);
    outbox.push_profiler_time(kKernelReplayOverhead, replay_start, realtime_ns());
  }

  // Stop, decode, evaluate the new ranges (normally exactly one: this launch).
  std::string collect(ContextState& state, uint32_t correlation_id) {
    auto stop = GPUSCOPE_CUPTI_PARAMS(CUpti_RangeProfiler_Stop_Params);
    stop.pRangeProfilerObject = state.object;
    if (CUptiResult rc = p.RangeStop(&stop); rc != CUPTI_SUCCESS) return cupti_failure("cuptiRangeProfilerStop", rc);
    auto decode = GPUSCOPE_CUPTI_PARAMS(CUpti_RangeProfiler_DecodeData_Params);
    decode.pRangeProfilerObject = state.object;
    if (CUptiResult rc = p.RangeDecodeData(&decode); rc != CUPTI_SUCCESS)
      return cupti_failure("cuptiRangeProfilerDecodeData", rc);
    auto info = GPUSCOPE_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataInfo_Params);
    info.pCounterDataImage = state.counter_data.data();
    info.counterDataImageSize = state.counter_data.size();
    if (CUptiResult rc = p.RangeGetCounterDataInfo(&info); rc != CUPTI_SUCCESS)
      return cupti_failure("cuptiRangeProfilerGetCounterDataInfo", rc);
    if (info.numTotalRanges <= state.evaluated) {
      ++failed;  // the launch produced no range (e.g. it failed); nothing to evaluate
    }
    std::vector<double> values;
    for (size_t range = state.evaluated; range < info.numTotalRanges; ++range) {
      if (std::string error = host->evaluate(state.counter_data, range, metrics, values); !error.empty()) return error;
      outbox.push_kernel(correlation_id, values);
      ++profiled;
    }
    state.evaluated = info.numTotalRanges;
    if (state.evaluated + 1 >= kRangesPerImage) return configure(state);  // room for the next launch
    return "";
  }
};

KernelProfiler::KernelProfiler(const CuptiApi& api, const InjectConfig& config, MetricsOutbox& outbox)
    : impl_(std::make_unique<Impl>(api, config, outbox)) {}

KernelProfiler::~KernelProfiler() = default;

bool KernelProfiler::start() {
  Impl& impl = *impl_;
  impl.outbox.set_kernel_metric_names(impl.config.metrics);
  if (impl.off.load()) return false;  // e.g. a bad --kernel regex
  if (!impl.p.has_range_profiler() || !impl.p.has_host()) {
    impl.fail("this libcupti lacks the range profiler API (CUDA 12.6 or newer is needed)");
    return false;
  }
  impl.publish();
  return true;
}

void KernelProfiler::enable_callbacks(const CuptiApi& api, CUpti_SubscriberHandle subscriber) {
  constexpr const char* kCost = "kernels launched through these calls get no metrics";
  for (CUpti_CallbackId id : kRuntimeLaunches)
    enable_callback(api, 1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, id, kCost);
  for (CUpti_CallbackId id : kDriverLaunches)
    enable_callback(api, 1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id, kCost);
}

void KernelProfiler::on_launch_callback(const CUpti_CallbackData& data) {
  // Only the outermost launch call of a thread counts (cudaLaunchKernel calls cuLaunchKernel).
  if (data.callbackSite == CUPTI_API_ENTER) {
    if (t_launch.depth++ == 0) impl_->on_enter(data);
  } else if (--t_launch.depth == 0 && t_launch.profiling != nullptr) {
    impl_->on_exit();
  }
}

void KernelProfiler::abandon(const std::string& why) {
  Impl& impl = *impl_;
  std::lock_guard<std::mutex> guard(impl.mutex);
  if (impl.off.exchange(true)) return;
  impl.status = why;  // the caller says it on stderr, once for every user of the callbacks
  impl.publish();
}

void KernelProfiler::finish() {
  Impl& impl = *impl_;
  std::lock_guard<std::mutex> guard(impl.mutex);
  if (impl.status == "ok" && impl.profiled == 0)
    impl.status = impl.filter.matched() == 0 && impl.filter.by_name() ? "no kernel matched the --kernel filter"
                                                                      : "no kernel was measured";
  impl.publish();
}

}  // namespace gpuscope::capture

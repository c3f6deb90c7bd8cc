#include "range_session.h"

#include <cstdio>
#include <cstdlib>
#include <utility>

using gpuscope::capture::MetricsHost;
using gpuscope::capture::ProfilerKind;

namespace {
// Ranges one counter data image holds; re-initialized before it fills up.
constexpr size_t kRangesPerImage = 64;
}  // namespace

RangeSession::RangeSession(std::vector<std::string> metrics, bool user_replay)
    : metrics_(std::move(metrics)), user_replay_(user_replay) {
  for (const std::string& name : metrics_) metric_ptrs_.push_back(name.c_str());
}

RangeSession::~RangeSession() {
  if (object_ == nullptr) return;
  auto disable = GPUSCOPE_CUPTI_PARAMS(CUpti_RangeProfiler_Disable_Params);
  disable.pRangeProfilerObject = object_;
  api_->profiler.RangeDisable(&disable);
}

std::string RangeSession::failure(const char* call, CUptiResult rc) const {
  return gpuscope::capture::cupti_call_failure(*api_, call, rc);
}

std::string RangeSession::open(CUcontext context) {
  const gpuscope::capture::CuptiLibrary& library = gpuscope::capture::load_cupti("");
  if (!library.ok) return library.error;
  api_ = &library.api;
  const gpuscope::capture::ProfilerApi& p = api_->profiler;
  if (!p.has_range_profiler() || !p.has_host()) return "this libcupti lacks the range profiler API";
  auto init = GPUSCOPE_CUPTI_PARAMS(CUpti_Profiler_Initialize_Params);
  if (CUptiResult rc = p.Initialize(&init); rc != CUPTI_SUCCESS) return failure("cuptiProfilerInitialize", rc);
  uint32_t device = 0;
  if (CUptiResult rc = p.GetDeviceId(context, &device); rc != CUPTI_SUCCESS) return failure("cuptiGetDeviceId", rc);
  auto chip = GPUSCOPE_CUPTI_PARAMS(CUpti_Device_GetChipName_Params);
  chip.deviceIndex = device;
  if (CUptiResult rc = p.DeviceGetChipName(&chip); rc != CUPTI_SUCCESS) return failure("cuptiDeviceGetChipName", rc);
  chip_ = chip.pChipName;
  std::string error;
  host_ = MetricsHost::create(*api_, chip_, ProfilerKind::RangeProfiler, error);
  if (!host_) return error;
  if (error = host_->build_config(metrics_, config_); !error.empty()) return error;

  auto enable = GPUSCOPE_CUPTI_PARAMS(CUpti_RangeProfiler_Enable_Params);
  enable.ctx = context;
  if (CUptiResult rc = p.RangeEnable(&enable); rc != CUPTI_SUCCESS) return failure("cuptiRangeProfilerEnable", rc);
  object_ = enable.pRangeProfilerObject;
  auto size = GPUSCOPE_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataSize_Params);
  size.pRangeProfilerObject = object_;
  size.pMetricNames = metric_ptrs_.data();
  size.numMetrics = metric_ptrs_.size();
  size.maxNumOfRanges = kRangesPerImage;
  size.maxNumRangeTreeNodes = kRangesPerImage;
  if (CUptiResult rc = p.RangeGetCounterDataSize(&size); rc != CUPTI_SUCCESS)
    return failure("cuptiRangeProfilerGetCounterDataSize", rc);
  counter_data_.assign(size.counterDataSize, 0);
  return configure();
}

// A fresh counter data image and the configuration that writes into it.
std::string RangeSession::configure() {
  const gpuscope::capture::ProfilerApi& p = api_->profiler;
  auto init = GPUSCOPE_CUPTI_PARAMS(CUpti_RangeProfiler_CounterDataImage_Initialize_Params);
  init.pRangeProfilerObject = object_;
  init.pCounterData = counter_data_.data();
  init.counterDataSize = counter_data_.size();
  if (CUptiResult rc = p.RangeCounterDataImageInitialize(&init); rc != CUPTI_SUCCESS)
    return failure("cuptiRangeProfilerCounterDataImageInitialize", rc);
  auto set = GPUSCOPE_CUPTI_PARAMS(CUpti_RangeProfiler_SetConfig_Params);
  set.pRangeProfilerObject = object_;
  set.configSize = config_.image.size();
  set.pConfig = config_.image.data();
  set.counterDataImageSize = counter_data_.size();
  set.pCounterDataImage = counter_data_.data();
  set.range = CUPTI_AutoRange;
  set.replayMode = user_replay_ ? CUPTI_UserReplay : CUPTI_KernelReplay;
  set.maxRangesPerPass = kRangesPerImage;
  set.numNestingLevels = 1;
  set.minNestingLevel = 1;
  if (CUptiResult rc = p.RangeSetConfig(&set); rc != CUPTI_SUCCESS) return failure("cuptiRangeProfilerSetConfig", rc);
  return "";
}

void RangeSession::start() {
  auto start = GPUSCOPE_CUPTI_PARAMS(CUpti_RangeProfiler_Start_Params);
  start.pRangeProfilerObject = object_;
  if (CUptiResult rc = api_->profiler.RangeStart(&start); rc != CUPTI_SUCCESS) {
    std::fprintf(stderr, "replay_pass_cost: %s\n", failure("cuptiRangeProfilerStart", rc).c_str());
    std::exit(1);
  }
}

bool RangeSession::stop() {
  auto stop = GPUSCOPE_CUPTI_PARAMS(CUpti_RangeProfiler_Stop_Params);
  stop.pRangeProfilerObject = object_;
  if (CUptiResult rc = api_->profiler.RangeStop(&stop); rc != CUPTI_SUCCESS) {
    std::fprintf(stderr, "replay_pass_cost: %s\n", failure("cuptiRangeProfilerStop", rc).c_str());
    std::exit(1);
  }
  return stop.isAllPassSubmitted != 0;
}

std::string RangeSession::last_range(std::vector<double>& values) {
  const gpuscope::capture::ProfilerApi& p = api_->profiler;
  auto decode = GPUSCOPE_CUPTI_PARAMS(CUpti_RangeProfiler_DecodeData_Params);
  decode.pRangeProfilerObject = object_;
  if (CUptiResult rc = p.RangeDecodeData(&decode); rc != CUPTI_SUCCESS)
    return failure("cuptiRangeProfilerDecodeData", rc);
  auto info = GPUSCOPE_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataInfo_Params);
  info.pCounterDataImage = counter_data_.data();
  info.counterDataImageSize = counter_data_.size();
  if (CUptiResult rc = p.RangeGetCounterDataInfo(&info); rc != CUPTI_SUCCESS)
    return failure("cuptiRangeProfilerGetCounterDataInfo", rc);
  if (info.numTotalRanges == 0) return "the pass produced no range";
  if (std::string error = host_->evaluate(counter_data_, info.numTotalRanges - 1, metrics_, values); !error.empty())
    return error;
  // Room for the next set of launches (at most half an image each: see --kernels-per-pass).
  return info.numTotalRanges * 2 >= kRangesPerImage ? configure() : "";
}

#include "capture/cupti_loader.h"

#include <dlfcn.h>

#include <mutex>

#include "capture/cupti_compat.h"
#include "capture/failed_calls.h"

namespace gpuscope::capture {
namespace {

const char* const kToolkitDirs[] = {
    "/usr/local/cuda/extras/CUPTI/lib64",
    "/usr/local/cuda/lib64",
    "/usr/local/cuda/lib",
    "/usr/local/cuda/targets/x86_64-linux/lib",
};

// Sonames of CUPTI builds we cannot decode; if the program holds one, we stay out.
const char* const kForeignSonames[] = {"libcupti.so.12", "libcupti.so.14", "libcupti.so.11.8"};

template <class Fn>
bool resolve(void* handle, const char* name, Fn& out) {
  out = reinterpret_cast<Fn>(dlsym(handle, name));
  return out != nullptr;
}

void resolve_profiler(void* handle, ProfilerApi& p) {
  resolve(handle, "cuptiSubscribe", p.Subscribe);
  resolve(handle, "cuptiUnsubscribe", p.Unsubscribe);
  resolve(handle, "cuptiEnableCallback", p.EnableCallback);
  resolve(handle, "cuptiGetDeviceId", p.GetDeviceId);
  resolve(handle, "cuptiProfilerInitialize", p.Initialize);
  resolve(handle, "cuptiProfilerDeInitialize", p.DeInitialize);
  resolve(handle, "cuptiProfilerDeviceSupported", p.DeviceSupported);
  resolve(handle, "cuptiDeviceGetChipName", p.DeviceGetChipName);
  resolve(handle, "cuptiRangeProfilerEnable", p.RangeEnable);
  resolve(handle, "cuptiRangeProfilerDisable", p.RangeDisable);
  resolve(handle, "cuptiRangeProfilerSetConfig", p.RangeSetConfig);
  resolve(handle, "cuptiRangeProfilerStart", p.RangeStart);
  resolve(handle, "cuptiRangeProfilerStop", p.RangeStop);
  resolve(handle, "cuptiRangeProfilerDecodeData", p.RangeDecodeData);
  resolve(handle, "cuptiRangeProfilerGetCounterDataSize", p.RangeGetCounterDataSize);
  resolve(handle, "cuptiRangeProfilerCounterDataImageInitialize", p.RangeCounterDataImageInitialize);
  resolve(handle, "cuptiRangeProfilerGetCounterDataInfo", p.RangeGetCounterDataInfo);
  resolve(handle, "cuptiRangeProfilerCounterDataGetRangeInfo", p.RangeCounterDataGetRangeInfo);
  resolve(handle, "cuptiPmSamplingSetConfig", p.PmSetConfig);
  resolve(handle, "cuptiPmSamplingEnable", p.PmEnable);
  resolve(handle, "cuptiPmSamplingDisable", p.PmDisable);
  resolve(handle, "cuptiPmSamplingStart", p.PmStart);
  resolve(handle, "cuptiPmSamplingStop", p.PmStop);
  resolve(handle, "cuptiPmSamplingDecodeData", p.PmDecodeData);
  resolve(handle, "cuptiPmSamplingGetCounterAvailability", p.PmGetCounterAvailability);
  resolve(handle, "cuptiPmSamplingGetCounterDataSize", p.PmGetCounterDataSize);
  resolve(handle, "cuptiPmSamplingCounterDataImageInitialize", p.PmCounterDataImageInitialize);
  resolve(handle, "cuptiPmSamplingGetCounterDataInfo", p.PmGetCounterDataInfo);
  resolve(handle, "cuptiPmSamplingCounterDataGetSampleInfo", p.PmCounterDataGetSampleInfo);
  resolve(handle, "cuptiProfilerHostInitialize", p.HostInitialize);
  resolve(handle, "cuptiProfilerHostDeinitialize", p.HostDeinitialize);
  resolve(handle, "cuptiProfilerHostGetSupportedChips", p.HostGetSupportedChips);
  resolve(handle, "cuptiProfilerHostGetBaseMetrics", p.HostGetBaseMetrics);
  resolve(handle, "cuptiProfilerHostGetSubMetrics", p.HostGetSubMetrics);
  resolve(handle, "cuptiProfilerHostGetMetricProperties", p.HostGetMetricProperties);
  resolve(handle, "cuptiProfilerHostConfigAddMetrics", p.HostConfigAddMetrics);
  resolve(handle, "cuptiProfilerHostGetConfigImageSize", p.HostGetConfigImageSize);
  resolve(handle, "cuptiProfilerHostGetConfigImage", p.HostGetConfigImage);
  resolve(handle, "cuptiProfilerHostGetNumOfPasses", p.HostGetNumOfPasses);
  resolve(handle, "cuptiProfilerHostEvaluateToGpuValues", p.HostEvaluateToGpuValues);
  resolve(handle, "cuptiPCSamplingEnable", p.PcEnable);
  resolve(handle, "cuptiPCSamplingDisable", p.PcDisable);
  resolve(handle, "cuptiPCSamplingGetData", p.PcGetData);
  resolve(handle, "cuptiPCSamplingSetConfigurationAttribute", p.PcSetConfig);
  resolve(handle, "cuptiPCSamplingGetConfigurationAttribute", p.PcGetConfig);
  resolve(handle, "cuptiPCSamplingGetNumStallReasons", p.PcGetNumStallReasons);
  resolve(handle, "cuptiPCSamplingGetStallReasons", p.PcGetStallReasons);
  resolve(handle, "cuptiGetCubinCrc", p.GetCubinCrc);
  resolve(handle, "cuptiGetSassToSourceCorrelation", p.GetSassToSource);
}

// Fills the table; returns the name of the first missing required symbol, or null.
const char* resolve_api(void* handle, CuptiApi& api) {
#define GPUSCOPE_REQUIRED(field, symbol) \
  if (!resolve(handle, symbol, api.field)) return symbol;
  GPUSCOPE_REQUIRED(GetVersion, "cuptiGetVersion")
  GPUSCOPE_REQUIRED(GetResultString, "cuptiGetResultString")
  GPUSCOPE_REQUIRED(GetCallbackName, "cuptiGetCallbackName")
  GPUSCOPE_REQUIRED(ActivityRegisterCallbacks, "cuptiActivityRegisterCallbacks")
  GPUSCOPE_REQUIRED(ActivityEnable, "cuptiActivityEnable")
  GPUSCOPE_REQUIRED(ActivityDisable, "cuptiActivityDisable")
  GPUSCOPE_REQUIRED(ActivityFlushAll, "cuptiActivityFlushAll")
  GPUSCOPE_REQUIRED(ActivityGetNextRecord, "cuptiActivityGetNextRecord")
  GPUSCOPE_REQUIRED(ActivityGetNumDroppedRecords, "cuptiActivityGetNumDroppedRecords")
#undef GPUSCOPE_REQUIRED
  resolve(handle, "cuptiSetThreadIdType", api.SetThreadIdType);
  resolve(handle, "cuptiActivityFlushPeriod", api.ActivityFlushPeriod);
  resolve(handle, "cuptiActivitySetAttribute", api.ActivitySetAttribute);
  resolve(handle, "cuptiActivityEnableAllSyncRecords", api.ActivityEnableAllSyncRecords);
  resolve(handle, "cuptiActivityEnableRuntimeApi", api.ActivityEnableRuntimeApi);
  resolve(handle, "cuptiActivityEnableDriverApi", api.ActivityEnableDriverApi);
  resolve(handle, "cuptiGetStreamIdEx", api.GetStreamIdEx);
  resolve(handle, "cuptiGetGraphNodeId", api.GetGraphNodeId);
  resolve(handle, "InitializeInjectionNvtx2", api.InitializeInjectionNvtx2);
  resolve_profiler(handle, api.profiler);
  return nullptr;
}

void* open_cupti(const std::string& configured_path, bool& reused, std::string& last_error, std::string& warning) {
  void* handle = dlopen(kCuptiSoname, RTLD_NOLOAD | RTLD_NOW);
  if (handle != nullptr) {
    reused = true;  // the program's copy wins over cupti=: two CUPTIs must never coexist
    return handle;
  }
  auto try_open = [&](const std::string& path) -> void* {
    void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (h == nullptr) {
      const char* err = dlerror();
      last_error = err ? err : path + ": cannot open";
    }
    return h;
  };
  if (!configured_path.empty()) {
    if ((handle = try_open(configured_path)) != nullptr) return handle;
    // An explicit path that fails is worth a word even if a fallback works.
    warning = "cannot load cupti=" + configured_path + " (" + last_error + "); using the toolkit's CUPTI";
  }
  for (const char* dir : kToolkitDirs) {
    if ((handle = try_open(std::string(dir) + "/" + kCuptiSoname)) != nullptr) return handle;
  }
  return try_open(kCuptiSoname);
}

CuptiLibrary load(const std::string& configured_path) {
  CuptiLibrary lib;
  for (const char* soname : kForeignSonames) {
    if (void* other = dlopen(soname, RTLD_NOLOAD | RTLD_NOW)) {
      dlclose(other);  // drops only the reference NOLOAD just took
      lib.error = std::string("the program already loaded ") + soname + ", and this gpuscope build needs " +
                  kCuptiSoname + "; two CUPTIs cannot share a process, so capture is off";
      return lib;
    }
  }

  std::string last_error;
  void* handle = open_cupti(configured_path, lib.reused, last_error, lib.warning);
  if (handle == nullptr) {
    lib.error = std::string("cannot load ") + kCuptiSoname + " (" + last_error +
                "); install CUDA 13's CUPTI or set cupti=/path/" + kCuptiSoname + " in the capture options";
    return lib;
  }
  if (const char* missing = resolve_api(handle, lib.api)) {
    lib.error = std::string("the loaded libcupti lacks ") + missing + "; it is not CUDA 13's CUPTI";
    return lib;  // keep it loaded: the program may be using it
  }

  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(lib.api.GetVersion), &info) != 0 && info.dli_fname != nullptr) {
    lib.path = info.dli_fname;
  } else {
    lib.path = kCuptiSoname;
  }
  if (const CUptiResult rc = lib.api.GetVersion(&lib.version); rc != CUPTI_SUCCESS) {
    lib.error = "libcupti at " + lib.path + ": cuptiGetVersion returned " + cupti_result_text(lib.api, rc) +
                ", so its record layout is unknown; " + cupti_error_advice(rc);
    return lib;
  }
  if (!cupti_version_supported(lib.version)) {
    lib.error = "libcupti at " + lib.path + " reports API version " + std::to_string(lib.version) +
                "; this gpuscope build reads CUDA 13 CUPTI records only";
    return lib;
  }
  lib.ok = true;
  return lib;
}

}  // namespace

bool ProfilerApi::has_host() const {
  return HostInitialize && HostDeinitialize && HostGetSupportedChips && HostGetBaseMetrics && HostGetSubMetrics &&
         HostGetMetricProperties && HostConfigAddMetrics && HostGetConfigImageSize && HostGetConfigImage &&
         HostGetNumOfPasses && HostEvaluateToGpuValues;
}

bool ProfilerApi::has_range_profiler() const {
  return Subscribe && Unsubscribe && EnableCallback && Initialize && DeviceGetChipName && RangeEnable && RangeDisable &&
         RangeSetConfig && RangeStart && RangeStop && RangeDecodeData && RangeGetCounterDataSize &&
         RangeCounterDataImageInitialize && RangeGetCounterDataInfo && RangeCounterDataGetRangeInfo;
}

bool ProfilerApi::has_pm_sampling() const {
  return Subscribe && EnableCallback && GetDeviceId && Initialize && DeviceGetChipName && PmSetConfig && PmEnable &&
         PmDisable && PmStart && PmStop && PmDecodeData && PmGetCounterAvailability && PmGetCounterDataSize &&
         PmCounterDataImageInitialize && PmGetCounterDataInfo && PmCounterDataGetSampleInfo;
}

bool ProfilerApi::has_pc_sampling() const {
  return Subscribe && EnableCallback && GetDeviceId && PcEnable && PcDisable && PcGetData && PcSetConfig &&
         PcGetConfig && PcGetNumStallReasons && PcGetStallReasons && GetCubinCrc;
}

const CuptiLibrary& load_cupti(const std::string& configured_path) {
  static std::once_flag once;
  // Leaked on purpose: CUPTI may call into us during process teardown, after static
  // destructors would have run.
  static CuptiLibrary* library = nullptr;
  std::call_once(once, [&] { library = new CuptiLibrary(load(configured_path)); });
  return *library;
}

std::string cupti_result_text(const CuptiApi& api, CUptiResult rc) {
  const char* text = nullptr;
  if (api.GetResultString != nullptr && api.GetResultString(rc, &text) == CUPTI_SUCCESS && text != nullptr) {
    return text;
  }
  return cupti_error_text(rc);
}

std::string cupti_call_failure(const CuptiApi& api, const char* call, CUptiResult rc) {
  return std::string(call) + " returned " + cupti_result_text(api, rc) + " (" + cupti_error_advice(rc) + ")";
}

void enable_callback(const CuptiApi& api, uint32_t enable, CUpti_SubscriberHandle subscriber,
                     CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const char* cost) {
  if (const CUptiResult rc = api.profiler.EnableCallback(enable, subscriber, domain, cbid); rc != CUPTI_SUCCESS)
    note_failed_call("cuptiEnableCallback", cupti_result_text(api, rc), cost);
}

}  // namespace gpuscope::capture

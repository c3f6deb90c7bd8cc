// Finds libcupti at run time and resolves every CUPTI function we use into one table.
//
// We never link libcupti: two CUPTI copies in one process end badly, and the program
// may already carry one (PyTorch's wheel ships libcupti.so.13). The search, first hit wins:
//   1. a libcupti.so.13 already loaded in the process (dlopen RTLD_NOLOAD)
//   2. the path from the config (cupti=...)
//   3. the toolkit: /usr/local/cuda/{extras/CUPTI/lib64,lib64,lib,targets/x86_64-linux/lib}
//   4. the plain soname, through the normal library search path
// Before that, if a CUPTI of another major version is already loaded we stop: loading
// ours too would put two CUPTIs in the process, and we cannot read the other's records.
// The library is loaded RTLD_LOCAL and never unloaded; a later dlopen of the soname by
// the program finds this same copy.
//
// Both entry points (InitializeInjection for CUDA, InitializeInjectionNvtx2 for NVTX)
// may come first, from any thread: load_cupti() runs the search exactly once
// (std::call_once) and every caller gets the same result.
#pragma once

#include <cupti.h>
#include <cupti_pcsampling.h>
#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <cstdint>
#include <string>

namespace gpuscope::capture {

// NVTX's injection entry point (nvtxDetail/nvtxTypes.h: NvtxInitializeInjectionNvtxFunc_t;
// NVTX_API is empty on Linux). Spelled out so we need no NVTX headers.
using NvtxGetExportTableFn = const void* (*)(uint32_t export_table_id);
using NvtxInitializeFn = int (*)(NvtxGetExportTableFn get_export_table);

// The hardware-counter side of CUPTI (range profiler, PM sampling, the host-side metric
// API). All optional: tracing works without them, and each user checks what it needs.
struct ProfilerApi {
  // Callbacks, to act around kernel launches.
  decltype(&::cuptiSubscribe) Subscribe = nullptr;
  decltype(&::cuptiUnsubscribe) Unsubscribe = nullptr;
  decltype(&::cuptiEnableCallback) EnableCallback = nullptr;
  decltype(&::cuptiGetDeviceId) GetDeviceId = nullptr;  // device ordinal of a context
  // Target side.
  decltype(&::cuptiProfilerInitialize) Initialize = nullptr;
  decltype(&::cuptiProfilerDeInitialize) DeInitialize = nullptr;
  decltype(&::cuptiProfilerDeviceSupported) DeviceSupported = nullptr;
  decltype(&::cuptiDeviceGetChipName) DeviceGetChipName = nullptr;
  decltype(&::cuptiRangeProfilerEnable) RangeEnable = nullptr;
  decltype(&::cuptiRangeProfilerDisable) RangeDisable = nullptr;
  decltype(&::cuptiRangeProfilerSetConfig) RangeSetConfig = nullptr;
  decltype(&::cuptiRangeProfilerStart) RangeStart = nullptr;
  decltype(&::cuptiRangeProfilerStop) RangeStop = nullptr;
  decltype(&::cuptiRangeProfilerDecodeData) RangeDecodeData = nullptr;
  decltype(&::cuptiRangeProfilerGetCounterDataSize) RangeGetCounterDataSize = nullptr;
  decltype(&::cuptiRangeProfilerCounterDataImageInitialize) RangeCounterDataImageInitialize = nullptr;
  decltype(&::cuptiRangeProfilerGetCounterDataInfo) RangeGetCounterDataInfo = nullptr;
  decltype(&::cuptiRangeProfilerCounterDataGetRangeInfo) RangeCounterDataGetRangeInfo = nullptr;
  decltype(&::cuptiPmSamplingSetConfig) PmSetConfig = nullptr;
  decltype(&::cuptiPmSamplingEnable) PmEnable = nullptr;
  decltype(&::cuptiPmSamplingDisable) PmDisable = nullptr;
  decltype(&::cuptiPmSamplingStart) PmStart = nullptr;
  decltype(&::cuptiPmSamplingStop) PmStop = nullptr;
  decltype(&::cuptiPmSamplingDecodeData) PmDecodeData = nullptr;
  decltype(&::cuptiPmSamplingGetCounterAvailability) PmGetCounterAvailability = nullptr;
  decltype(&::cuptiPmSamplingGetCounterDataSize) PmGetCounterDataSize = nullptr;
  decltype(&::cuptiPmSamplingCounterDataImageInitialize) PmCounterDataImageInitialize = nullptr;
  decltype(&::cuptiPmSamplingGetCounterDataInfo) PmGetCounterDataInfo = nullptr;
  decltype(&::cuptiPmSamplingCounterDataGetSampleInfo) PmCounterDataGetSampleInfo = nullptr;
  // Host side (no GPU needed): metric lists, configurations, evaluation.
  decltype(&::cuptiProfilerHostInitialize) HostInitialize = nullptr;
  decltype(&::cuptiProfilerHostDeinitialize) HostDeinitialize = nullptr;
  decltype(&::cuptiProfilerHostGetSupportedChips) HostGetSupportedChips = nullptr;
  decltype(&::cuptiProfilerHostGetBaseMetrics) HostGetBaseMetrics = nullptr;
  decltype(&::cuptiProfilerHostGetSubMetrics) HostGetSubMetrics = nullptr;
  decltype(&::cuptiProfilerHostGetMetricProperties) HostGetMetricProperties = nullptr;
  decltype(&::cuptiProfilerHostConfigAddMetrics) HostConfigAddMetrics = nullptr;
  decltype(&::cuptiProfilerHostGetConfigImageSize) HostGetConfigImageSize = nullptr;
  decltype(&::cuptiProfilerHostGetConfigImage) HostGetConfigImage = nullptr;
  decltype(&::cuptiProfilerHostGetNumOfPasses) HostGetNumOfPasses = nullptr;
  decltype(&::cuptiProfilerHostEvaluateToGpuValues) HostEvaluateToGpuValues = nullptr;

  // PC sampling (`--source`) and the module CRCs its samples are keyed by.
  decltype(&::cuptiPCSamplingEnable) PcEnable = nullptr;
  decltype(&::cuptiPCSamplingDisable) PcDisable = nullptr;
  decltype(&::cuptiPCSamplingGetData) PcGetData = nullptr;
  decltype(&::cuptiPCSamplingSetConfigurationAttribute) PcSetConfig = nullptr;
  decltype(&::cuptiPCSamplingGetConfigurationAttribute) PcGetConfig = nullptr;
  decltype(&::cuptiPCSamplingGetNumStallReasons) PcGetNumStallReasons = nullptr;
  decltype(&::cuptiPCSamplingGetStallReasons) PcGetStallReasons = nullptr;
  decltype(&::cuptiGetCubinCrc) GetCubinCrc = nullptr;
  // Host side, at report time: a PC's source file and line from the cubin's line table.
  decltype(&::cuptiGetSassToSourceCorrelation) GetSassToSource = nullptr;

  bool has_host() const;            // every Host* pointer resolved
  bool has_range_profiler() const;  // callbacks, target init and every Range* pointer
  bool has_pm_sampling() const;     // callbacks, target init and every Pm* pointer
  bool has_pc_sampling() const;     // callbacks and every Pc* pointer and GetCubinCrc
};

struct CuptiApi {
  // Required: the library is unusable without any of these.
  decltype(&::cuptiGetVersion) GetVersion = nullptr;
  decltype(&::cuptiGetResultString) GetResultString = nullptr;
  decltype(&::cuptiGetCallbackName) GetCallbackName = nullptr;
  decltype(&::cuptiActivityRegisterCallbacks) ActivityRegisterCallbacks = nullptr;
  decltype(&::cuptiActivityEnable) ActivityEnable = nullptr;
  decltype(&::cuptiActivityDisable) ActivityDisable = nullptr;
  decltype(&::cuptiActivityFlushAll) ActivityFlushAll = nullptr;
  decltype(&::cuptiActivityGetNextRecord) ActivityGetNextRecord = nullptr;
  decltype(&::cuptiActivityGetNumDroppedRecords) ActivityGetNumDroppedRecords = nullptr;
  // Optional: used when present.
  decltype(&::cuptiSetThreadIdType) SetThreadIdType = nullptr;
  decltype(&::cuptiActivityFlushPeriod) ActivityFlushPeriod = nullptr;
  decltype(&::cuptiActivitySetAttribute) ActivitySetAttribute = nullptr;
  decltype(&::cuptiActivityEnableAllSyncRecords) ActivityEnableAllSyncRecords = nullptr;
  decltype(&::cuptiActivityEnableRuntimeApi) ActivityEnableRuntimeApi = nullptr;  // the lean API trace
  decltype(&::cuptiActivityEnableDriverApi) ActivityEnableDriverApi = nullptr;
  decltype(&::cuptiGetStreamIdEx) GetStreamIdEx = nullptr;    // the stream of a core trace's synchronization
  decltype(&::cuptiGetGraphNodeId) GetGraphNodeId = nullptr;  // graph nodes' ids, as kernels carry them
  // libcupti's own NVTX injection entry: forwarding NVTX to it is what makes CUPTI
  // produce MARKER records.
  NvtxInitializeFn InitializeInjectionNvtx2 = nullptr;
  ProfilerApi profiler;
};

struct CuptiLibrary {
  bool ok = false;
  CuptiApi api;
  std::string path;      // the file actually loaded (from dladdr)
  uint32_t version = 0;  // cuptiGetVersion
  bool reused = false;   // it was already loaded by the program
  std::string error;     // when !ok: one line, what happened and what to do
  std::string warning;   // when ok but cupti= could not be loaded and a fallback was used
};

// Loads once per process; `configured_path` (may be empty) only matters on the first call.
const CuptiLibrary& load_cupti(const std::string& configured_path);

// "CUPTI_ERROR_X" through the library's cuptiGetResultString, or our own table.
std::string cupti_result_text(const CuptiApi& api, CUptiResult rc);

// "CALL returned CUPTI_ERROR_X (what to do)": one line for a failed CUPTI call.
std::string cupti_call_failure(const CuptiApi& api, const char* call, CUptiResult rc);

// cuptiEnableCallback; a failure is said once and counted (failed_calls.h) as costing `cost`.
void enable_callback(const CuptiApi& api, uint32_t enable, CUpti_SubscriberHandle subscriber,
                     CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const char* cost);

}  // namespace gpuscope::capture

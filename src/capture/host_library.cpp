// libgpuscope_cupti_host.so: CUPTI's host-side metric API for the CLI, which must stay
// CUDA-free and never link libcupti. The CLI dlopens this library (found next to its binary)
// only for `gpuscope metrics`; the library dlopens libcupti through load_cupti().
//
// The C ABI (version kAbiVersion; the CLI refuses another). Every function but the first and
// the last returns a malloc'd UTF-8 JSON object the caller releases with
// gpuscope_cupti_host_free(): {"ok": true, ...} or {"ok": false, "error": "one line"}.
// Null only if memory runs out. Nothing throws across this boundary.
//
//   int   gpuscope_cupti_host_abi_version(void)
//   char* gpuscope_cupti_host_chips(void)
//           -> chips: ["GA100", ...], cupti: {path, version}
//   char* gpuscope_cupti_host_metrics(const char* chip, int pm_sampling, int with_submetrics)
//           -> chip, profiler, metrics: [{name, type, description, hw_unit, dim_unit[, submetrics]}]
//   char* gpuscope_cupti_host_check(const char* chip, int pm_sampling, const char* const* names, size_t count,
//                                   const char* const* required, size_t required_count)
//           -> chip, profiler, metrics (count collected), passes, config_bytes, not_on_chip: [names]; or the
//              first bad name as error. The range profiler adapts the list to the chip as the capture
//              library does (configure_for_chip: `required` names are never left out); PM sampling
//              does not.
//   char* gpuscope_cupti_host_local_chip(void)
//           -> chip: "GH100" and devices: N, or chip: null and reason: why there is no GPU
//   char* gpuscope_cupti_host_source_lines(const void* cubin, size_t size, const char* function,
//                                          const uint64_t* pcs, size_t count)
//           -> lines: [[file, line], ...], one per PC in order (file "" and line 0: not in the line
//              table); from the cubin's line table (built with -lineinfo or -G), no GPU needed
//   void  gpuscope_cupti_host_free(char* json)
#include <cuda.h>
#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "capture/cupti_loader.h"
#include "capture/metrics_host.h"

namespace {

using gpuscope::capture::CuptiApi;
using gpuscope::capture::MetricsHost;
using gpuscope::capture::ProfilerKind;
using json = nlohmann::json;

constexpr int kAbiVersion = 3;

#define GPUSCOPE_EXPORT extern "C" __attribute__((visibility("default")))

char* to_c(const json& doc) {
  const std::string text = doc.dump(-1, ' ', false, json::error_handler_t::replace);
  char* out = static_cast<char*>(std::malloc(text.size() + 1));
  if (out != nullptr) std::memcpy(out, text.c_str(), text.size() + 1);
  return out;
}

json failed(const std::string& error) { return {{"ok", false}, {"error", error}}; }

// Runs `body` (which fills a JSON object or returns an error) with libcupti loaded. Anything
// thrown (bad_alloc, a JSON error) becomes an error document; null only if even that fails.
template <class Body>
char* answer(Body body) noexcept {
  std::string error;
  try {
    const auto& cupti = gpuscope::capture::load_cupti("");
    if (!cupti.ok) return to_c(failed("CUPTI's host API needs libcupti: " + cupti.error));
    json doc = {{"ok", true}};
    if (error = body(cupti.api, doc); error.empty()) return to_c(doc);
  } catch (const std::exception& e) {
    error = std::string("internal error: ") + e.what();
  } catch (...) {
    error = "internal error";
  }
  try {
    return to_c(failed(error));
  } catch (...) {
    return nullptr;
  }
}

ProfilerKind kind_of(int pm_sampling) { return pm_sampling ? ProfilerKind::PmSampling : ProfilerKind::RangeProfiler; }

std::string chip_text(const char* chip) { return chip ? chip : ""; }

// The chip of CUDA device 0, or "" with `reason` when this machine has no usable GPU.
// Asks the driver first, so CUPTI's target side is touched only when a device exists:
// without a driver or device there is nothing to wait for and nothing to hang on.
std::string local_chip(const CuptiApi& api, int& devices, std::string& reason, std::string& error) {
  void* cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (cuda == nullptr) {
    reason = "no CUDA driver: libcuda.so.1 not found";
    return "";
  }
  using InitFn = CUresult (*)(unsigned int);
  using CountFn = CUresult (*)(int*);
  auto init = reinterpret_cast<InitFn>(dlsym(cuda, "cuInit"));
  auto count = reinterpret_cast<CountFn>(dlsym(cuda, "cuDeviceGetCount"));
  if (init == nullptr || count == nullptr) {
    reason = "libcuda.so.1 lacks cuInit/cuDeviceGetCount";
    return "";
  }
  if (const CUresult rc = init(0); rc != CUDA_SUCCESS) {
    using NameFn = CUresult (*)(CUresult, const char**);
    auto name_of = reinterpret_cast<NameFn>(dlsym(cuda, "cuGetErrorName"));
    const char* name = nullptr;
    if (name_of == nullptr || name_of(rc, &name) != CUDA_SUCCESS) name = nullptr;  // the stub library has no names
    reason = "cuInit returned " + (name ? std::string(name) + " = " : std::string("CUDA error ")) +
             std::to_string(static_cast<int>(rc));
    return "";
  }
  if (count(&devices) != CUDA_SUCCESS || devices <= 0) {
    reason = "the CUDA driver sees no device";
    return "";
  }
  const auto& p = api.profiler;
  if (p.Initialize == nullptr || p.DeviceGetChipName == nullptr) {
    error = "the loaded libcupti lacks cuptiProfilerInitialize/cuptiDeviceGetChipName";
    return "";
  }
  auto init_params = GPUSCOPE_CUPTI_PARAMS(CUpti_Profiler_Initialize_Params);
  if (const CUptiResult rc = p.Initialize(&init_params); rc != CUPTI_SUCCESS) {
    error = "cannot start CUPTI's profiler to read the GPU's chip (" + gpuscope::capture::cupti_result_text(api, rc) +
            ")";
    return "";
  }
  auto name = GPUSCOPE_CUPTI_PARAMS(CUpti_Device_GetChipName_Params);
  name.deviceIndex = 0;
  const CUptiResult rc = p.DeviceGetChipName(&name);
  std::string chip = rc == CUPTI_SUCCESS && name.pChipName ? name.pChipName : "";
  if (chip.empty()) error = "cannot read the chip of GPU 0 (" + gpuscope::capture::cupti_result_text(api, rc) + ")";
  if (p.DeInitialize != nullptr) {
    auto deinit = GPUSCOPE_CUPTI_PARAMS(CUpti_Profiler_DeInitialize_Params);
    p.DeInitialize(&deinit);
  }
  return chip;
}

}  // namespace

GPUSCOPE_EXPORT int gpuscope_cupti_host_abi_version(void) { return kAbiVersion; }

GPUSCOPE_EXPORT char* gpuscope_cupti_host_source_lines(const void* cubin, size_t size, const char* function,
                                                       const uint64_t* pcs, size_t count) {
  return answer([&](const CuptiApi& api, json& doc) -> std::string {
    if (api.profiler.GetSassToSource == nullptr) return "this libcupti lacks cuptiGetSassToSourceCorrelation";
    json lines = json::array();
    for (size_t i = 0; i < count; ++i) {
      CUpti_GetSassToSourceCorrelationParams params{};
      params.size = CUpti_GetSassToSourceCorrelationParamsSize;
      params.cubin = cubin;
      params.cubinSize = size;
      params.functionName = function;
      params.pcOffset = pcs[i];
      std::string file;
      uint32_t line = 0;
      if (api.profiler.GetSassToSource(&params) == CUPTI_SUCCESS) {
        if (params.dirName && params.dirName[0]) file = std::string(params.dirName) + "/";
        if (params.fileName) file += params.fileName;
        line = params.lineNumber;
      }
      std::free(params.fileName);
      std::free(params.dirName);
      lines.push_back(json::array({file, line}));
    }
    doc["lines"] = std::move(lines);
    return "";
  });
}

GPUSCOPE_EXPORT char* gpuscope_cupti_host_chips(void) {
  return answer([](const CuptiApi& api, json& doc) {
    std::vector<std::string> chips;
    std::string error = gpuscope::capture::supported_chips(api, chips);
    const auto& cupti = gpuscope::capture::load_cupti("");
    doc["chips"] = chips;
    doc["cupti"] = {{"path", cupti.path}, {"version", cupti.version}};
    return error;
  });
}

GPUSCOPE_EXPORT char* gpuscope_cupti_host_metrics(const char* chip, int pm_sampling, int with_submetrics) {
  return answer([&](const CuptiApi& api, json& doc) {
    std::string error;
    auto host = MetricsHost::create(api, chip_text(chip), kind_of(pm_sampling), error);
    if (!host) return error;
    std::vector<gpuscope::capture::MetricDescription> metrics;
    if (error = host->list_metrics(with_submetrics != 0, metrics); !error.empty()) return error;
    json list = json::array();
    for (const auto& m : metrics) {
      json item = {{"name", m.name},
                   {"type", m.type},
                   {"description", m.description},
                   {"hw_unit", m.hw_unit},
                   {"dim_unit", m.dim_unit}};
      if (with_submetrics) item["submetrics"] = m.submetrics;
      list.push_back(std::move(item));
    }
    doc["chip"] = host->chip();
    doc["profiler"] = gpuscope::capture::profiler_kind_name(host->kind());
    doc["metrics"] = std::move(list);
    return error;
  });
}

GPUSCOPE_EXPORT char* gpuscope_cupti_host_check(const char* chip, int pm_sampling, const char* const* names,
                                                size_t count, const char* const* required, size_t required_count) {
  return answer([&](const CuptiApi& api, json& doc) {
    const auto strings = [](const char* const* texts, size_t n) {
      std::vector<std::string> out;
      for (size_t i = 0; i < n; ++i) out.push_back(texts[i] ? texts[i] : "");
      return out;
    };
    const std::vector<std::string> list = strings(names, count);
    gpuscope::capture::ChipConfig chosen;
    if (pm_sampling) {
      chosen.host = MetricsHost::create(api, chip_text(chip), ProfilerKind::PmSampling, chosen.error);
      if (chosen.host) chosen.error = chosen.host->build_config(list, chosen.config);
      chosen.collected = list;
    } else {
      chosen = gpuscope::capture::configure_for_chip(api, chip_text(chip), list, strings(required, required_count));
    }
    if (!chosen.host || !chosen.error.empty()) return chosen.error;
    doc["chip"] = chosen.host->chip();
    doc["profiler"] = gpuscope::capture::profiler_kind_name(chosen.host->kind());
    doc["metrics"] = chosen.collected.size();
    doc["passes"] = chosen.config.passes;
    doc["config_bytes"] = chosen.config.image.size();
    doc["not_on_chip"] = chosen.dropped;
    return std::string();
  });
}

GPUSCOPE_EXPORT char* gpuscope_cupti_host_local_chip(void) {
  return answer([](const CuptiApi& api, json& doc) {
    int devices = 0;
    std::string reason, error;
    const std::string chip = local_chip(api, devices, reason, error);
    doc["chip"] = chip.empty() ? json(nullptr) : json(chip);
    doc["devices"] = devices;
    if (!reason.empty()) doc["reason"] = reason;
    return error;
  });
}

GPUSCOPE_EXPORT void gpuscope_cupti_host_free(char* json_text) { std::free(json_text); }

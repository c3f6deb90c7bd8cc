#include "capture/metrics_host.h"

#include <algorithm>
#include <set>
#include <utility>

namespace gpuscope::capture {
namespace {

CUpti_ProfilerType profiler_type(ProfilerKind kind) {
  return kind == ProfilerKind::PmSampling ? CUPTI_PROFILER_TYPE_PM_SAMPLING : CUPTI_PROFILER_TYPE_RANGE_PROFILER;
}

const char* metric_type_name(CUpti_MetricType type) {
  switch (type) {
    case CUPTI_METRIC_TYPE_COUNTER: return "counter";
    case CUPTI_METRIC_TYPE_RATIO: return "ratio";
    case CUPTI_METRIC_TYPE_THROUGHPUT: return "throughput";
    default: return "unknown";
  }
}

std::string text(const char* s) { return s ? s : ""; }

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

std::vector<const char*> c_names(const std::vector<std::string>& names) {
  std::vector<const char*> out;
  out.reserve(names.size());
  for (const std::string& name : names) out.push_back(name.c_str());
  return out;
}

// A host object that is deinitialized when it goes out of scope (scratch objects).
struct HostObject {
  const ProfilerApi& api;
  CUpti_Profiler_Host_Object* object = nullptr;
  ~HostObject() {
    if (object == nullptr) return;
    auto params = GPUSCOPE_CUPTI_PARAMS(CUpti_Profiler_Host_Deinitialize_Params);
    params.pHostObject = object;
    api.HostDeinitialize(&params);
  }
};

CUptiResult initialize(const ProfilerApi& api, const std::string& chip, ProfilerKind kind,
                       const std::vector<uint8_t>& counter_availability, CUpti_Profiler_Host_Object*& object) {
  auto params = GPUSCOPE_CUPTI_PARAMS(CUpti_Profiler_Host_Initialize_Params);
  params.profilerType = profiler_type(kind);
  params.pChipName = chip.c_str();
  params.pCounterAvailabilityImage = counter_availability.empty() ? nullptr : counter_availability.data();
  const CUptiResult rc = api.HostInitialize(&params);
  object = rc == CUPTI_SUCCESS ? params.pHostObject : nullptr;
  return rc;
}

// Adds `names` to `object` and reads back its config image and pass count. Returns null, or
// the step that failed (for "cannot <step>") with CUPTI's `rc`.
const char* configure(const ProfilerApi& p, CUpti_Profiler_Host_Object* object, const std::vector<const char*>& names,
                      MetricConfig& out, CUptiResult& rc) {
  auto add = GPUSCOPE_CUPTI_PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params);
  add.pHostObject = object;
  add.ppMetricNames = const_cast<const char**>(names.data());  // CUPTI only reads them
  add.numMetrics = names.size();
  if ((rc = p.HostConfigAddMetrics(&add)) != CUPTI_SUCCESS) return "add the metrics";

  auto size = GPUSCOPE_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImageSize_Params);
  size.pHostObject = object;
  if ((rc = p.HostGetConfigImageSize(&size)) != CUPTI_SUCCESS) return "size the config image";
  out.image.resize(size.configImageSize);
  auto image = GPUSCOPE_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImage_Params);
  image.pHostObject = object;
  image.configImageSize = out.image.size();
  image.pConfigImage = out.image.data();
  if ((rc = p.HostGetConfigImage(&image)) != CUPTI_SUCCESS) return "build the config image";

  auto passes = GPUSCOPE_CUPTI_PARAMS(CUpti_Profiler_Host_GetNumOfPasses_Params);
  passes.configImageSize = out.image.size();
  passes.pConfigImage = out.image.data();
  if ((rc = p.HostGetNumOfPasses(&passes)) != CUPTI_SUCCESS) return "count the passes";
  out.passes = passes.numOfPasses;
  return nullptr;
}

}  // namespace

const char* profiler_kind_name(ProfilerKind kind) {
  return kind == ProfilerKind::PmSampling ? "PM sampling" : "range profiler";
}

std::string supported_chips(const CuptiApi& api, std::vector<std::string>& chips) {
  chips.clear();
  if (!api.profiler.has_host()) return "the loaded libcupti lacks the profiler host API (cuptiProfilerHost*)";
  auto params = GPUSCOPE_CUPTI_PARAMS(CUpti_Profiler_Host_GetSupportedChips_Params);
  const CUptiResult rc = api.profiler.HostGetSupportedChips(&params);
  if (rc != CUPTI_SUCCESS) return "cannot list the chips CUPTI supports (" + cupti_result_text(api, rc) + ")";
  for (size_t i = 0; i < params.numChips; ++i) chips.push_back(text(params.ppChipNames[i]));
  return "";
}

std::unique_ptr<MetricsHost> MetricsHost::create(const CuptiApi& api, const std::string& chip, ProfilerKind kind,
                                                 std::string& error, const std::vector<uint8_t>& counter_availability) {
  std::vector<std::string> chips;
  error = supported_chips(api, chips);
  if (!error.empty()) return nullptr;
  // CUPTI keeps the counter availability image it is initialized with (evaluation reads it
  // later), so the object is initialized with the copy it owns, never the caller's buffer:
  // the caller's was freed after set-up and PM sampling then corrupted the heap (H100).
  auto image = std::make_unique<std::vector<uint8_t>>(counter_availability);
  CUpti_Profiler_Host_Object* object = nullptr;
  const CUptiResult rc = initialize(api.profiler, chip, kind, *image, object);
  // A chip missing from the list may still work with a counter availability image (CUPTI
  // supports newer chips that way), so the list is consulted only once CUPTI has refused.
  const bool listed = std::find(chips.begin(), chips.end(), chip) != chips.end();
  if (rc != CUPTI_SUCCESS && !listed) {
    error = "chip '" + chip + "' is not supported by this CUPTI (supported: " + join(chips) + ")";
    return nullptr;
  }
  if (rc != CUPTI_SUCCESS) {
    error = std::string("cannot start CUPTI's ") + profiler_kind_name(kind) + " host API for " + chip + " (" +
            cupti_result_text(api, rc) + ")";
    return nullptr;
  }
  return std::unique_ptr<MetricsHost>(new MetricsHost(api, chip, kind, object, std::move(image)));
}

MetricsHost::MetricsHost(const CuptiApi& api, std::string chip, ProfilerKind kind, CUpti_Profiler_Host_Object* object,
                         std::unique_ptr<std::vector<uint8_t>> counter_availability)
    : api_(api),
      chip_(std::move(chip)),
      kind_(kind),
      object_(object),
      counter_availability_(std::move(counter_availability)) {}

MetricsHost::~MetricsHost() {
  HostObject owned{api_.profiler, object_};  // deinitializes it
}

std::string MetricsHost::failure(const std::string& what, CUptiResult rc) const {
  return what + " on " + chip_ + " (" + profiler_kind_name(kind_) + "): " + cupti_result_text(api_, rc);
}

std::string MetricsHost::base_metric_names(std::vector<std::string>& out) const {
  out.clear();
  for (CUpti_MetricType type : {CUPTI_METRIC_TYPE_COUNTER, CUPTI_METRIC_TYPE_RATIO, CUPTI_METRIC_TYPE_THROUGHPUT}) {
    auto base = GPUSCOPE_CUPTI_PARAMS(CUpti_Profiler_Host_GetBaseMetrics_Params);
    base.pHostObject = object_;
    base.metricType = type;
    if (CUptiResult rc = api_.profiler.HostGetBaseMetrics(&base); rc != CUPTI_SUCCESS)
      return failure(std::string("cannot list ") + metric_type_name(type) + " metrics", rc);
    for (size_t i = 0; i < base.numMetrics; ++i) out.push_back(text(base.ppMetricNames[i]));
  }
  return "";
}

ChipSelection select_for_chip(const std::vector<std::string>& wanted, const std::vector<std::string>& required,
                              const std::vector<std::string>& chip_metrics) {
  const std::set<std::string> on_chip(chip_metrics.begin(), chip_metrics.end());
  ChipSelection out;
  for (const std::string& name : wanted) {
    const bool known = on_chip.count(name.substr(0, name.find('.'))) > 0;
    const bool must = std::find(required.begin(), required.end(), name) != required.end();
    if (known) out.kept.push_back(name);
    else (must ? out.missing_required : out.dropped).push_back(name);
  }
  return out;
}

ChipConfig configure_for_chip(const CuptiApi& api, const std::string& chip, const std::vector<std::string>& names,
                              const std::vector<std::string>& required) {
  ChipConfig out;
  out.host = MetricsHost::create(api, chip, ProfilerKind::RangeProfiler, out.error);
  if (!out.host) return out;
  // Validating (on scratch objects) costs as much as building the configuration (~50 ms on an
  // H100 for `sol`), so it runs only when building fails, to name the bad metric.
  const std::string build_error = out.host->build_config(names, out.config);
  if (build_error.empty()) {
    out.collected = names;
    return out;
  }
  std::vector<std::string> on_chip;
  ChipSelection selection;
  if (out.host->base_metric_names(on_chip).empty()) selection = select_for_chip(names, required, on_chip);
  if (selection.dropped.empty() || !selection.missing_required.empty()) {
    const std::string culprit = out.host->validate(names);
    out.error = culprit.empty() ? build_error : culprit;
    out.host.reset();
    return out;
  }
  out.host = MetricsHost::create(api, chip, ProfilerKind::RangeProfiler, out.error);  // one configuration per object
  if (out.host) out.error = out.host->build_config(selection.kept, out.config);
  if (!out.error.empty()) {
    out.host.reset();
    return out;
  }
  out.collected = std::move(selection.kept);
  out.dropped = std::move(selection.dropped);
  return out;
}

std::string MetricsHost::list_metrics(bool with_submetrics, std::vector<MetricDescription>& out) const {
  out.clear();
  const ProfilerApi& p = api_.profiler;
  for (CUpti_MetricType type : {CUPTI_METRIC_TYPE_COUNTER, CUPTI_METRIC_TYPE_RATIO, CUPTI_METRIC_TYPE_THROUGHPUT}) {
    auto base = GPUSCOPE_CUPTI_PARAMS(CUpti_Profiler_Host_GetBaseMetrics_Params);
    base.pHostObject = object_;
    base.metricType = type;
    CUptiResult rc = p.HostGetBaseMetrics(&base);
    if (rc != CUPTI_SUCCESS) return failure(std::string("cannot list ") + metric_type_name(type) + " metrics", rc);
    for (size_t i = 0; i < base.numMetrics; ++i) {
      MetricDescription metric;
      metric.name = text(base.ppMetricNames[i]);
      metric.type = metric_type_name(type);
      auto props = GPUSCOPE_CUPTI_PARAMS(CUpti_Profiler_Host_GetMetricProperties_Params);
      props.pHostObject = object_;
      props.pMetricName = metric.name.c_str();
      rc = p.HostGetMetricProperties(&props);
      if (rc != CUPTI_SUCCESS) return failure("cannot describe metric '" + metric.name + "'", rc);
      metric.description = text(props.pDescription);
      metric.hw_unit = text(props.pHwUnit);
      metric.dim_unit = text(props.pDimUnit);
      if (with_submetrics) {
        auto subs = GPUSCOPE_CUPTI_PARAMS(CUpti_Profiler_Host_GetSubMetrics_Params);
        subs.pHostObject = object_;
        subs.metricType = type;
        subs.pMetricName = metric.name.c_str();
        rc = p.HostGetSubMetrics(&subs);
        if (rc != CUPTI_SUCCESS) return failure("cannot list the submetrics of '" + metric.name + "'", rc);
        for (size_t j = 0; j < subs.numOfSubmetrics; ++j) metric.submetrics.push_back(text(subs.ppSubMetrics[j]));
      }
      out.push_back(std::move(metric));
    }
  }
  return "";
}

CUptiResult MetricsHost::scratch_config(const std::vector<const char*>& names, MetricConfig& out) const {
  // A failed ConfigAddMetrics may leave a host object half-configured, and a good one cannot
  // be undone, so each try gets a fresh object (about half a millisecond on a CPU).
  HostObject scratch{api_.profiler};
  CUptiResult rc = initialize(api_.profiler, chip_, kind_, *counter_availability_, scratch.object);
  if (rc == CUPTI_SUCCESS) configure(api_.profiler, scratch.object, names, out, rc);
  return rc;
}

std::string MetricsHost::validate(const std::vector<std::string>& names) const {
  if (names.empty()) return "no metrics to check";
  const std::vector<const char*> all = c_names(names);
  MetricConfig together;
  const CUptiResult rc = scratch_config(all, together);
  const bool one_pass_only = kind_ == ProfilerKind::PmSampling;
  if (rc == CUPTI_SUCCESS && (!one_pass_only || together.passes <= 1)) return "";
  // CUPTI rejects the whole list (with INVALID_PARAMETER, not INVALID_METRIC_NAME, for an
  // unknown name) and does not say which name; find it one by one.
  for (const char* name : all) {
    MetricConfig alone;
    const CUptiResult alone_rc = scratch_config({name}, alone);
    if (alone_rc != CUPTI_SUCCESS) {
      return "metric '" + std::string(name) + "' is not available on " + chip_ + " (" + profiler_kind_name(kind_) +
             "; " + cupti_result_text(api_, alone_rc) + ")";
    }
    if (one_pass_only && alone.passes > 1) {
      return "metric '" + std::string(name) + "' needs " + std::to_string(alone.passes) + " passes on " + chip_ +
             ", but PM sampling collects in one; choose a simpler metric";
    }
  }
  if (rc != CUPTI_SUCCESS) {
    return failure(std::to_string(names.size()) + " metrics, each valid alone, cannot be collected together", rc);
  }
  return "the " + std::to_string(names.size()) + " metrics need " + std::to_string(together.passes) +
         " passes together on " + chip_ + ", but PM sampling collects in one; sample fewer";
}

std::string MetricsHost::build_config(const std::vector<std::string>& names, MetricConfig& out) {
  out = MetricConfig{};
  if (configured_) return "a MetricsHost builds one configuration; create another for another list";
  if (std::string error = validate(names); !error.empty()) return error;
  configured_ = true;
  CUptiResult rc = CUPTI_SUCCESS;
  if (const char* step = configure(api_.profiler, object_, c_names(names), out, rc)) {
    out = MetricConfig{};
    return failure(std::string("cannot ") + step, rc);
  }
  return "";
}

std::string MetricsHost::evaluate(const std::vector<uint8_t>& counter_data, size_t range_index,
                                  const std::vector<std::string>& names, std::vector<double>& values) const {
  values.assign(names.size(), 0.0);
  if (names.empty()) return "";
  std::vector<const char*> c = c_names(names);
  auto params = GPUSCOPE_CUPTI_PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params);
  params.pHostObject = object_;
  params.pCounterDataImage = counter_data.data();
  params.counterDataImageSize = counter_data.size();
  params.rangeIndex = range_index;
  params.ppMetricNames = c.data();
  params.numMetrics = c.size();
  params.pMetricValues = values.data();
  const CUptiResult rc = api_.profiler.HostEvaluateToGpuValues(&params);
  if (rc != CUPTI_SUCCESS) return failure("cannot evaluate range " + std::to_string(range_index), rc);
  return "";
}

}  // namespace gpuscope::capture

// A small C++ face on CUPTI's host-side profiler API (cupti_profiler_host.h): which metrics a
// chip has, whether a list of names is valid, the configuration image and pass count for a
// list, and evaluating collected counter data into values. Needs no GPU: the host API works
// from a chip name ("GH100"), so the CLI can answer `gpuscope metrics` on any machine with
// CUPTI, and the injection library uses the same code in the target process.
//
// Takes the dlopen'ed CuptiApi (cupti_loader.h) rather than linking libcupti, so each user
// passes its own copy: libgpuscope_cupti_host.so for the CLI, the injection library in the
// target process. Nothing here throws: every call returns "" on success or a one-line error.
// Not thread-safe: one MetricsHost per thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "capture/cupti_loader.h"

namespace gpuscope::capture {

// Which CUPTI profiler a host object serves; the two have different metric sets
// (PM sampling: fewer counters, more ratios, and single-pass configurations only).
enum class ProfilerKind { RangeProfiler, PmSampling };

const char* profiler_kind_name(ProfilerKind kind);  // "range profiler" / "PM sampling"

// A zeroed CUPTI parameter struct with its structSize set (brace-initializing only the size
// leaves -Wmissing-field-initializers warnings): auto p = GPUSCOPE_CUPTI_PARAMS(CUpti_X_Params);
template <class Params>
Params cupti_params(size_t struct_size) {
  Params params{};
  params.structSize = struct_size;
  return params;
}
#define GPUSCOPE_CUPTI_PARAMS(Type) ::gpuscope::capture::cupti_params<Type>(Type##_STRUCT_SIZE)

struct MetricDescription {
  std::string name;         // base metric, e.g. "dram__throughput"
  std::string type;         // "counter", "ratio" or "throughput"
  std::string description;  // CUPTI's one-line text
  std::string hw_unit;      // the unit that counts it: "dram", "sm", "lts" ...
  std::string dim_unit;     // the value's dimension: "byte", "percent", "cycle", "" ...
  // Suffixes that make a full name: ".sum", ".avg.pct_of_peak_sustained_elapsed" ...
  // Filled only when asked for (there are ~40 per counter).
  std::vector<std::string> submetrics;
};

// What CUPTI needs to collect a list of metrics: the config image the range profiler or PM
// sampling is set up with, and how many times each kernel is replayed to collect it.
struct MetricConfig {
  std::vector<uint8_t> image;
  size_t passes = 0;
};

// The chips this CUPTI knows, e.g. {"GA100", "GH100", ...}; "" or an error.
std::string supported_chips(const CuptiApi& api, std::vector<std::string>& chips);

// gpuscope's metric sets are written for Hopper (GH100); another chip lacks some of their
// metrics (AD102 and GB100 have no sm__ops_path_tensor_src_fp16, for one). The metrics of
// `wanted` whose base metric the chip has (`chip_metrics`, base names) are `kept`, in order;
// the others are `dropped` — except `required` ones (the user's own --metric), which are never
// dropped: one the chip lacks is in `missing_required`.
struct ChipSelection {
  std::vector<std::string> kept, dropped, missing_required;
};
ChipSelection select_for_chip(const std::vector<std::string>& wanted, const std::vector<std::string>& required,
                              const std::vector<std::string>& chip_metrics);

// One CUPTI host object for one chip and profiler kind (RAII: deinitialized on destruction).
class MetricsHost {
 public:
  // Null with `error` set on failure, e.g. "chip 'XX100' is not supported by this CUPTI
  // (supported: GA100, GH100, ...)". `counter_availability` is the image the target side
  // reports for the device (optional; CUPTI wants it for chips newer than itself).
  static std::unique_ptr<MetricsHost> create(const CuptiApi& api, const std::string& chip, ProfilerKind kind,
                                             std::string& error, const std::vector<uint8_t>& counter_availability = {});
  ~MetricsHost();
  MetricsHost(const MetricsHost&) = delete;
  MetricsHost& operator=(const MetricsHost&) = delete;

  const std::string& chip() const { return chip_; }
  ProfilerKind kind() const { return kind_; }

  // Every base metric of every type, in CUPTI's order (counters, ratios, throughputs).
  std::string list_metrics(bool with_submetrics, std::vector<MetricDescription>& out) const;

  // The base names of every metric of the chip, without descriptions (cheaper than
  // list_metrics: three calls to CUPTI).
  std::string base_metric_names(std::vector<std::string>& out) const;

  // Checks full names ("dram__bytes_read.sum") on scratch objects, so this object stays
  // unconfigured. The error names the first bad metric. For PM sampling the list must also
  // fit one pass (CUPTI builds multi-pass PM configurations it then cannot collect).
  std::string validate(const std::vector<std::string>& names) const;

  // Adds `names` to this object and returns its configuration. Once per object: CUPTI adds
  // metrics cumulatively, and evaluate() must see exactly the configuration collected with.
  std::string build_config(const std::vector<std::string>& names, MetricConfig& out);

  // The values of `names` (as given to build_config) for one range (range profiler: one
  // kernel launch) or one sample (PM sampling) of a decoded counter data image.
  std::string evaluate(const std::vector<uint8_t>& counter_data, size_t range_index,
                       const std::vector<std::string>& names, std::vector<double>& values) const;

 private:
  MetricsHost(const CuptiApi& api, std::string chip, ProfilerKind kind, CUpti_Profiler_Host_Object* object,
              std::unique_ptr<std::vector<uint8_t>> counter_availability);
  // Configures a fresh scratch object with `names`: CUPTI's verdict and the configuration.
  CUptiResult scratch_config(const std::vector<const char*>& names, MetricConfig& out) const;
  std::string failure(const std::string& what, CUptiResult rc) const;

  const CuptiApi& api_;
  std::string chip_;
  ProfilerKind kind_;
  CUpti_Profiler_Host_Object* object_;
  // Owned at a fixed address for the object's life: CUPTI keeps the pointer it was
  // initialized with; scratch objects (validate) use it too.
  std::unique_ptr<std::vector<uint8_t>> counter_availability_;
  bool configured_ = false;
};

// The range profiler's configuration of `names` for `chip`, adapted to it: when building all of
// them fails, the metrics the chip lacks are left out (select_for_chip; never `required` ones)
// and the rest is built on a fresh host object. `error` (one line, naming the bad metric when
// there is one) when nothing can be built.
struct ChipConfig {
  std::unique_ptr<MetricsHost> host;  // configured with `collected`
  MetricConfig config;
  std::vector<std::string> collected;  // what the configuration measures, in order
  std::vector<std::string> dropped;    // metrics of the sets this chip lacks
  std::string error;
};
ChipConfig configure_for_chip(const CuptiApi& api, const std::string& chip, const std::vector<std::string>& names,
                              const std::vector<std::string>& required);

}  // namespace gpuscope::capture

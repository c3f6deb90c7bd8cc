// The metrics-only capture built launch by launch (metrics_only.cpp): each launch the reader
// hands over (ncu_file.h, LaunchSink) becomes its kernel and metric rows at once and is dropped,
// so the import holds the capture's rows and the reader's chunk, never every parsed launch
// (a --set full raw launch: ~2,000 values, 16 bytes each parsed, 24 bytes each as rows). What the
// process, device and collection rows need is kept as it goes by, a few numbers per process and
// device; those rows are made once the file is read (command lines and device attributes may
// come after the launches).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gpuscope/model.h"
#include "importers/ncu_csv/ncu_file.h"

namespace gpuscope::ncu {

// Values from the file, whatever they are, into the model's integer fields: 0 when out of range.
inline uint32_t as_u32(double v) { return v > 0 && v < 4.29e9 ? static_cast<uint32_t>(v + 0.5) : 0; }
inline int32_t as_i32(double v) { return v > 0 && v < 2.1e9 ? static_cast<int32_t>(v + 0.5) : 0; }
inline uint64_t as_u64(double v) { return v > 0 && v < 1.8e19 ? static_cast<uint64_t>(v) : 0; }

// A device's compute capability from the launches' "CC" column ("9.0"), for when no
// device__attribute_* says it: the first launch of the device whose major reads non-zero, the
// minor as the last one read up to it.
struct CapabilityFromColumn {
  uint32_t major = 0;
  std::optional<uint32_t> minor;
  void read(const std::string& compute_capability);
  // Onto `d`, whose attributes left compute_major 0.
  void apply(Device& d) const;
};

class CaptureBuilder final : public LaunchSink {
 public:
  struct ProcessSeen {
    uint64_t launches = 0;
    std::string process_name;  // its first launch's "Process Name"
  };

  explicit CaptureBuilder(Trace& trace) : trace_(trace) {}
  void expect_values(size_t values) override;
  void take(Launch&& launch, const File& file) override;

  const std::map<uint32_t, ProcessSeen>& processes() const { return processes_; }
  const std::set<std::pair<uint32_t, uint32_t>>& devices() const { return devices_; }  // (pid, device)
  const CapabilityFromColumn& capability_of(uint32_t device) const { return capabilities_.at(device); }
  const std::string& first_host() const { return first_host_; }
  const std::string& first_compute_capability() const { return first_cc_; }
  uint32_t metrics_with_values() const { return metrics_with_values_; }  // distinct, all launches
  bool all_have_config() const { return has_config_; }
  bool all_have_registers() const { return has_registers_; }
  TimeNs end() const { return cursor_; }  // the last kernel's end, ns

 private:
  Trace& trace_;
  std::vector<StringId> metric_ids_;  // by File::metric_names index
  StringId duration_id_ = 0;
  std::vector<bool> metric_has_value_;  // by File::metric_names index
  uint32_t metrics_with_values_ = 0;
  std::map<uint32_t, ProcessSeen> processes_;  // by pid
  std::set<std::pair<uint32_t, uint32_t>> devices_;
  std::map<uint32_t, CapabilityFromColumn> capabilities_;  // by device
  std::string first_host_, first_cc_;
  bool has_config_ = true, has_registers_ = true;
  TimeNs cursor_ = 0;
  uint32_t correlation_ = 0;
};

}  // namespace gpuscope::ncu

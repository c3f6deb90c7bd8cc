// `--source`'s records -> PcSample, Cubin and PcSampling rows of one process. The capture writes a
// PC's samples once per drain; here they are summed per (device, module, function, PC, reason),
// a device's totals per device, and only the cubins that sampled PCs point into are kept.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <tuple>

#include "gpuscope/model.h"
#include "spool/format.h"

namespace gpuscope::spool {

class PcSampleCollector {
 public:
  // The cubins held while a spool is read, in all (real ones are a few MB each, a capture's sampled
  // ones tens of MB): past it, cubins are left out and counted (data loss cubins_not_imported).
  static constexpr uint64_t kMaxCubinBytes = uint64_t{4} << 30;

  explicit PcSampleCollector(uint64_t max_cubin_bytes = kMaxCubinBytes) : max_cubin_bytes_(max_cubin_bytes) {}

  void add(const PcSampleRecord& r, StringId function, StringId stall_reason);
  void add(const PcSamplingRecord& r);
  // A TextKey::Cubin text: the CRC (8 bytes, little-endian), then the ELF. False: too short.
  bool add_cubin(std::string text);
  // Appends the process's rows (and data_loss rows for samples the hardware dropped and cubins left out).
  void finish(Trace& trace, uint32_t pid);

 private:
  using Key = std::tuple<uint32_t, uint64_t, StringId, uint64_t, StringId>;  // device, crc, function, pc, reason
  std::map<Key, std::pair<uint64_t, uint64_t>> samples_;                     // -> samples, not issued
  std::map<uint32_t, PcSampling> totals_;                                    // device ->
  std::map<uint64_t, std::string> cubins_;                                   // crc -> ELF
  const uint64_t max_cubin_bytes_;
  uint64_t cubin_bytes_ = 0;  // held in cubins_
  uint64_t cubins_left_out_ = 0;
};

}  // namespace gpuscope::spool

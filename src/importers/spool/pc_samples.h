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
  // Cubins larger than this are not kept (a hostile or damaged spool; real ones are a few MB).
  static constexpr size_t kMaxCubinBytes = 256u << 20;

  void add(const PcSampleRecord& r, StringId function, StringId stall_reason);
  void add(const PcSamplingRecord& r);
  // A TextKey::Cubin text: the CRC (8 bytes, little-endian), then the ELF. False: too short.
  bool add_cubin(std::string text);
  // Appends the process's rows (and a data_loss row for samples the hardware dropped).
  void finish(Trace& trace, uint32_t pid);

 private:
  using Key = std::tuple<uint32_t, uint64_t, StringId, uint64_t, StringId>;  // device, crc, function, pc, reason
  std::map<Key, std::pair<uint64_t, uint64_t>> samples_;                     // -> samples, not issued
  std::map<uint32_t, PcSampling> totals_;                                    // device ->
  std::map<uint64_t, std::string> cubins_;                                   // crc -> ELF
};

}  // namespace gpuscope::spool

// PcSampleCollector (pc_samples.h).
#include "importers/spool/pc_samples.h"

#include <cstring>
#include <set>
#include <utility>

namespace gpuscope::spool {

void PcSampleCollector::add(const PcSampleRecord& r, StringId function, StringId stall_reason) {
  auto& [samples, not_issued] = samples_[Key{r.device, r.cubin_crc, function, r.pc_offset, stall_reason}];
  samples += r.samples;
  not_issued += r.not_issued;
}

void PcSampleCollector::add(const PcSamplingRecord& r) {
  PcSampling& t = totals_[r.device];
  t.device = r.device;
  t.period_log2 = r.period_log2;
  t.total_samples += r.total_samples;
  t.dropped_samples += r.dropped_samples;
  t.non_user_samples += r.non_user_samples;
  t.buffer_full += r.buffer_full;
}

bool PcSampleCollector::add_cubin(std::string text) {
  uint64_t crc = 0;
  if (text.size() < sizeof crc) return false;
  std::memcpy(&crc, text.data(), sizeof crc);
  const uint64_t bytes = text.size() - sizeof crc;
  if (cubins_.count(crc) || bytes > max_cubin_bytes_ - cubin_bytes_) {
    cubins_left_out_ += cubins_.count(crc) == 0;  // a second copy of one is no loss
    return true;
  }
  text.erase(0, sizeof crc);
  cubins_[crc] = std::move(text);
  cubin_bytes_ += bytes;
  return true;
}

void PcSampleCollector::finish(Trace& trace, uint32_t pid) {
  std::set<uint64_t> sampled_modules;
  for (const auto& [key, counts] : samples_) {
    const auto& [device, crc, function, pc, reason] = key;
    trace.pc_samples.push_back({pid, device, crc, function, pc, reason, counts.first, counts.second});
    sampled_modules.insert(crc);
  }
  for (auto& [crc, image] : cubins_)
    if (sampled_modules.count(crc)) trace.cubins.push_back({pid, crc, std::move(image)});
  uint64_t dropped = 0;
  for (auto& [device, totals] : totals_) {
    totals.pid = pid;
    dropped += totals.dropped_samples;
    trace.pc_sampling.push_back(totals);
  }
  if (dropped)
    trace.data_loss.push_back({pid, "pc_samples_dropped", dropped,
                               "PC samples the GPU dropped (its sampling buffer was full); lower the sampling rate "
                               "with --source-period"});
  if (cubins_left_out_)
    trace.data_loss.push_back(
        {pid, "cubins_not_imported", cubins_left_out_,
         "cubins past the import's memory bound: their sampled PCs have no SASS or source lines"});
  samples_.clear(), totals_.clear(), cubins_.clear();
  cubin_bytes_ = cubins_left_out_ = 0;
}

}  // namespace gpuscope::spool

// PcSampler (pc_sampler.h).
#include "capture/pc_sampler.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "capture/failed_calls.h"

namespace gpuscope::capture {
namespace {

constexpr std::string_view kStallPrefix = "smsp__pcsamp_warps_issue_stalled_";
constexpr std::string_view kNotIssued = "_not_issued";

// A CUpti_PCSamplingData with room for `pc_count` PCs of `reason_count` stall reasons each.
struct SampleBuffer {
  CUpti_PCSamplingData data{};
  std::vector<CUpti_PCSamplingPCData> pcs;
  std::vector<CUpti_PCSamplingStallReason> reasons;

  void allocate(size_t pc_count, size_t reason_count) {
    pcs.assign(pc_count, CUpti_PCSamplingPCData{});
    reasons.assign(pc_count * reason_count, CUpti_PCSamplingStallReason{});
    reason_count_ = reason_count;
    reset();
  }
  // Ready for CUPTI to fill again: sizes and pointers set, nothing collected.
  void reset() {
    data = CUpti_PCSamplingData{};
    data.size = sizeof(CUpti_PCSamplingData);
    data.collectNumPcs = pcs.size();
    data.pPcData = pcs.data();
    for (size_t i = 0; i < pcs.size(); ++i) {
      pcs[i].size = sizeof(CUpti_PCSamplingPCData);
      pcs[i].stallReasonCount = 0;
      pcs[i].stallReason = reasons.data() + i * reason_count_;
    }
  }

 private:
  size_t reason_count_ = 0;
};

}  // namespace

struct PcSampler::Context {
  CUcontext handle = nullptr;
  std::atomic<bool> stopping{false};  // set before sampling is disabled: no more drains
  uint32_t device = 0;
  uint32_t period_log2 = 0;
  // CUPTI's stall reason index -> our slot (-1: not a stall reason, e.g. smsp__pcsamp_sample_count)
  // and whether it is the `_not_issued` variant; slot -> ncu's short name.
  std::vector<int> slot_of;
  std::vector<bool> not_issued_of;
  std::vector<std::string> slot_names;
  SampleBuffer drained;  // cuptiPCSamplingGetData's
  SampleBuffer flushed;  // the configuration's: CUPTI flushes into it on its own
};

PcSampler::PcSampler(const CuptiApi& api, const CaptureOptions& options, std::string cubin_file)
    : api_(api),
      filter_(options.kernel, 0, 0, filter_error_),
      period_log2_(static_cast<uint32_t>(options.source_period)),
      cubin_path_(std::move(cubin_file)) {}

PcSampler::~PcSampler() {
  for (char* name : function_names_) std::free(name);
  remove_cubin_file();
}

void PcSampler::remove_cubin_file() {
  std::lock_guard lock(mutex_);
  if (cubin_fd_ < 0) return;
  ::close(cubin_fd_);
  cubin_fd_ = -1;
  ::unlink(cubin_path_.c_str());
}

void PcSampler::enable_callbacks(const CuptiApi& api, CUpti_SubscriberHandle subscriber) {
  constexpr const char* kCost = "PC sampling (--source) misses contexts or modules: some kernels have no samples";
  for (CUpti_CallbackId id : {CUPTI_CBID_RESOURCE_CONTEXT_CREATED, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING,
                              CUPTI_CBID_RESOURCE_MODULE_LOADED})
    enable_callback(api, 1, subscriber, CUPTI_CB_DOMAIN_RESOURCE, id, kCost);
}

void PcSampler::on_resource_callback(CUpti_CallbackId cbid, const CUpti_ResourceData& data) {
  switch (cbid) {
    case CUPTI_CBID_RESOURCE_CONTEXT_CREATED: start_context(data.context); break;
    case CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING: stop_context(data.context); break;
    case CUPTI_CBID_RESOURCE_MODULE_LOADED:
      if (data.resourceDescriptor) keep_cubin(*static_cast<const CUpti_ModuleResourceData*>(data.resourceDescriptor));
      break;
    default: break;
  }
}

void PcSampler::start_context(CUcontext handle) {
  const ProfilerApi& p = api_.profiler;
  auto failed = [&](const char* call, CUptiResult rc) {
    note_failed_call(call, cupti_result_text(api_, rc), "PC sampling (--source) is off for a GPU context");
  };
  auto context = std::make_shared<Context>();
  context->handle = handle;
  if (CUptiResult rc = p.GetDeviceId(handle, &context->device); rc != CUPTI_SUCCESS)
    return failed("cuptiGetDeviceId", rc);
  CUpti_PCSamplingEnableParams enable{CUpti_PCSamplingEnableParamsSize, nullptr, handle};
  if (CUptiResult rc = p.PcEnable(&enable); rc != CUPTI_SUCCESS) return failed("cuptiPCSamplingEnable", rc);

  size_t count = 0;
  CUpti_PCSamplingGetNumStallReasonsParams number{CUpti_PCSamplingGetNumStallReasonsParamsSize, nullptr, handle,
                                                  &count};
  if (CUptiResult rc = p.PcGetNumStallReasons(&number); rc != CUPTI_SUCCESS)
    return failed("cuptiPCSamplingGetNumStallReasons", rc);
  std::vector<uint32_t> indices(count);
  std::vector<std::vector<char>> name_storage(count, std::vector<char>(CUPTI_STALL_REASON_STRING_SIZE));
  std::vector<char*> names(count);
  for (size_t i = 0; i < count; ++i) names[i] = name_storage[i].data();
  CUpti_PCSamplingGetStallReasonsParams reasons{
      CUpti_PCSamplingGetStallReasonsParamsSize, nullptr, handle, count, indices.data(), names.data()};
  if (CUptiResult rc = p.PcGetStallReasons(&reasons); rc != CUPTI_SUCCESS)
    return failed("cuptiPCSamplingGetStallReasons", rc);

  // Slots: one per stall reason, its `_not_issued` variant folded into it.
  std::map<std::string, int> slot_by_name;
  for (size_t i = 0; i < count; ++i) {
    std::string_view name(names[i], strnlen(names[i], CUPTI_STALL_REASON_STRING_SIZE));
    const uint32_t index = indices[i];
    if (index >= context->slot_of.size())
      context->slot_of.resize(index + 1, -1), context->not_issued_of.resize(index + 1);
    if (name.substr(0, kStallPrefix.size()) != kStallPrefix) continue;
    name.remove_prefix(kStallPrefix.size());
    const bool not_issued = name.size() > kNotIssued.size() &&
                            name.substr(name.size() - kNotIssued.size()) == kNotIssued;
    if (not_issued) name.remove_suffix(kNotIssued.size());
    auto [it, added] = slot_by_name.emplace(std::string(name), static_cast<int>(context->slot_names.size()));
    if (added) context->slot_names.emplace_back(name);
    context->slot_of[index] = it->second;
    context->not_issued_of[index] = not_issued;
  }
  context->drained.allocate(kPcsPerDrain, count);
  context->flushed.allocate(kFlushBufferPcs, count);

  std::vector<CUpti_PCSamplingConfigurationInfo> config(3);
  config[0].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_COLLECTION_MODE;
  config[0].attributeData.collectionModeData.collectionMode = CUPTI_PC_SAMPLING_COLLECTION_MODE_CONTINUOUS;
  config[1].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_STALL_REASON;
  config[1].attributeData.stallReasonData.stallReasonCount = count;
  config[1].attributeData.stallReasonData.pStallReasonIndex = indices.data();
  config[2].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_DATA_BUFFER;
  config[2].attributeData.samplingDataBufferData.samplingDataBuffer = &context->flushed.data;
  if (period_log2_ != 0) {
    CUpti_PCSamplingConfigurationInfo period{};
    period.attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD;
    period.attributeData.samplingPeriodData.samplingPeriod = period_log2_;
    config.push_back(period);
  }
  CUpti_PCSamplingConfigurationInfoParams set{CUpti_PCSamplingConfigurationInfoParamsSize, nullptr, handle,
                                              config.size(), config.data()};
  if (CUptiResult rc = p.PcSetConfig(&set); rc != CUPTI_SUCCESS) {
    CUpti_PCSamplingDisableParams disable{CUpti_PCSamplingDisableParamsSize, nullptr, handle};
    p.PcDisable(&disable);
    return failed("cuptiPCSamplingSetConfigurationAttribute", rc);
  }
  CUpti_PCSamplingConfigurationInfo period{};
  period.attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD;
  CUpti_PCSamplingConfigurationInfoParams get{CUpti_PCSamplingConfigurationInfoParamsSize, nullptr, handle, 1, &period};
  if (p.PcGetConfig(&get) == CUPTI_SUCCESS)
    context->period_log2 = period.attributeData.samplingPeriodData.samplingPeriod;

  std::lock_guard lock(mutex_);
  contexts_[handle] = std::move(context);
}

void PcSampler::stop_context(CUcontext handle) {
  std::shared_ptr<Context> context;
  {
    std::lock_guard lock(mutex_);
    const auto it = contexts_.find(handle);
    if (it == contexts_.end()) return;
    context = it->second;
    contexts_.erase(it);
  }
  context->stopping.store(true, std::memory_order_release);
  // CUPTI flushes what it still holds into the context's configured buffer; drain() writes it.
  CUpti_PCSamplingDisableParams disable{CUpti_PCSamplingDisableParamsSize, nullptr, handle};
  if (CUptiResult rc = api_.profiler.PcDisable(&disable); rc != CUPTI_SUCCESS)
    note_failed_call("cuptiPCSamplingDisable", cupti_result_text(api_, rc),
                     "the last PC samples of a GPU context may be missing");
  std::lock_guard lock(mutex_);
  stopped_.push_back(std::move(context));
}

void PcSampler::finish() {
  std::vector<CUcontext> open;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [handle, context] : contexts_) open.push_back(handle);
  }
  for (CUcontext handle : open) stop_context(handle);
}

void PcSampler::keep_cubin(const CUpti_ModuleResourceData& module) {
  if (module.pCubin == nullptr || module.cubinSize == 0) return;
  CUpti_GetCubinCrcParams crc{CUpti_GetCubinCrcParamsSize, module.cubinSize, module.pCubin, 0};
  if (api_.profiler.GetCubinCrc(&crc) != CUPTI_SUCCESS) return;
  std::lock_guard lock(mutex_);
  if (cubins_.count(crc.cubinCrc)) return;
  if (cubin_fd_ < 0 && !cubin_path_.empty())
    cubin_fd_ = ::open(cubin_path_.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (cubin_fd_ < 0 || cubin_file_bytes_ + module.cubinSize > kMaxCubinFileBytes) {
    cubins_not_kept_.add();
    return;
  }
  for (size_t done = 0; done < module.cubinSize;) {
    const ssize_t n = ::pwrite(cubin_fd_, module.pCubin + done, module.cubinSize - done,
                               static_cast<off_t>(cubin_file_bytes_ + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      cubins_not_kept_.add();  // the disk is full: later bytes may still fit another module
      return;
    }
    done += static_cast<size_t>(n);
  }
  cubins_[crc.cubinCrc] = {cubin_file_bytes_, module.cubinSize, false};
  cubin_file_bytes_ += module.cubinSize;
}

void PcSampler::drain(SpoolWriter& out) {
  std::vector<std::shared_ptr<Context>> active, stopped;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [handle, context] : contexts_) active.push_back(context);
    stopped.swap(stopped_);
  }
  std::set<uint64_t> sampled_modules;
  for (const auto& context : active) {
    // Until CUPTI has nothing more decoded; bounded, in case it keeps producing.
    for (int round = 0; round < 64 && !context->stopping.load(std::memory_order_acquire); ++round) {
      context->drained.reset();
      CUpti_PCSamplingGetDataParams get{CUpti_PCSamplingGetDataParamsSize, nullptr, context->handle,
                                        &context->drained.data};
      const CUptiResult rc = api_.profiler.PcGetData(&get);
      if (rc != CUPTI_SUCCESS && rc != CUPTI_ERROR_OUT_OF_MEMORY) break;  // OUT_OF_MEMORY: buffer full, data kept
      write_samples(*context, context->drained.data, out, sampled_modules);
      if (context->drained.data.remainingNumPcs == 0) break;
    }
    // A module unloaded while sampling: CUPTI flushed into the configured buffer.
    if (!context->stopping.load(std::memory_order_acquire) && context->flushed.data.totalNumPcs > 0) {
      write_samples(*context, context->flushed.data, out, sampled_modules);
      context->flushed.reset();
    }
  }
  for (const auto& context : stopped) {
    write_samples(*context, context->flushed.data, out, sampled_modules);
    // PCs CUPTI could not fit in the buffer once sampling was off: they cannot be fetched.
    if (const size_t left = context->flushed.data.remainingNumPcs; left > 0)
      out.add(spool::RecordKind::Loss,
              spool::LossRecord{left, out.intern("pc_sample_pcs_lost"),
                                out.intern("PCs CUPTI still held when a context's sampling ended, beyond the buffer "
                                           "they are flushed into")});
  }
  write_cubins(sampled_modules, out);
}

void PcSampler::write_samples(const Context& context, const CUpti_PCSamplingData& data, SpoolWriter& out,
                              std::set<uint64_t>& sampled_modules) {
  spool::PcSamplingRecord totals{};
  totals.total_samples = data.totalSamples;
  totals.dropped_samples = data.droppedSamples;
  totals.non_user_samples = data.nonUsrKernelsTotalSamples;
  totals.device = context.device;
  totals.period_log2 = context.period_log2;
  totals.buffer_full = data.hardwareBufferFull ? 1 : 0;
  if (totals.total_samples || totals.dropped_samples || totals.buffer_full)
    out.add(spool::RecordKind::PcSampling, totals);

  const size_t slots = context.slot_names.size();
  std::vector<std::pair<uint64_t, uint64_t>> counts(slots);  // per slot: samples, not issued
  const size_t pcs = std::min(data.totalNumPcs, data.collectNumPcs);
  for (size_t i = 0; i < pcs; ++i) {
    const CUpti_PCSamplingPCData& pc = data.pPcData[i];
    if (pc.functionName == nullptr) continue;
    function_names_.insert(pc.functionName);
    if (filter_.by_name() && filter_.next(pc.functionName, 0) != LaunchFilter::Verdict::Measure) continue;
    std::fill(counts.begin(), counts.end(), std::pair<uint64_t, uint64_t>{0, 0});
    for (size_t k = 0; k < pc.stallReasonCount; ++k) {
      const CUpti_PCSamplingStallReason& reason = pc.stallReason[k];
      const uint32_t index = reason.pcSamplingStallReasonIndex;
      if (index >= context.slot_of.size() || context.slot_of[index] < 0) continue;
      auto& [samples, not_issued] = counts[static_cast<size_t>(context.slot_of[index])];
      (context.not_issued_of[index] ? not_issued : samples) += reason.samples;
    }
    spool::PcSampleRecord record{};
    record.cubin_crc = pc.cubinCrc;
    record.pc_offset = pc.pcOffset;
    record.function = out.intern(pc.functionName);
    record.device = context.device;
    for (size_t slot = 0; slot < slots; ++slot) {
      if (counts[slot].first == 0 && counts[slot].second == 0) continue;
      record.samples = counts[slot].first;
      record.not_issued = counts[slot].second;
      record.stall_reason = out.intern(context.slot_names[slot]);
      out.add(spool::RecordKind::PcSample, record);
    }
    sampled_modules.insert(pc.cubinCrc);
  }
}

void PcSampler::write_cubins(const std::set<uint64_t>& sampled_modules, SpoolWriter& out) {
  for (const uint64_t crc : sampled_modules) {
    std::string text(sizeof crc, '\0');
    std::memcpy(text.data(), &crc, sizeof crc);
    {
      std::lock_guard lock(mutex_);
      const auto it = cubins_.find(crc);
      if (it == cubins_.end() || it->second.written) continue;
      it->second.written = true;
      if (it->second.bytes > kMaxSpoolCubinBytes) {
        cubins_not_kept_.add();
        continue;
      }
      text.resize(sizeof crc + it->second.bytes);
      size_t done = 0;
      while (done < it->second.bytes) {
        const ssize_t n = ::pread(cubin_fd_, text.data() + sizeof crc + done, it->second.bytes - done,
                                  static_cast<off_t>(it->second.offset + done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        done += static_cast<size_t>(n);
      }
      if (done < it->second.bytes) {  // the side file could not be read back
        cubins_not_kept_.add();
        continue;
      }
    }
    out.append_text(spool::TextKey::Cubin, text, kMaxSpoolCubinBytes + sizeof crc);
  }
  cubins_not_kept_.write(
      out, "cubins_not_kept",
      "modules whose cubin gpuscope did not keep (over its bound, or not written to the disk): their sampled PCs "
      "have no SASS or source lines");
}

}  // namespace gpuscope::capture

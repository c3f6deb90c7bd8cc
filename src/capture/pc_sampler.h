// `profile --source`: where in each kernel the warps are, and why they stall, from CUPTI's PC
// sampling API (cupti_pcsampling.h) in continuous mode: kernels run as they would (no
// serialization, no replay) while each SM sub-partition samples a warp's PC and stall reason
// every 2^N cycles.
//
// How:
//   context created      enable sampling on it, collecting every stall reason, with a buffer
//                        CUPTI flushes into when a module unloads or sampling is disabled
//   module loaded        its cubin's CRC (which PC records carry), and the cubin appended to a
//                        file beside the spool (SPOOL.cubins, bounded by kMaxCubinFileBytes), not
//                        kept in the program's memory; only cubins with sampled PCs are copied
//                        from it into the spool, so the report can read SASS and source lines
//   context destroying   sampling disabled (a drain of the context then in flight is CUPTI's to
//                        order; ours never waits on it): CUPTI flushes what is left into the
//                        context's buffer
//   writer thread        drain(): cuptiPCSamplingGetData per context (it never synchronizes the
//                        device), and the flushed buffers of disabled contexts, as PcSample records
//                        (one per PC and stall reason) and a PcSampling record of the totals
//   exit                 finish(): sampling disabled on every context before the writer's last drain
//
// Stall reasons are stored by ncu's short names ("long_scoreboard"); CUPTI's `_not_issued`
// variants are folded into the same record as its not_issued count. Samples the hardware
// dropped are counted (PcSampling, and a data_loss row at import).
//
// Fail open: a context on which sampling cannot be enabled is said once and left unsampled; the
// trace goes on.
#pragma once

#include <cupti.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

#include "capture/cupti_loader.h"
#include "capture/drop_count.h"
#include "capture/launch_filter.h"
#include "capture/options.h"
#include "capture/spool_writer.h"

namespace gpuscope::capture {

class PcSampler {
 public:
  static constexpr size_t kPcsPerDrain = 4096;      // PCs one cuptiPCSamplingGetData returns at most
  static constexpr size_t kFlushBufferPcs = 16384;  // PCs CUPTI may flush at a module unload or disable
  static constexpr uint64_t kMaxCubinFileBytes = uint64_t{4} << 30;  // cubins in the side file, in all
  static constexpr size_t kMaxSpoolCubinBytes = 32u << 20;  // one larger cubin is not written (a chunk's bound)

  // `cubin_file`: where loaded modules' cubins wait until sampled (created at the first load).
  PcSampler(const CuptiApi& api, const CaptureOptions& options, std::string cubin_file);
  ~PcSampler();
  PcSampler(const PcSampler&) = delete;
  PcSampler& operator=(const PcSampler&) = delete;

  // Whether this libcupti has the PC sampling API.
  bool available() const { return api_.profiler.has_pc_sampling(); }
  static void enable_callbacks(const CuptiApi& api, CUpti_SubscriberHandle subscriber);
  // Program threads, from the callback hub: CONTEXT_CREATED, CONTEXT_DESTROY_STARTING, MODULE_LOADED.
  void on_resource_callback(CUpti_CallbackId cbid, const CUpti_ResourceData& data);
  // The writer thread.
  void drain(SpoolWriter& out);
  // At exit, before the writer's last drain.
  void finish();
  // After the writer's last drain: the side file goes.
  void remove_cubin_file();

  struct Context;

 private:
  void start_context(CUcontext context);
  void stop_context(CUcontext context);
  void keep_cubin(const CUpti_ModuleResourceData& module);
  // Writer thread only: these touch function_names_ and filter_ without a lock.
  void write_samples(const Context& context, const CUpti_PCSamplingData& data, SpoolWriter& out,
                     std::set<uint64_t>& sampled_modules);
  void write_cubins(const std::set<uint64_t>& sampled_modules, SpoolWriter& out);

  const CuptiApi& api_;
  std::string filter_error_;  // the CLI checked the regex already
  LaunchFilter filter_;       // --kernel
  uint32_t period_log2_;      // 0: CUPTI's choice
  // Guards the three containers below, never held across a CUPTI call: a context is destroyed
  // with the driver's own locks held, and a drain on the writer thread must not wait for them.
  std::mutex mutex_;
  std::map<CUcontext, std::shared_ptr<Context>> contexts_;
  std::vector<std::shared_ptr<Context>> stopped_;  // disabled; their flush buffers not yet drained
  struct KeptCubin {
    uint64_t offset = 0, bytes = 0;  // in the side file
    bool written = false;            // a PC record pointed into it and it went to the spool
  };
  std::map<uint64_t, KeptCubin> cubins_;  // CRC ->
  const std::string cubin_path_;
  int cubin_fd_ = -1;
  uint64_t cubin_file_bytes_ = 0;
  DropCount cubins_not_kept_;
  std::unordered_set<char*> function_names_;  // CUPTI's, ours to free() once no record can name them
};

}  // namespace gpuscope::capture

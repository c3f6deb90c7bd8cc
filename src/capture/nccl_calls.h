// NCCL's calls as NCCL announces them: each collective, send/recv and communicator creation
// pushes an NVTX range in NCCL's domain carrying a binary payload (NCCL's static payload
// schemas: communicator hash, message size in bytes, peer or root, ...). The capture keeps one
// CommCall record per call, and when a thread with calls pending launches a kernel through the
// driver (NCCL 2.19+ calls cuLaunchKernelEx itself, so the runtime API trace never sees it), a
// Launch record with that launch's correlation id: the kernel that carries the calls out. The
// importer turns them into collective_calls rows, whose bandwidth the report then shows
// (docs/capture.md "NCCL calls").
//
// The driver's launch callbacks are enabled only once NCCL has created its NVTX domain
// (`on_nccl_domain`), so programs without NCCL pay nothing on their launches.
//
// Threads: the callbacks run on the program's threads and only decode and queue (RecordOutbox);
// the writer thread drains the queue into the spool.
#pragma once

#include <cupti.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>

#include "capture/record_outbox.h"
#include "capture/record_sink.h"
#include "spool/format.h"

namespace gpuscope::capture {

// One payload NCCL attached to a range: the call it describes, or nullopt for a schema that is
// not one of NCCL's calls or a payload too short for it. NCCL's layouts (its src/include/nvtx.h,
// payload schemas with static ids from 1 << 24): since NCCL 2.19 the communicator hash comes
// first and the message size at byte 8; older NCCLs put the size first. The two are told apart
// by the payload's size. start_ns and tid are left for the caller.
std::optional<spool::CommCallRecord> decode_nccl_payload(uint64_t schema_id, const void* payload, size_t bytes);

class NcclCalls {
 public:
  // Pending calls are bounded; beyond this many (a stalled writer) calls are dropped and counted.
  static constexpr size_t kMaxPending = 1u << 16;

  // `on_nccl_domain` runs once, on the thread where NCCL created its domain: the callback hub
  // enables the driver's launch callbacks there.
  explicit NcclCalls(std::function<void()> on_nccl_domain = {})
      : on_nccl_domain_(std::move(on_nccl_domain)),
        pending_(kMaxPending, "nccl_calls_dropped",
                 "NCCL calls gpuscope could not queue for writing in time; their kernels show no bytes") {}

  // Program threads, from the callback hub (which enables these two NVTX callbacks): domain
  // creation (to learn NCCL's domain) and domain range pushes.
  void on_nvtx_callback(CUpti_CallbackId cbid, const void* params, const void* return_value);
  // Program threads: a driver launch (launch_callbacks.h); a Launch record if the thread has calls
  // pending.
  void on_launch_callback(const CUpti_CallbackData& data);
  void set_on_nccl_domain(std::function<void()> hook) { on_nccl_domain_ = std::move(hook); }
  // Writer thread: appends the pending calls, and a Loss record for any dropped.
  void drain(RecordSink& sink) { pending_.drain(sink); }

 private:
  std::atomic<const void*> domain_{nullptr};  // NCCL's nvtxDomainHandle_t, once created
  std::function<void()> on_nccl_domain_;
  RecordOutbox<spool::CommCallRecord, spool::RecordKind::CommCall> pending_;
};

}  // namespace gpuscope::capture

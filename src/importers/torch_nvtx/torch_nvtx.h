// PyTorch ops and nn.Module paths from NVTX ranges: torch's emit_nvtx names every op's range
// (range_name.h), gpuscope's `profile --pytorch=modules` hook adds one range per module forward.
// This turns those ranges into what a torch.profiler trace gives directly, so the "PyTorch ops"
// and "PyTorch modules" analyses read any trace the same way:
//   - each op range -> a HostOp of category "cpu_op" (name without the suffixes, seq, the input
//     shapes when recorded) with a synthesized external id (1, 2, ... per process);
//   - each module range -> a HostOp of category "module" named by its path (no external id);
//   - each CUDA API call -> an ExternalCorrelation to the innermost op range open on its thread
//     (same run, pid and tid; the call starts inside the op's [start, end)).
// The converted ranges leave nvtx_ranges (tens of thousands of op ranges would flood every NVTX
// table); a user's own ranges (train_step) stay. Only default-domain push/pop ranges that closed
// are looked at. trace.run.host_ops_source says the ops came from NVTX.
#pragma once

#include "gpuscope/model.h"

namespace gpuscope {

// Converts when the trace has no host ops of its own (a torch.profiler trace keeps its ops) and
// its NVTX holds at least one torch range; otherwise leaves the trace alone. Runs on an
// unfinalized or finalized trace alike; host ops come out unsorted (finalize_host_ops sorts them).
// Converted ranges are removed, so a second call finds nothing to do. Returns true if it converted.
bool convert_torch_nvtx(Trace& trace);

// Links every CUDA API call to the innermost op (with an external id) open on its thread when
// the call starts (same run, pid and tid): one correlation per (run, pid, correlation id).
std::vector<ExternalCorrelation> link_calls_to_ops(const std::vector<HostOp>& ops, const std::vector<ApiCall>& calls);

}  // namespace gpuscope

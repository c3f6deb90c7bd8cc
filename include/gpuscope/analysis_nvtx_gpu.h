// NVTX GPU projection: for every NVTX range instance, the GPU work launched inside it (what
// nsys calls projecting NVTX ranges onto the GPU); summarize_nvtx() sums it per group and the
// report's NVTX section shows it (docs/report.md, "NVTX").
//
// Attribution: a kernel, copy or memset belongs to a range instance when its launching CUDA
// API call (same run, process and correlation id) starts inside the instance's half-open
// [start, end) on the range's thread: the thread that opened it (NvtxRange::tid). Push/pop
// ranges nest per thread, so a launch inside nested ranges belongs to every one of them.
// Start/end ranges may end on another thread; they too count only launches on the thread that
// opened them. A launch on any other thread belongs to none of that thread's ranges.
// The launch call decides, not where the work runs: work launched inside a range that runs on
// the GPU after the range closed still belongs to it (GPU busy can exceed 100 %).
//
// This is the rule of analysis_iterations.h for kernels, without its two extensions, which do
// not fit here: ranges may nest (an iteration claims a call alone), and a call on a thread
// without a range is never given to another thread's range.
//
// Records with start or end 0 (untimed) or end < start never enter it; timed records whose
// launch call is not in the capture are counted, not attributed.
// Cost: O((N + M) log N) for N GPU records and M ranges, plus the attributed work itself
// (each launch once per range containing it: N x nesting depth). Pure and deterministic.
#pragma once

#include <cstddef>
#include <vector>

#include "gpuscope/model.h"

namespace gpuscope::analysis {

// The GPU work launched inside one range instance. Times in ns.
struct NvtxInstanceGpu {
  TimeNs gpu_ns = 0;                  // union (not sum) of the work's GPU intervals
  TimeNs gpu_start = 0, gpu_end = 0;  // projected span: first GPU start, last GPU end; 0, 0 when none
  size_t kernels = 0;                 // kernels launched inside
  size_t activities = 0;              // kernels, copies and memsets launched inside
  TimeNs span_ns() const { return gpu_end - gpu_start; }
};

struct NvtxGpuProjection {
  std::vector<NvtxInstanceGpu> ranges;  // one per trace.nvtx_ranges entry, same order; empty for unclosed ones
  size_t gpu_records = 0;               // timed kernels, copies and memsets looked at
  size_t unlaunched = 0;                // of those, launch call not in the capture: attributed to no range
  size_t untimed = 0;                   // records with start or end 0 (or end < start): left out
};

NvtxGpuProjection project_nvtx_gpu(const Trace& trace);

}  // namespace gpuscope::analysis

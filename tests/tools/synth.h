// Synthetic captures for the browser tests and the benchmarks (CPU-only, no GPU needed):
//
// - launch_storm(): a training-style loop shaped like a real launch-bound program: one process
//   whose main thread calls cudaLaunchKernel N times (a handful of small kernels on two streams,
//   matched by correlation id), in NVTX `step` ranges of K launches with nested load / forward /
//   backward ranges; each step allocates and frees a workspace (cudaMalloc/cudaFree with memory
//   events), copies its input in from pageable memory (cudaMemcpy), synchronizes, and copies a
//   result out to pinned memory (cudaMemcpyAsync + cudaStreamSynchronize). Set-up and tear-down
//   add the other two copy flavours (pinned HtoD, pageable DtoH). One H100 device row, and
//   GPU-wide samples (3 metrics, one window per 100 ms) as --gpu-metrics records them.
// - hostile(): a small capture whose kernel, API, NVTX, device and process names are strings that
//   break careless HTML/JS renderers (script end tags, event handlers, quotes, backslashes,
//   control characters, invalid UTF-8); hostile_strings() lists them.
//
// Deterministic: the same options give the same trace on every machine (a fixed-seed splitmix64,
// no standard-library distributions, no clocks).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gpuscope/model.h"

namespace gpuscope::synth {

struct StormOptions {
  uint64_t launches = 1000;  // cudaLaunchKernel calls, one kernel each
  uint32_t step = 100;       // launches per NVTX `step` range (the last one may be shorter)
  uint64_t seed = 1;
};

// Record counts of a storm, from its options: for 1M launches 2.16M records.
//   api_calls     launches + 6 per step + 6 (set-up and tear-down)
//   kernels       launches
//   memcpys       2 per step + 2
//   memory_events 2 per step + 4
//   syncs         2 per step
//   nvtx_ranges   `step`, `load`, `forward` per step, `backward` per step of 2+ launches, + 2
Trace launch_storm(const StormOptions& options);

// The names hostile() uses, each exactly as stored (some are not valid UTF-8).
const std::vector<std::string>& hostile_strings();

Trace hostile();

// Every record of the trace: the sum of its event vectors.
size_t record_count(const Trace& trace);

}  // namespace gpuscope::synth

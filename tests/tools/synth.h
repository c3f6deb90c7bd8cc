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

// A capture shaped like a data-parallel training run, for the scale benchmark: one
// process (a bench capture of `runs` processes when runs > 1, run ids 1..runs) with one host
// thread per device launching its steps and a loader thread copying every step's input in.
// A step: NVTX `train_step` > `forward` / `backward` > `layer_N` (kKernelsPerLayer kernels each,
// distinct names per layer and pass, spread over `streams` streams), `allreduce` (a peer copy and
// a device-to-device copy), `optimizer` (a memset and 4 kernels); around it an allocation and a
// free, an event record and a stream wait, a pinned (every 10th: pageable) HtoD copy on the
// loader's thread, a pinned DtoH copy, a stream and a device synchronization. GPU-wide samples per
// device. About 0.44 kernels per record; steps are added until the trace holds `records` records.
struct ScaleOptions {
  uint64_t records = 1'000'000;  // at least this many (the last step is whole)
  uint32_t devices = 2;
  uint32_t streams = 4;         // kernel streams per device (the loader copies on its own)
  uint32_t layers = 24;         // layer_N ranges per pass: 2 * 24 * 6 + 4 = 292 kernel names
  uint32_t kernel_names = 292;  // distinct kernels (names wrap around when fewer)
  uint32_t runs = 1;
  uint64_t seed = 1;
};
Trace scale_run(const ScaleOptions& options);

// The device row every synthetic capture uses (ordinal 0, pid 4242): an H100 80GB HBM3.
Device h100();

// The names hostile() uses, each exactly as stored (some are not valid UTF-8).
const std::vector<std::string>& hostile_strings();

Trace hostile();

// Every record of the trace: the sum of its event vectors.
size_t record_count(const Trace& trace);

}  // namespace gpuscope::synth

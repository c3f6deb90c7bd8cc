// rule_patterns, continued: the patterns whose kernels fill the whole GPU (included by
// rule_patterns.cu only; see its header and docs/samples.md).
//
//   overlap   per iteration a 48 MiB HtoD copy, a 3 ms kernel and a 48 MiB DtoH copy, serialized
//             on one stream (fixed: two streams and two device buffer pairs; iteration i+1's
//             upload and iteration i-1's download run under iteration i's kernel) -> copies_not_overlapped
//   tail      a kernel of one full wave + 4 blocks, each thread 64 tasks of 16 us (fixed: the same
//             kernel and tasks, grid-stride over exactly one wave)            -> tail_effect
//
// Both kernels are sized to one wave of resident blocks: blocks per SM from the occupancy API
// times the SM count. With __launch_bounds__(256, 8) (<= 32 registers, no shared memory) that is
// 8 blocks of 256 threads per SM on sm_90, all 2048 thread slots, which is also what gpuscope's
// occupancy calculation gives (docs/report.md): a kernel of another stream cannot run beside one.
#pragma once

#include <cstring>
#include <string>
#include <vector>

#include "sample_common.h"

namespace extra {

constexpr int kThreads = 256;  // threads per block of both kernels

// tail: the value task k writes (an integer below 4093, exact in float; never the 0xFF.. NaN the
// output is cleared to, so a task that never ran fails the check).
__host__ __device__ inline float task_value(unsigned long long k) { return float((k * 2654435761ull) % 4093ull); }

__device__ inline unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

}  // namespace extra

// Global namespace so profilers show short names.
// overlap: out = 2 * in + add over n floats (grid-stride), then every thread spins until `ns` after
// it started: with one wave of resident blocks the kernel takes ~ns whatever its memory traffic
// (2 x 48 MiB at > 3 TB/s is ~30 us of the 3 ms).
__global__ void __launch_bounds__(extra::kThreads, 8)
    overlap_kernel(const float* in, float* out, size_t n, float add, unsigned long long ns, unsigned int* runs) {
  const unsigned long long start = extra::global_ns();
  for (size_t j = blockIdx.x * size_t(blockDim.x) + threadIdx.x; j < n; j += size_t(gridDim.x) * blockDim.x)
    out[j] = 2.0f * in[j] + add;
  while (extra::global_ns() - start < ns) {
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) atomicAdd(runs, 1u);
}

// tail: `tasks` tasks, grid-stride; a task waits task_ns on the timer and writes task_value(k).
// The wait sleeps (__nanosleep) between timer reads, so a block takes as long on a full SM as on
// an SM running one block: the partial last wave lasts as long as a full one, the equal-length-
// waves assumption of tail_effect. (A busy spin does not do that: on an H200 64 warps spinning on
// %globaltimer made each task take ~2x its time and blocks finish raggedly, so the 4 extra blocks
// hid in the ragged end of the full wave: 0.15 ms instead of a wave.)
__global__ void __launch_bounds__(extra::kThreads, 8)
    tail_kernel(float* out, unsigned long long tasks, unsigned long long task_ns, unsigned int* runs) {
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long k = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; k < tasks;
       k += stride) {
    const unsigned long long start = extra::global_ns();
    while (extra::global_ns() - start < task_ns) __nanosleep(1000);
    out[k] = extra::task_value(k);
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) atomicAdd(runs, 1u);
}

namespace extra {

// overlap sizes, for H100/H200 SXM (PCIe Gen5 x16; the H200 capture in tests/data measures
// 55.4 GB/s pinned both ways): 48 MiB = 50.3 MB -> 0.91 ms per copy; kernel 3 ms. Per iteration
// the baseline is 0.91 + 3 + 0.91 = 4.8 ms; pipelined, the kernel is the bottleneck (3 ms) and
// each kernel hides one upload and one download (1.8 ms) with 1.2 ms to spare, so the fixed
// variant keeps the compute engine busy. On a Gen4 link (25 GB/s: 2 ms per copy) the copies would
// no longer fit under the kernel.
constexpr size_t kOverlapFloats = size_t(12) << 20;  // 48 MiB per buffer
constexpr unsigned long long kOverlapKernelNs = 3'000'000;
// tail sizes: 64 tasks of 16 us per thread = 1.02 ms per wave; 4 blocks over one wave.
constexpr unsigned long long kTasksPerThread = 64, kTaskNs = 16'000;
constexpr int kTailExtraBlocks = 4;

struct State {
  int wave = 0;  // blocks in one wave: SMs x resident blocks per SM
  cudaStream_t stream2 = nullptr;
  cudaEvent_t uploaded = nullptr;
  float* h_in = nullptr;                 // overlap: pinned input staging buffer
  float* h_out[2] = {nullptr, nullptr};  // overlap: pinned results, one per slot
  float* d_in[2] = {nullptr, nullptr};   // overlap: device buffers, one pair per slot
  float* d_out[2] = {nullptr, nullptr};
  float* d_tasks = nullptr;  // tail: one float per task
  unsigned long long tasks = 0;
};

inline bool handles(const std::string& pattern) { return pattern == "overlap" || pattern == "tail"; }

// Inside host_setup: buffers, the second stream, and the wave size.
inline void setup(const std::string& pattern, int sm_count, State& s) {
  using sample::check;
  int per_sm = 0;
  check(pattern == "overlap" ? cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, overlap_kernel, kThreads, 0)
                             : cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, tail_kernel, kThreads, 0),
        "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  s.wave = per_sm * sm_count;
  std::printf("rule_patterns: one wave = %d SMs x %d blocks of %d threads = %d blocks\n", sm_count, per_sm, kThreads,
              s.wave);
  if (pattern == "tail") {
    s.tasks = (unsigned long long)(s.wave + kTailExtraBlocks) * kThreads * kTasksPerThread;
    check(cudaMalloc(&s.d_tasks, s.tasks * sizeof(float)), "cudaMalloc tasks");
    check(cudaMemset(s.d_tasks, 0xFF, s.tasks * sizeof(float)), "cudaMemset tasks");  // NaN: not run yet
    return;
  }
  const size_t bytes = kOverlapFloats * sizeof(float);
  check(cudaMallocHost(&s.h_in, bytes), "cudaMallocHost input");
  for (size_t j = 0; j < kOverlapFloats; ++j) s.h_in[j] = float(j & 1023);  // exact: 2 * in + i stays an integer
  for (int k = 0; k < 2; ++k) {
    check(cudaMallocHost(&s.h_out[k], bytes), "cudaMallocHost output");
    std::memset(s.h_out[k], 0xFF, bytes);  // touch the pages before the loop; NaN until written
    check(cudaMalloc(&s.d_in[k], bytes), "cudaMalloc input");
    check(cudaMalloc(&s.d_out[k], bytes), "cudaMalloc output");
  }
  check(cudaStreamCreateWithFlags(&s.stream2, cudaStreamNonBlocking), "cudaStreamCreate second");
  check(cudaEventCreateWithFlags(&s.uploaded, cudaEventDisableTiming), "cudaEventCreate uploaded");
}

// One iteration (inside its NVTX range); returns the kernels launched.
inline long long iteration(const std::string& pattern, bool fixed, long long i, cudaStream_t stream, unsigned int* runs,
                           State& s) {
  using sample::check;
  if (pattern == "tail") {
    // Baseline: wave + 4 blocks, every thread exactly 64 tasks: a full wave, then 4 blocks alone
    // for as long again. Fixed: exactly one wave over the same tasks; a thread does 64 or 65.
    const int grid = fixed ? s.wave : s.wave + kTailExtraBlocks;
    tail_kernel<<<grid, kThreads, 0, stream>>>(s.d_tasks, s.tasks, kTaskNs, runs);
    sample::check_launch("tail_kernel launch");
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    return 1;
  }
  // overlap. Baseline: slot 0 and one stream; upload, kernel, download, wait. Fixed: slot i % 2
  // on its own stream, no wait for the kernel: stream order keeps each slot's buffers safe, and
  // the other stream's kernel (queued behind this one, it cannot run beside it) hides the copies.
  const size_t bytes = kOverlapFloats * sizeof(float);
  const int k = fixed ? int(i % 2) : 0;
  cudaStream_t st = k == 0 ? stream : s.stream2;
  check(cudaMemcpyAsync(s.d_in[k], s.h_in, bytes, cudaMemcpyHostToDevice, st), "cudaMemcpyAsync input");
  check(cudaEventRecord(s.uploaded, st), "cudaEventRecord uploaded");
  overlap_kernel<<<s.wave, kThreads, 0, st>>>(s.d_in[k], s.d_out[k], kOverlapFloats, float(i), kOverlapKernelNs, runs);
  sample::check_launch("overlap_kernel launch");
  check(cudaMemcpyAsync(s.h_out[k], s.d_out[k], bytes, cudaMemcpyDeviceToHost, st), "cudaMemcpyAsync output");
  if (fixed) {
    // The staging buffer is free again once uploaded (a real program refills it here for the next
    // iteration). This wait also ends each iteration's NVTX range when its upload is done, so in
    // steady state a range spans one kernel period and every copy in it runs under a kernel; the
    // first upload (nothing to hide under) falls into the first iteration, which the rule skips.
    check(cudaEventSynchronize(s.uploaded), "cudaEventSynchronize uploaded");
  } else {
    check(cudaStreamSynchronize(st), "cudaStreamSynchronize");
  }
  return 1;
}

// After the loop, outside any iteration range but inside the measured loop: the fixed overlap's
// last kernel and download are still running.
inline void drain(const std::string& pattern, cudaStream_t stream, State& s) {
  using sample::check;
  if (pattern != "overlap") return;
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize drain");
  check(cudaStreamSynchronize(s.stream2), "cudaStreamSynchronize drain second");
}

// Inside verify: the result of the work, besides the kernel count main checks.
inline bool verify(const std::string& pattern, bool fixed, long long iters, State& s) {
  using sample::check;
  if (pattern == "tail") {  // every task ran and wrote its value
    std::vector<float> out(s.tasks);
    check(cudaMemcpy(out.data(), s.d_tasks, s.tasks * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy tasks");
    for (unsigned long long k = 0; k < s.tasks; ++k)
      if (out[k] != task_value(k)) {
        std::printf("check: task %llu wrote %g, expected %g\n", k, out[k], task_value(k));
        return false;
      }
    return true;
  }
  // overlap: each slot holds the last iteration that used it (2 * in + i), so a download that ran
  // before its kernel, or a slot overwritten out of order, shows as a wrong i.
  for (long long i = iters - 1; i >= 0 && i >= iters - (fixed ? 2 : 1); --i) {
    const float* out = s.h_out[fixed ? i % 2 : 0];
    for (size_t j = 0; j < kOverlapFloats; ++j)
      if (out[j] != 2.0f * float(j & 1023) + float(i)) {
        std::printf("check: iteration %lld element %zu is %g, expected %g\n", i, j, out[j],
                    2.0f * float(j & 1023) + float(i));
        return false;
      }
  }
  return true;
}

inline void release(State& s) {
  using sample::check;
  if (s.d_tasks) check(cudaFree(s.d_tasks), "cudaFree tasks");
  if (s.h_in) check(cudaFreeHost(s.h_in), "cudaFreeHost input");
  for (int k = 0; k < 2; ++k) {
    if (s.h_out[k]) check(cudaFreeHost(s.h_out[k]), "cudaFreeHost output");
    if (s.d_in[k]) check(cudaFree(s.d_in[k]), "cudaFree input");
    if (s.d_out[k]) check(cudaFree(s.d_out[k]), "cudaFree output");
  }
  if (s.uploaded) check(cudaEventDestroy(s.uploaded), "cudaEventDestroy uploaded");
  if (s.stream2) check(cudaStreamDestroy(s.stream2), "cudaStreamDestroy second");
}

}  // namespace extra

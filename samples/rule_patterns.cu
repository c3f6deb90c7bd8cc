// rule_patterns: one planted anti-pattern per --pattern, and its fix with --fixed, so every
// timeline rule of docs/rules.md has a sample pair whose saving can be measured
// (tests/gpu/check_rule_estimates.sh).
//
//   sync      a cudaDeviceSynchronize after every launch, with host work between launches
//             (fixed: one sync per iteration; host work overlaps the kernels)  -> excessive_sync
//   launch    many tiny kernels launched one by one (fixed: the same kernels captured once in a
//             CUDA graph and replayed per iteration)                            -> launch_bound
//   gaps      kernel, wait, then host work while the GPU idles (fixed: launch first, do the host
//             work while the kernel runs, then wait)                            -> gpu_idle_gaps
//   synccopy  synchronous cudaMemcpy of a result, then independent host work (fixed:
//             cudaMemcpyAsync, host work, then cudaStreamSynchronize)          -> sync_copies
//   startup   300 ms of host setup, then the first cudaMalloc creates the context (fixed: a
//             helper thread creates it during the host setup)                  -> startup_cost
//   tinycopy  256 cudaMemcpy of 1 KiB pieces of a pinned buffer, then a kernel (fixed: the
//             pieces are contiguous: one 256 KiB copy)                         -> many_tiny_transfers
//   result    a 2 ms kernel, then its 64 MB result copied back and waited for (fixed: two result
//             buffers; the copy runs on a second stream under the next kernel) -> large_result_copy
//   overlap, tail: in rule_patterns_extra.cuh (kernels that fill the GPU) -> copies_not_overlapped, tail_effect
//
// No pattern for unstable_timings: its estimate (time a kernel's launches spent above their
// median) is what the kernel loses, not what a fix saves in wall time (docs/rules.md).
//
// Kernels spin on %globaltimer for a set time and count their runs; the count is checked.
// NVTX: host_setup, then `iteration` per iteration, then verify (the loop is what lies between;
// for startup, host_setup is what the fix shortens).
// Prints: RESULT sample=rule_patterns pattern=P fixed=0|1 kernels=N loop_ms=... check=ok
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>

#include "rule_patterns_extra.cuh"
#include "sample_common.h"

// Global namespace so profilers show short names.
__global__ void spin_kernel(unsigned long long ns, unsigned int* runs) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
  if (threadIdx.x == 0) atomicAdd(runs, 1u);
}

namespace {

const char* kUsage =
    "usage: rule_patterns --pattern sync|launch|gaps|synccopy|startup|tinycopy|result|overlap|tail [--fixed]\n"
    "                     [--iters N]\n"
    "  --pattern P  the anti-pattern to plant (see the file header)\n"
    "  --fixed      run the fixed variant instead\n"
    "  --iters N    iterations (default 20)\n";

// Host work the GPU does not need: spin on the host clock (a stand-in for preparing input).
void host_work(int64_t ns) {
  const int64_t end = sample::now_ns() + ns;
  while (sample::now_ns() < end) {
  }
}

struct Buffers {
  unsigned int* runs = nullptr;  // device counter of kernel runs
  float* result = nullptr;       // device buffer copied back by synccopy
  float* host = nullptr;         // pinned host buffer for synccopy
  size_t result_bytes = size_t(64) << 20;
  cudaStream_t stream = nullptr;
  // result: double buffers (device and pinned host) and a stream for the copies back
  float* results[2] = {nullptr, nullptr};
  float* hosts[2] = {nullptr, nullptr};
  cudaStream_t copy_stream = nullptr;
  cudaEvent_t computed = nullptr;
  long long it = 0;    // iterations done, to pick a buffer
  extra::State extra;  // overlap and tail
};

constexpr size_t kPieces = 256, kPieceBytes = 1024;  // tinycopy: 256 pieces of 1 KiB

// tinycopy and result; returns the kernels launched.
long long transfer_iteration(const std::string& pattern, bool fixed, Buffers& b) {
  using sample::check;
  if (pattern == "tinycopy") {
    const char* src = reinterpret_cast<const char*>(b.host);
    char* dst = reinterpret_cast<char*>(b.result);
    if (fixed) {
      check(cudaMemcpy(dst, src, kPieces * kPieceBytes, cudaMemcpyHostToDevice), "cudaMemcpy pieces");
    } else {
      for (size_t k = 0; k < kPieces; ++k)
        check(cudaMemcpy(dst + k * kPieceBytes, src + k * kPieceBytes, kPieceBytes, cudaMemcpyHostToDevice),
              "cudaMemcpy piece");
    }
    spin_kernel<<<1, 32, 0, b.stream>>>(1'000, b.runs);  // "reads" the pieces
    check(cudaStreamSynchronize(b.stream), "cudaStreamSynchronize");
    return 1;
  }
  // result: the kernel "writes" results[i % 2] for 2 ms, then the 64 MB come back.
  const int cur = fixed ? static_cast<int>(b.it % 2) : 0;
  spin_kernel<<<1, 32, 0, b.stream>>>(2'000'000, b.runs);
  if (fixed) {
    // The previous iteration's copy (other buffer) finishes under this kernel; then queue this one's.
    check(cudaStreamSynchronize(b.copy_stream), "cudaStreamSynchronize copies");
    check(cudaEventRecord(b.computed, b.stream), "cudaEventRecord");
    check(cudaStreamWaitEvent(b.copy_stream, b.computed, 0), "cudaStreamWaitEvent");
    check(cudaMemcpyAsync(b.hosts[cur], b.results[cur], b.result_bytes, cudaMemcpyDeviceToHost, b.copy_stream),
          "cudaMemcpyAsync result");
  } else {
    check(cudaMemcpyAsync(b.hosts[cur], b.results[cur], b.result_bytes, cudaMemcpyDeviceToHost, b.stream),
          "cudaMemcpyAsync result");
  }
  check(cudaStreamSynchronize(b.stream), "cudaStreamSynchronize");
  ++b.it;
  return 1;
}

// One iteration of each pattern; returns the kernels it launched.
long long iteration(const std::string& pattern, bool fixed, long long i, Buffers& b, cudaGraphExec_t graph) {
  using sample::check;
  if (extra::handles(pattern)) return extra::iteration(pattern, fixed, i, b.stream, b.runs, b.extra);
  if (pattern == "sync") {  // 20 kernels of 50 us, 40 us of host work after each launch
    for (int k = 0; k < 20; ++k) {
      spin_kernel<<<1, 32, 0, b.stream>>>(50'000, b.runs);
      if (!fixed) check(cudaDeviceSynchronize(), "cudaDeviceSynchronize after launch");
      host_work(40'000);
    }
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize per iteration");
    return 20;
  }
  if (pattern == "launch") {  // 1000 kernels of ~2 us
    if (fixed) {
      check(cudaGraphLaunch(graph, b.stream), "cudaGraphLaunch");
    } else {
      for (int k = 0; k < 1000; ++k) spin_kernel<<<1, 32, 0, b.stream>>>(1'000, b.runs);
    }
    check(cudaStreamSynchronize(b.stream), "cudaStreamSynchronize");
    return 1000;
  }
  if (pattern == "gaps") {  // a 2 ms kernel and 2 ms of host work
    spin_kernel<<<1, 32, 0, b.stream>>>(2'000'000, b.runs);
    if (!fixed) check(cudaStreamSynchronize(b.stream), "cudaStreamSynchronize before host work");
    host_work(2'000'000);
    check(cudaStreamSynchronize(b.stream), "cudaStreamSynchronize");
    return 1;
  }
  if (pattern == "tinycopy" || pattern == "result") return transfer_iteration(pattern, fixed, b);
  if (pattern == "startup") {  // the loop is not the point: a 100 us kernel
    spin_kernel<<<1, 32, 0, b.stream>>>(100'000, b.runs);
    check(cudaStreamSynchronize(b.stream), "cudaStreamSynchronize");
    return 1;
  }
  // synccopy: a 1 ms kernel, then 64 MB back to pinned memory, then 2 ms of independent host work.
  spin_kernel<<<1, 32, 0, b.stream>>>(1'000'000, b.runs);
  if (fixed) {
    check(cudaMemcpyAsync(b.host, b.result, b.result_bytes, cudaMemcpyDeviceToHost, b.stream), "cudaMemcpyAsync");
    host_work(2'000'000);
    check(cudaStreamSynchronize(b.stream), "cudaStreamSynchronize");
  } else {
    check(cudaMemcpy(b.host, b.result, b.result_bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
    host_work(2'000'000);
  }
  return 1;
}

cudaGraphExec_t capture_launch_graph(Buffers& b) {
  using sample::check;
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  check(cudaStreamBeginCapture(b.stream, cudaStreamCaptureModeGlobal), "cudaStreamBeginCapture");
  for (int k = 0; k < 1000; ++k) spin_kernel<<<1, 32, 0, b.stream>>>(1'000, b.runs);
  check(cudaStreamEndCapture(b.stream, &graph), "cudaStreamEndCapture");
  check(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
  check(cudaGraphDestroy(graph), "cudaGraphDestroy");
  check(cudaGraphUpload(exec, b.stream), "cudaGraphUpload");
  return exec;
}

}  // namespace

int main(int argc, char** argv) {
  using sample::check;
  sample::line_buffered_stdout();
  sample::Args args(argc, argv, kUsage);
  const std::string pattern = args.text("--pattern", "");
  const bool fixed = args.flag("--fixed");
  const long long iters = args.integer("--iters", 20, 1);
  args.finish();
  if (pattern != "sync" && pattern != "launch" && pattern != "gaps" && pattern != "synccopy" && pattern != "startup" &&
      pattern != "tinycopy" && pattern != "result" && !extra::handles(pattern))
    args.fail("--pattern must be sync, launch, gaps, synccopy, startup, tinycopy, result, overlap or tail");

  Buffers b;
  cudaGraphExec_t graph = nullptr;
  // CUDA is initialised before the first NVTX range: gpuscope enables NVTX capture when
  // CUDA initialises, so a range opened earlier would be lost. `startup` initialises the
  // driver only; its first cudaMalloc (or the fixed helper thread) creates the context.
  const cudaDeviceProp prop = sample::init_device("rule_patterns", /*create_context=*/pattern != "startup");
  {
    sample::NvtxRange setup("host_setup");
    if (pattern == "startup") {
      // Fixed: create the context on a helper thread while the host prepares its data.
      std::thread helper;
      if (fixed) helper = std::thread([] { check(cudaFree(nullptr), "context creation on a helper thread"); });
      host_work(300'000'000);  // reading and preparing input
      if (helper.joinable()) helper.join();
      // Baseline: this first cudaMalloc pays for context creation (later ones in this setup do not).
      for (int i = 0; i < 3; ++i) {
        float* scratch = nullptr;
        check(cudaMalloc(&scratch, 1 << 20), "cudaMalloc scratch");
        check(cudaFree(scratch), "cudaFree scratch");
      }
    }
    check(cudaStreamCreateWithFlags(&b.stream, cudaStreamNonBlocking), "cudaStreamCreate");
    check(cudaMalloc(&b.runs, sizeof(unsigned int)), "cudaMalloc runs");
    check(cudaMemset(b.runs, 0, sizeof(unsigned int)), "cudaMemset runs");
    if (pattern == "synccopy") {
      check(cudaMalloc(&b.result, b.result_bytes), "cudaMalloc result");
      check(cudaMemset(b.result, 0, b.result_bytes), "cudaMemset result");
      check(cudaMallocHost(&b.host, b.result_bytes), "cudaMallocHost");
      std::memset(b.host, 1, b.result_bytes);  // touch the pages before the loop
    }
    if (pattern == "tinycopy") {  // reuses the synccopy buffers for the pieces (zeros)
      check(cudaMalloc(&b.result, kPieces * kPieceBytes), "cudaMalloc pieces");
      check(cudaMallocHost(&b.host, kPieces * kPieceBytes), "cudaMallocHost pieces");
      std::memset(b.host, 0, kPieces * kPieceBytes);
    }
    if (pattern == "result") {
      for (int i = 0; i < 2; ++i) {
        check(cudaMalloc(&b.results[i], b.result_bytes), "cudaMalloc result");
        check(cudaMemset(b.results[i], 0, b.result_bytes), "cudaMemset result");
        check(cudaMallocHost(&b.hosts[i], b.result_bytes), "cudaMallocHost result");
        std::memset(b.hosts[i], 1, b.result_bytes);  // touch the pages before the loop
      }
      check(cudaStreamCreateWithFlags(&b.copy_stream, cudaStreamNonBlocking), "cudaStreamCreate copies");
      check(cudaEventCreateWithFlags(&b.computed, cudaEventDisableTiming), "cudaEventCreate");
    }
    if (pattern == "launch" && fixed) graph = capture_launch_graph(b);
    if (extra::handles(pattern)) extra::setup(pattern, prop.multiProcessorCount, b.extra);
    spin_kernel<<<1, 32, 0, b.stream>>>(1'000, b.runs);  // loads the module before the loop
    check(cudaStreamSynchronize(b.stream), "warm-up");
  }

  long long kernels = 1;  // the warm-up
  const int64_t t0 = sample::now_ns();
  for (long long i = 0; i < iters; ++i) {
    sample::NvtxRange it("iteration");
    kernels += iteration(pattern, fixed, i, b, graph);
  }
  extra::drain(pattern, b.stream, b.extra);  // part of the loop, in no iteration range
  const double loop_ms = sample::ms_since(t0);

  bool ok = true;
  {
    sample::NvtxRange verify("verify");
    unsigned int runs = 0;
    check(cudaMemcpy(&runs, b.runs, sizeof(runs), cudaMemcpyDeviceToHost), "D2H runs");
    ok = runs == (unsigned int)kernels;
    if (!ok) std::printf("check: %u kernel runs counted, expected %lld\n", runs, kernels);
    if (pattern == "synccopy" && b.host[0] != 0.0f) ok = false;  // the result buffer is zeros
    if (pattern == "result") {
      check(cudaStreamSynchronize(b.copy_stream), "cudaStreamSynchronize copies");
      for (int i = 0; i < (fixed && iters > 1 ? 2 : 1); ++i) ok = ok && b.hosts[i][0] == 0.0f;  // zeros came back
    }
    if (extra::handles(pattern)) ok = extra::verify(pattern, fixed, iters, b.extra) && ok;
  }
  if (graph) check(cudaGraphExecDestroy(graph), "cudaGraphExecDestroy");
  if (b.host) check(cudaFreeHost(b.host), "cudaFreeHost");
  for (int i = 0; i < 2; ++i) {
    if (b.hosts[i]) check(cudaFreeHost(b.hosts[i]), "cudaFreeHost result");
    if (b.results[i]) check(cudaFree(b.results[i]), "cudaFree result");
  }
  extra::release(b.extra);
  if (b.computed) check(cudaEventDestroy(b.computed), "cudaEventDestroy");
  if (b.copy_stream) check(cudaStreamDestroy(b.copy_stream), "cudaStreamDestroy copies");
  if (b.result) check(cudaFree(b.result), "cudaFree result");
  check(cudaFree(b.runs), "cudaFree runs");
  check(cudaStreamDestroy(b.stream), "cudaStreamDestroy");

  std::printf("rule_patterns: %s%s, %lld iterations, %lld kernels, loop %.3f ms, check %s\n", pattern.c_str(),
              fixed ? " (fixed)" : "", iters, kernels, loop_ms, ok ? "ok" : "FAILED");
  std::printf("RESULT sample=rule_patterns pattern=%s fixed=%d kernels=%lld loop_ms=%.3f check=%s\n", pattern.c_str(),
              fixed ? 1 : 0, kernels, loop_ms, ok ? "ok" : "FAILED");
  return ok ? 0 : sample::kExitWrongResult;
}

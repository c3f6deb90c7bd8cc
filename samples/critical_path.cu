// critical_path: the planted cases of the report's Critical path section, one per --case, each
// repeated --iters times inside an NVTX range "cp_step" (the report's steps). Kernels spin for a
// set time on one block, so two streams run side by side.
//
//   on-off        stream 1: A then B (--kernel-us each); stream 2: C, as long as B, beside A.
//                 B is on the path; shortening C saves nothing.
//   sync          K1; cudaStreamSynchronize; host work (--host-us); K2; cudaDeviceSynchronize.
//   copy-hidden   stream 1: K1 (--kernel-us), then K2 after a cudaStreamWaitEvent on a pinned
//                 HtoD copy on stream 2 of --hidden-mb: the copy ends first, hidden behind K1.
//   copy-exposed  the same with --exposed-mb: the copy ends after K1 and is on the path.
//
// Correctness: every kernel adds 1 to a counter; it must end equal to the kernels launched.
// Prints: RESULT sample=critical_path case=... iters=N step_us=... check=ok
#include <cstdio>
#include <string>

#include "sample_common.h"

// Spins for `ns` of GPU time (the global timer, ns): a kernel of a known length on one block.
__device__ void spin(long long ns, int* counter) {
  unsigned long long start = 0, now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < static_cast<unsigned long long>(ns));
  if (threadIdx.x == 0) atomicAdd(counter, 1);
}
// One name per planted kernel, so that the report's tables tell them apart (global namespace:
// the name a profiler shows is just "kernel_b(long long, int*)").
__global__ void kernel_a(long long ns, int* counter) { spin(ns, counter); }
__global__ void kernel_b(long long ns, int* counter) { spin(ns, counter); }
__global__ void kernel_c(long long ns, int* counter) { spin(ns, counter); }

namespace {

const char* kUsage =
    "usage: critical_path --case on-off|sync|copy-hidden|copy-exposed [--iters N] [--kernel-us U]\n"
    "                     [--host-us U] [--hidden-mb M] [--exposed-mb M]\n"
    "  --iters N       steps (default 5)\n"
    "  --kernel-us U   each kernel's length (default 2000)\n"
    "  --host-us U     host work between the synchronization and K2 in 'sync' (default 1000)\n"
    "  --hidden-mb M   copy size of copy-hidden (default 16: well under 2 ms at pinned speed)\n"
    "  --exposed-mb M  copy size of copy-exposed (default 512: several times 2 ms)\n";

void host_work(long long us) {
  const int64_t until = sample::now_ns() + us * 1000;
  while (sample::now_ns() < until) {
  }
}

}  // namespace

int main(int argc, char** argv) {
  using sample::check;
  sample::line_buffered_stdout();
  sample::Args args(argc, argv, kUsage);
  const std::string which = args.text("--case", "");
  const long long iters = args.integer("--iters", 5, 1);
  const long long kernel_ns = args.integer("--kernel-us", 2000, 1) * 1000;
  const long long host_us = args.integer("--host-us", 1000, 0);
  const long long hidden_mb = args.integer("--hidden-mb", 16, 1);
  const long long exposed_mb = args.integer("--exposed-mb", 512, 1);
  args.finish();
  if (which != "on-off" && which != "sync" && which != "copy-hidden" && which != "copy-exposed")
    args.fail("--case is one of on-off, sync, copy-hidden, copy-exposed");

  sample::init_device("critical_path");
  int* counter = nullptr;
  check(cudaMalloc(&counter, sizeof(int)), "cudaMalloc counter");
  check(cudaMemset(counter, 0, sizeof(int)), "cudaMemset counter");
  cudaStream_t s1 = nullptr, s2 = nullptr;
  check(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking), "cudaStreamCreate s1");
  check(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking), "cudaStreamCreate s2");
  cudaEvent_t copied = nullptr;
  check(cudaEventCreateWithFlags(&copied, cudaEventDisableTiming), "cudaEventCreate");
  const size_t copy_bytes = size_t(which == "copy-exposed" ? exposed_mb : hidden_mb) << 20;
  void *host = nullptr, *device = nullptr;
  if (which.rfind("copy", 0) == 0) {
    check(cudaMallocHost(&host, copy_bytes), "cudaMallocHost");
    check(cudaMalloc(&device, copy_bytes), "cudaMalloc copy buffer");
  }
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize before the steps");

  int launched = 0;
  const int64_t t0 = sample::now_ns();
  for (long long i = 0; i < iters; ++i) {
    nvtxRangePushA("cp_step");
    if (which == "on-off") {
      kernel_a<<<1, 32, 0, s1>>>(kernel_ns, counter);
      kernel_b<<<1, 32, 0, s1>>>(kernel_ns, counter);
      kernel_c<<<1, 32, 0, s2>>>(kernel_ns, counter);
      launched += 3;
      check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    } else if (which == "sync") {
      kernel_a<<<1, 32, 0, s1>>>(kernel_ns, counter);
      check(cudaStreamSynchronize(s1), "cudaStreamSynchronize");
      host_work(host_us);
      kernel_b<<<1, 32, 0, s1>>>(kernel_ns, counter);
      launched += 2;
      check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    } else {
      kernel_a<<<1, 32, 0, s1>>>(kernel_ns, counter);
      check(cudaMemcpyAsync(device, host, copy_bytes, cudaMemcpyHostToDevice, s2), "cudaMemcpyAsync");
      check(cudaEventRecord(copied, s2), "cudaEventRecord");
      check(cudaStreamWaitEvent(s1, copied, 0), "cudaStreamWaitEvent");
      kernel_b<<<1, 32, 0, s1>>>(kernel_ns, counter);
      launched += 2;
      check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    }
    nvtxRangePop();
  }
  const double step_us = double(sample::now_ns() - t0) / 1e3 / double(iters);
  sample::check_launch("the kernels");
  int counted = 0;
  check(cudaMemcpy(&counted, counter, sizeof(int), cudaMemcpyDeviceToHost), "cudaMemcpy counter");
  const bool ok = counted == launched;
  std::printf("RESULT sample=critical_path case=%s iters=%lld step_us=%.1f check=%s\n", which.c_str(), iters, step_us,
              ok ? "ok" : "FAILED");
  if (host) check(cudaFreeHost(host), "cudaFreeHost");
  if (device) check(cudaFree(device), "cudaFree");
  check(cudaFree(counter), "cudaFree counter");
  return ok ? 0 : sample::kExitWrongResult;
}

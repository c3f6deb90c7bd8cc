// crash: does real CUDA work (allocations, copies, one small kernel every few ms, NVTX marks and an
// open NVTX range), then ends abnormally after --after-ms, so tests can check that a capture
// survives the death of its process:
//   --mode segv   write through a null pointer (SIGSEGV)
//   --mode abort  abort() (SIGABRT)
//   --mode exit3  exit(3): a normal exit, for exit-status passthrough
//   --mode hang   sleep forever, so a test can SIGKILL it
//   --mode none   finish cleanly and exit 0 (the control case)
//   --mode fault  launch a kernel that reads an illegal address: the CUDA context faults (sticky
//                 cudaErrorIllegalAddress), the sample prints the error and exits 3
//   --kernels N   stop after N kernels instead of after --after-ms (0: no limit)
// Just before the end it prints, flushed (stdout is line buffered):
//   RESULT sample=crash mode=M kernels_launched=N memcpys=C elapsed_ms=T
// Every launched kernel has completed by then (each step synchronizes), so a capture that is
// complete up to about a second before the end holds at least N minus the last second's kernels.
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "sample_common.h"

// Global namespace so the name a profiler shows is just "crash_step_kernel(...)".
__global__ void crash_step_kernel(float* data, int n, int* step_counter) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = data[i] * 0.5f + 1.0f;
  if (i == 0) *step_counter += 1;
}

// Reads through a pointer no allocation covers: the context faults with an illegal address.
__global__ void crash_fault_kernel(float* data, const float* bad) { data[threadIdx.x] = *bad; }

namespace {

using sample::check;

constexpr int kElems = 1 << 20;  // 4 MB of floats: enough for a kernel that shows on a timeline
constexpr int kCheckEvery = 50;  // steps between D2H copies that verify the step counter

const char* kUsage =
    "usage: crash [--mode segv|abort|exit3|hang|none|fault] [--after-ms N] [--kernels N] [--step-us N]\n"
    "  --mode M      how the process ends (default segv)\n"
    "  --after-ms N  run CUDA work for N ms before ending (default 1500)\n"
    "  --kernels N   end after N kernels instead (default 0: no limit)\n"
    "  --step-us N   pause between kernel launches in microseconds (default 5000)\n";

// A null pointer the compiler cannot see through: a plain `*(int*)nullptr` may be turned into a
// trap instruction (SIGILL) by the optimizer instead of a real store.
int* volatile g_null_target = nullptr;

[[noreturn]] void die(const std::string& mode) {
  std::fflush(stdout);
  if (mode == "segv") {
    *g_null_target = 42;
  } else if (mode == "exit3") {
    std::exit(3);
  } else if (mode == "hang") {
    for (;;) pause();  // only a signal ends this
  }
  std::abort();  // --mode abort, and the fallback should the null write not fault
}

}  // namespace

int main(int argc, char** argv) {
  sample::line_buffered_stdout();
  sample::Args args(argc, argv, kUsage);
  const std::string mode = args.text("--mode", "segv");
  const long long after_ms = args.integer("--after-ms", 1500, 0);
  const long long step_us = args.integer("--step-us", 5000, 0);
  const long long max_kernels = args.integer("--kernels", 0, 0);
  args.finish();
  if (mode != "segv" && mode != "abort" && mode != "exit3" && mode != "hang" && mode != "none" && mode != "fault")
    args.fail("unknown --mode '" + mode + "'");

  sample::init_device("crash");
  std::printf("crash: pid %d, mode %s after %lld ms\n", int(getpid()), mode.c_str(), after_ms);
  const int64_t t0 = sample::now_ns();
  nvtxRangePushA("crash_run");  // left open by every mode but none: the capture sees an open range

  std::vector<float> host(kElems, 1.0f);
  float* data = nullptr;
  int* step_counter = nullptr;
  check(cudaMalloc(&data, kElems * sizeof(float)), "cudaMalloc data");
  check(cudaMalloc(&step_counter, sizeof(int)), "cudaMalloc counter");
  check(cudaMemset(step_counter, 0, sizeof(int)), "cudaMemset counter");
  check(cudaMemcpy(data, host.data(), kElems * sizeof(float), cudaMemcpyHostToDevice), "H2D data");
  long long memcpys = 1, launched = 0;

  while (max_kernels > 0 ? launched < max_kernels : sample::ms_since(t0) < double(after_ms)) {
    nvtxMarkA("crash_step");
    crash_step_kernel<<<kElems / 256, 256>>>(data, kElems, step_counter);
    sample::check_launch("crash_step_kernel launch");
    ++launched;
    check(cudaDeviceSynchronize(), "crash_step_kernel execution");
    if (launched % kCheckEvery == 0) {
      int steps_seen = 0;
      check(cudaMemcpy(&steps_seen, step_counter, sizeof(int), cudaMemcpyDeviceToHost), "D2H counter");
      ++memcpys;
      if (steps_seen != launched) {
        std::printf("crash: MISMATCH step counter %d, launched %lld\n", steps_seen, launched);
        return sample::kExitWrongResult;
      }
      std::printf("crash: %lld kernels launched and checked\n", launched);
    }
    if (step_us > 0) std::this_thread::sleep_for(std::chrono::microseconds(step_us));
  }

  std::printf("RESULT sample=crash mode=%s kernels_launched=%lld memcpys=%lld elapsed_ms=%.1f\n", mode.c_str(),
              launched, memcpys, sample::ms_since(t0));
  if (mode == "fault") {
    crash_fault_kernel<<<1, 32>>>(data, reinterpret_cast<const float*>(uintptr_t{16}));
    const cudaError_t fault = cudaDeviceSynchronize();
    std::printf("crash: fault kernel ended with %s\n", cudaGetErrorName(fault));
    std::fflush(stdout);
    std::exit(3);
  }
  if (mode != "none") die(mode);

  nvtxRangePop();
  check(cudaFree(data), "cudaFree data");
  check(cudaFree(step_counter), "cudaFree counter");
  return 0;
}

// launch_storm: N tiny kernel launches, the workload of the tracing-overhead benchmark. Each
// launch costs the GPU almost nothing, so the measured time per launch is the host-side launch
// path, which is where a tracer adds its cost (an API record plus a kernel record per launch).
//
// Correctness: launch i runs on stream i % S and adds 1 to each of the 32 counters of that
// stream; launches on one stream are ordered, so every counter must end equal to the number of
// launches issued on its stream.
//
// Prints: RESULT sample=launch_storm launches=N streams=S wall_ns=... ns_per_launch=... check=ok
// wall_ns is a host steady clock around the launch loop and its final cudaDeviceSynchronize.
#include <cstdio>
#include <vector>

#include "sample_common.h"

constexpr int kCountersPerStream = 32;  // one warp, one counter per thread

// Global namespace so the name a profiler shows is just "tiny_kernel(int*)".
__global__ void tiny_kernel(int* counters) { counters[threadIdx.x] += 1; }

namespace {

const char* kUsage =
    "usage: launch_storm [--launches N] [--streams S]\n"
    "  --launches N  kernel launches (default 100000)\n"
    "  --streams S   round-robin over S created streams (default 1 = the default stream)\n";

}  // namespace

int main(int argc, char** argv) {
  using sample::check;
  sample::line_buffered_stdout();
  const int64_t t_process = sample::now_ns();
  sample::Args args(argc, argv, kUsage);
  const long long launches = args.integer("--launches", 100000, 1);
  const int streams = int(args.integer("--streams", 1, 1));
  args.finish();
  if (streams > 1024) args.fail("--streams is at most 1024");
  if (launches > 1000000000) args.fail("--launches is at most 1e9 (the counters are 32-bit)");

  sample::init_device("launch_storm");
  int* counters = nullptr;
  const size_t bytes = size_t(streams) * kCountersPerStream * sizeof(int);
  check(cudaMalloc(&counters, bytes), "cudaMalloc counters");
  check(cudaMemset(counters, 0, bytes), "cudaMemset counters");
  // One stream: the legacy default stream, as a naive application would use.
  std::vector<cudaStream_t> stream_list(streams, nullptr);
  if (streams > 1)
    for (auto& st : stream_list) check(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking), "cudaStreamCreate");
  // Force the (lazily loaded) kernel to load now, without launching it, so the timed loop does not
  // include module loading and the capture sees exactly `launches` kernels.
  cudaFuncAttributes attr{};
  check(cudaFuncGetAttributes(&attr, tiny_kernel), "cudaFuncGetAttributes(tiny_kernel)");
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize before the loop");

  // No per-launch error check inside the loop: cudaGetLastError is itself an API call a tracer
  // records. The runtime keeps the last launch error until it is read, so one check after the
  // loop catches a failure of any launch.
  nvtxRangePushA("launch_loop");
  const int64_t t0 = sample::now_ns();
  for (long long i = 0; i < launches; ++i) {
    const int s = int(i % streams);
    tiny_kernel<<<1, kCountersPerStream, 0, stream_list[s]>>>(counters + s * kCountersPerStream);
  }
  const cudaError_t launch_status = cudaGetLastError();
  const cudaError_t sync_status = cudaDeviceSynchronize();
  const int64_t wall_ns = sample::now_ns() - t0;
  nvtxRangePop();
  check(launch_status, "tiny_kernel launch");
  check(sync_status, "cudaDeviceSynchronize after the loop");

  std::vector<int> host(size_t(streams) * kCountersPerStream);
  check(cudaMemcpy(host.data(), counters, bytes, cudaMemcpyDeviceToHost), "D2H counters");
  long long wrong = 0;
  for (int s = 0; s < streams; ++s) {
    const long long expected = launches / streams + (s < launches % streams ? 1 : 0);
    for (int t = 0; t < kCountersPerStream; ++t) {
      const int got = host[size_t(s) * kCountersPerStream + t];
      if (got != expected) {
        if (wrong < 5) std::printf("check: MISMATCH stream %d counter %d = %d, expected %lld\n", s, t, got, expected);
        ++wrong;
      }
    }
  }
  for (auto st : stream_list)
    if (st) check(cudaStreamDestroy(st), "cudaStreamDestroy");
  check(cudaFree(counters), "cudaFree counters");

  const double ns_per_launch = double(wall_ns) / double(launches);
  std::printf("launch_storm: %lld launches on %d stream(s) in %.3f ms: %.1f ns per launch, check %s\n", launches,
              streams, wall_ns * 1e-6, ns_per_launch, wrong ? "FAILED" : "ok");
  std::printf(
      "RESULT sample=launch_storm launches=%lld streams=%d kernels=%lld wall_ns=%lld "
      "ns_per_launch=%.2f process_ms=%.3f check=%s\n",
      launches, streams, launches, (long long)wall_ns, ns_per_launch, sample::ms_since(t_process),
      wrong ? "FAILED" : "ok");
  return wrong ? sample::kExitWrongResult : 0;
}

// source_hotspots: kernels with one planted hot line each, for the report's Source section
// (`gpuscope profile --source`). Each planted line carries a "PLANTED(<case>)" comment that the
// GPU test looks up, with the stall reason the line should show.
//
//   barrier  warp 0 of each block works alone between two __syncthreads(); the other warps wait
//            at the barrier (stall reason: barrier)
//   bank     each thread reads shared memory down a column, 32 floats apart: every access is a
//            32-way bank conflict (mio_throttle / short_scoreboard)
//   load     pointer chasing through a 256 MiB table: each load waits for the one before it
//            (long_scoreboard)
//   all      the three, one after the other (default)
//
// Correctness: bank's and load's results are computed again on the host (every 997th thread) and
// must agree; barrier's must be finite.
// Prints: RESULT sample=source_hotspots case=... ms=... check=ok
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "sample_common.h"

constexpr int kThreads = 256;

__global__ void barrier_hotspot(float* out, int iters) {
  __shared__ float partial[kThreads];
  float acc = 0;
  for (int i = 0; i < iters; ++i) {
    if (threadIdx.x < 32)
      for (int k = 0; k < 64; ++k) acc = acc * 0.999f + static_cast<float>(k ^ i);
    partial[threadIdx.x] = acc;
    __syncthreads();  // PLANTED(barrier)
    acc += partial[(threadIdx.x + 1) % kThreads] * 1e-6f;
    __syncthreads();
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

__global__ void bank_hotspot(float* out, int iters) {
  __shared__ float tile[kThreads * 32];
  for (int i = threadIdx.x; i < kThreads * 32; i += blockDim.x) tile[i] = static_cast<float>(i % 7);
  __syncthreads();
  float acc = 0;
  for (int i = 0; i < iters; ++i) {
    const int row = (i + threadIdx.x) % kThreads;
    acc += tile[row * 32 + (i & 31)];  // PLANTED(bank)
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

__global__ void load_hotspot(const unsigned* next, unsigned* out, int iters) {
  unsigned at = (blockIdx.x * blockDim.x + threadIdx.x) * 7919u;
  for (int i = 0; i < iters; ++i) at = next[at & 0x3FFFFFFu];  // PLANTED(load)
  out[blockIdx.x * blockDim.x + threadIdx.x] = at;
}

namespace {

const char* kUsage =
    "usage: source_hotspots [--case barrier|bank|load|all] [--iters N] [--blocks B]\n"
    "  --iters N   loop trips per thread (default 4000)\n"
    "  --blocks B  blocks per kernel (default 1056: 8 per SM of an H100 SXM)\n";

}  // namespace

int main(int argc, char** argv) {
  using sample::check;
  sample::line_buffered_stdout();
  sample::Args args(argc, argv, kUsage);
  const std::string which = args.text("--case", "all");
  const int iters = static_cast<int>(args.integer("--iters", 4000, 1));
  const int blocks = static_cast<int>(args.integer("--blocks", 1056, 1));
  args.finish();
  if (which != "barrier" && which != "bank" && which != "load" && which != "all") {
    std::fprintf(stderr, "%s", kUsage);
    return sample::kExitUsage;
  }
  sample::init_device("source_hotspots");

  const size_t threads = static_cast<size_t>(blocks) * kThreads;
  float* out = nullptr;
  unsigned* chased = nullptr;
  unsigned* next = nullptr;
  constexpr size_t kTable = size_t{1} << 26;  // 64 Mi entries, 256 MiB
  check(cudaMalloc(&out, threads * sizeof(float)), "cudaMalloc out");
  check(cudaMalloc(&chased, threads * sizeof(unsigned)), "cudaMalloc chased");
  bool ok = true;
  const int64_t t0 = sample::now_ns();
  if (which == "barrier" || which == "all") {
    barrier_hotspot<<<blocks, kThreads>>>(out, iters);
    sample::check_launch("barrier_hotspot");
    std::vector<float> got(threads);
    check(cudaMemcpy(got.data(), out, threads * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy barrier");
    for (size_t t = 0; t < threads && ok; t += 997) ok = std::isfinite(got[t]);
  }
  if (which == "bank" || which == "all") {
    bank_hotspot<<<blocks, kThreads>>>(out, iters);
    sample::check_launch("bank_hotspot");
    check(cudaDeviceSynchronize(), "bank_hotspot");
    // Every tile value is (index % 7); the sum over the iterations is known exactly on the host.
    std::vector<float> got(threads);
    check(cudaMemcpy(got.data(), out, threads * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy bank");
    for (size_t t = 0; t < threads && ok; t += 997) {
      float acc = 0;
      const int x = static_cast<int>(t % kThreads);
      for (int i = 0; i < iters; ++i) acc += static_cast<float>((((i + x) % kThreads) * 32 + (i & 31)) % 7);
      ok = got[t] == acc;
    }
  }
  if (which == "load" || which == "all") {
    // A random permutation's successor table: every chase stays inside the table.
    std::vector<unsigned> table(kTable);
    sample::Rng rng(42);
    for (size_t i = 0; i < kTable; ++i) table[i] = static_cast<unsigned>(rng.next() & (kTable - 1));
    check(cudaMalloc(&next, kTable * sizeof(unsigned)), "cudaMalloc table");
    check(cudaMemcpy(next, table.data(), kTable * sizeof(unsigned), cudaMemcpyHostToDevice), "cudaMemcpy table");
    load_hotspot<<<blocks, kThreads>>>(next, chased, iters);
    sample::check_launch("load_hotspot");
    std::vector<unsigned> got(threads);
    check(cudaMemcpy(got.data(), chased, threads * sizeof(unsigned), cudaMemcpyDeviceToHost), "cudaMemcpy load");
    for (size_t t = 0; t < threads && ok; t += 997) {
      unsigned at = static_cast<unsigned>(t) * 7919u;
      for (int i = 0; i < iters; ++i) at = table[at & 0x3FFFFFFu];
      ok = got[t] == at;
    }
  }
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  const double ms = sample::ms_since(t0);
  std::printf("RESULT sample=source_hotspots case=%s ms=%.1f check=%s\n", which.c_str(), ms, ok ? "ok" : "FAILED");
  check(cudaFree(out), "cudaFree");
  check(cudaFree(chased), "cudaFree");
  if (next) check(cudaFree(next), "cudaFree");
  return ok ? 0 : sample::kExitWrongResult;
}

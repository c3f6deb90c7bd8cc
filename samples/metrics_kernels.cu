// metrics_kernels: small kernels with known, deterministic hardware behaviour, for checking
// gpuscope's per-kernel metrics against Nsight Compute (tests/gpu/check_metrics_vs_ncu.sh) and
// for the metric rules' sample pairs (docs/rules.md).
//
//   triad_kernel          a = b + s * c over 64 Mi floats: streams 768 MiB through DRAM, nothing
//                         else (memory-bound; DRAM throughput near the roof)
//   fma_kernel            8 independent FP32 FMA chains of 2048 steps per thread on registers
//                         (compute-bound on the FMA pipe, no memory traffic to speak of)
//   transpose_conflicts   32x32 tile transpose through shared memory read down columns: every
//                         warp's column read hits one bank 32 times (32-way bank conflicts)
//   transpose_padded      the same transpose with a 33-float row pitch: no bank conflicts
//                         (the fixed variant)
//   fmachain_latency      4.3 M FP32 FMA chains of 2048 steps, run one after another by 132
//                         blocks of 64 threads: one dependent chain per thread, 2 warps per SM,
//                         so the FMA pipe waits on FMA latency (~12 % of the FP32 roof)
//   fmachain_ilp          the same chains (the same FMAs in the same order per chain), 8 of them
//                         interleaved per thread, 64 warps per SM: near the FP32 roof (the fixed
//                         variant; fma_kernel's shape)
//
// Families (--only): triad, fma, transpose (both transposes), fmachain (both chain kernels).
// Without --only the program runs triad, fma and transpose, as it always did; fmachain runs only
// when named, so the default run (4 kernels) stays what the ncu comparison and the GPU tests
// count. transpose and fmachain are the metric rules' sample pairs (docs/rules.md). With both
// variants (the default) the program checks that the two give the same output; --variant planted
// runs only the kernel with the planted problem (transpose_conflicts, fmachain_latency), --variant
// fixed only its fix (transpose_padded, fmachain_ilp). The RESULT line is the same for every
// variant, so a planted and a fixed run can be compared by it.
//
// Each kernel runs --iters times (default 3). The program prints the FNV-1a hash of every
// output buffer, so a run under `gpuscope profile --metrics full` (kernel replay saves and
// restores memory) can be checked bit for bit against a plain run.
//
// Prints: RESULT sample=metrics_kernels iters=N [triad=<hash>] [fma=<hash>] [transpose=<hash>]
//         [fmachain=<hash>] check=ok   (the families that ran, in this order)
#include <cstdio>
#include <cstring>
#include <vector>

#include "sample_common.h"

constexpr int kTriadFloats = 64 << 20;  // 256 MiB per buffer
constexpr int kFmaSteps = 2048;
constexpr int kTile = 32;
constexpr int kMatrix = 8192;  // transpose: 8192 x 8192 floats = 256 MiB

// fmachain: both kernels compute kChains chains x kChainSteps steps = 8448 x 2^20 = 8.86 G FP32
// FMAs (17.7 GFLOP) and write each chain's end value. Sizes for an H100 SXM / H200: 132 SMs x 4
// SMSPs, 128 FP32 lanes per SM (one warp-wide FFMA per SMSP per cycle), dependent-FFMA latency ~4
// cycles, 1.98 GHz under FMA load (fma_kernel: 2.185 M cycles in 1.104 ms).
//   fmachain_latency: 132 blocks x 64 threads = 8448 threads, 2 warps per SM (on 2 of its 4
//     SMSPs). Each thread runs its 512 chains one after another: 512 x 2048 = 2^20 dependent
//     FMAs, one per ~4 cycles = 4.19 M cycles = ~2.1 ms per launch (more if the latency is longer).
//     An SM retires 64 lanes' FMAs per 4 cycles, 16 of its 128 per cycle: ~12.5 % of the FP32
//     peak, so far_from_roofline estimates ~2.1 ms x (1 - 0.125) = ~1.85 ms per launch.
//   fmachain_ilp: 8 interleaved chains per thread (8 independent FMAs cover the latency), 2112
//     blocks x 256 threads = 16 blocks per SM = exactly 2 waves of 8 resident blocks (64 warps)
//     per SM; __launch_bounds__(256, 8) keeps it at <= 32 registers so that 8 fit (it uses 24).
//     The same per-thread work and unrolling as fma_kernel, which reached 96 % of the FP32 peak:
//     8.86 G / (132 x 128 x 0.96) = 0.55 M cycles = ~0.28 ms per launch.
//   Expected saving ~2.12 - 0.28 = ~1.84 ms per launch against the ~1.85 ms estimate (~1.0).
//   Measured on an H100 (docs/rules.md): 2.24 ms at 11.8 % of the roof, 0.28 ms at 95.1 %;
//   39.4 ms estimated against 39.2 ms saved over 20 launches (1.01).
//   With the planted kernel at ~12.5 % of its roof, estimate / measured = (1 - 0.125) /
//   (1 - 0.125 / the fix's fraction of the roof): 1.03 for a fix at 85 % of the roof, 1.11 at 60 %.
constexpr int kChainSteps = 2048;
constexpr int kChainThreads = 132 * 64;                    // fmachain_latency's grid: 132 x 64
constexpr int kChainsPerThread = 512;                      // chains each latency-bound thread runs
constexpr int kChains = kChainThreads * kChainsPerThread;  // 4,325,376 chains, 17.3 MB of output
constexpr int kIlp = 8;                                    // chains interleaved per fmachain_ilp thread
constexpr int kIlpBlock = 256;
static_assert(kChains % (kIlp * kIlpBlock) == 0, "fmachain_ilp's grid must cover the chains exactly");
static_assert(kChains < (1 << 24), "chain indices must be exact in a float");

// Global namespace so profilers show short names.
__global__ void triad_kernel(float* a, const float* b, const float* c, float s, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) a[i] = b[i] + s * c[i];
}

__global__ void fma_kernel(float* out, float seed) {
  // Eight independent chains keep the FMA pipe fed (each FMA's latency is ~4 cycles).
  float x[8];
  for (int k = 0; k < 8; ++k) x[k] = seed + float(threadIdx.x + k);
  for (int step = 0; step < kFmaSteps; ++step)
    for (int k = 0; k < 8; ++k) x[k] = fmaf(x[k], 0.999f, 0.001f);
  float sum = 0.f;
  for (int k = 0; k < 8; ++k) sum += x[k];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

// One FMA chain: start at seed + its index, then 2048 x (x = 0.999 x + 0.001). Both fmachain
// kernels run exactly these operations per chain, so their outputs are bit-identical.
__device__ __forceinline__ float chain_start(float seed, int chain) { return seed + float(chain); }

// Planted: one dependent chain at a time per thread, 2 warps per SM (latency-bound).
__global__ void __launch_bounds__(64) fmachain_latency(float* out, float seed) {
  const int threads = gridDim.x * blockDim.x;
#pragma unroll 1
  for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < kChains; c += threads) {
    float x = chain_start(seed, c);
#pragma unroll 64
    for (int step = 0; step < kChainSteps; ++step) x = fmaf(x, 0.999f, 0.001f);
    out[c] = x;
  }
}

// Fixed: thread t runs chains t, t + S, ..., t + 7S (S = kChains / 8) interleaved, so eight
// independent FMAs are in flight per warp, and 64 warps per SM hide the rest.
__global__ void __launch_bounds__(kIlpBlock, 8) fmachain_ilp(float* out, float seed) {
  constexpr int kStride = kChains / kIlp;
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= kStride) return;
  float x[kIlp];
#pragma unroll
  for (int k = 0; k < kIlp; ++k) x[k] = chain_start(seed, t + k * kStride);
#pragma unroll 16  // as nvcc unrolls fma_kernel: 128 FMAs per 3 loop instructions
  for (int step = 0; step < kChainSteps; ++step)
#pragma unroll
    for (int k = 0; k < kIlp; ++k) x[k] = fmaf(x[k], 0.999f, 0.001f);
#pragma unroll
  for (int k = 0; k < kIlp; ++k) out[t + k * kStride] = x[k];
}

// Tile loaded by rows, stored by columns. PITCH 32: the column reads of a warp all fall in one
// bank; PITCH 33 spreads them over all 32 banks.
template <int PITCH>
__device__ void transpose_tile(float* out, const float* in, int n) {
  __shared__ float tile[kTile * PITCH];
  const int x = blockIdx.x * kTile + threadIdx.x;
  for (int row = threadIdx.y; row < kTile; row += blockDim.y)
    tile[row * PITCH + threadIdx.x] = in[(blockIdx.y * kTile + row) * n + x];
  __syncthreads();
  const int tx = blockIdx.y * kTile + threadIdx.x;
  for (int row = threadIdx.y; row < kTile; row += blockDim.y)
    out[(blockIdx.x * kTile + row) * n + tx] = tile[threadIdx.x * PITCH + row];
}

__global__ void transpose_conflicts(float* out, const float* in, int n) { transpose_tile<kTile>(out, in, n); }
__global__ void transpose_padded(float* out, const float* in, int n) { transpose_tile<kTile + 1>(out, in, n); }

namespace {

const char* kUsage =
    "usage: metrics_kernels [--iters N] [--only triad|fma|transpose|fmachain] [--variant both|planted|fixed]\n"
    "  --iters N     launches of each kernel (default 3)\n"
    "  --only K      run one kernel family only (default: triad, fma and transpose; fmachain runs only\n"
    "                when named)\n"
    "  --variant V   for the pairs transpose and fmachain: both (default; the outputs are compared),\n"
    "                planted (transpose_conflicts, fmachain_latency) or fixed (transpose_padded,\n"
    "                fmachain_ilp) only; needs --only transpose or --only fmachain\n";

uint64_t fnv1a(const std::vector<float>& data) {
  uint64_t h = 1469598103934665603ull;
  const auto* bytes = reinterpret_cast<const unsigned char*>(data.data());
  for (size_t i = 0; i < data.size() * sizeof(float); ++i) h = (h ^ bytes[i]) * 1099511628211ull;
  return h;
}

std::vector<float> download(const float* device, size_t count) {
  std::vector<float> host(count);
  sample::check(cudaMemcpy(host.data(), device, count * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy DtoH");
  return host;
}

float* upload_pattern(size_t count, uint64_t seed) {
  std::vector<float> host(count);
  sample::Rng rng(seed);
  for (float& v : host) v = float(rng.below(1 << 20)) / float(1 << 10);
  float* device = nullptr;
  sample::check(cudaMalloc(&device, count * sizeof(float)), "cudaMalloc");
  sample::check(cudaMemcpy(device, host.data(), count * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy HtoD");
  return device;
}

}  // namespace

int main(int argc, char** argv) {
  using sample::check;
  sample::line_buffered_stdout();
  sample::Args args(argc, argv, kUsage);
  const int iters = int(args.integer("--iters", 3, 1));
  const std::string only = args.text("--only", "");
  const std::string variant = args.text("--variant", "both");
  args.finish();
  if (!only.empty() && only != "triad" && only != "fma" && only != "transpose" && only != "fmachain")
    args.fail("--only must be triad, fma, transpose or fmachain");
  if (variant != "both" && variant != "planted" && variant != "fixed")
    args.fail("--variant must be both, planted or fixed");
  if (variant != "both" && only != "transpose" && only != "fmachain")
    args.fail("--variant " + variant + " needs --only transpose or --only fmachain");
  // fmachain is not in the default set: the default run stays the 4 kernels it always was.
  const auto wanted = [&](const char* k) { return only.empty() ? std::strcmp(k, "fmachain") != 0 : only == k; };
  const bool planted = variant != "fixed", fixed = variant != "planted";
  sample::init_device("metrics_kernels");

  std::printf("RESULT sample=metrics_kernels iters=%d", iters);
  if (wanted("triad")) {
    float* b = upload_pattern(kTriadFloats, 1);
    float* c = upload_pattern(kTriadFloats, 2);
    float* a = nullptr;
    check(cudaMalloc(&a, size_t(kTriadFloats) * sizeof(float)), "cudaMalloc a");
    for (int i = 0; i < iters; ++i) triad_kernel<<<132 * 16, 256>>>(a, b, c, 0.5f + i, kTriadFloats);
    sample::check_launch("triad_kernel");
    std::printf(" triad=%016llx", (unsigned long long)fnv1a(download(a, kTriadFloats)));
    for (float* p : {a, b, c}) check(cudaFree(p), "cudaFree");
  }
  if (wanted("fma")) {
    const int blocks = 132 * 64, threads = 256;
    float* out = nullptr;
    check(cudaMalloc(&out, size_t(blocks) * threads * sizeof(float)), "cudaMalloc fma");
    for (int i = 0; i < iters; ++i) fma_kernel<<<blocks, threads>>>(out, 1.0f + i);
    sample::check_launch("fma_kernel");
    std::printf(" fma=%016llx", (unsigned long long)fnv1a(download(out, size_t(blocks) * threads)));
    check(cudaFree(out), "cudaFree");
  }
  if (wanted("transpose")) {
    const size_t count = size_t(kMatrix) * kMatrix;
    float* in = upload_pattern(count, 3);
    float* out1 = nullptr;
    float* out2 = nullptr;
    if (planted) check(cudaMalloc(&out1, count * sizeof(float)), "cudaMalloc out1");
    if (fixed) check(cudaMalloc(&out2, count * sizeof(float)), "cudaMalloc out2");
    const dim3 grid(kMatrix / kTile, kMatrix / kTile), block(kTile, 8);
    for (int i = 0; i < iters; ++i) {
      if (planted) transpose_conflicts<<<grid, block>>>(out1, in, kMatrix);
      if (fixed) transpose_padded<<<grid, block>>>(out2, in, kMatrix);
    }
    sample::check_launch("transpose");
    const auto t1 = download(planted ? out1 : out2, count);
    if (planted && fixed && std::memcmp(t1.data(), download(out2, count).data(), count * sizeof(float)) != 0) {
      std::fprintf(stderr, "metrics_kernels: the two transposes disagree\n");
      return 1;
    }
    std::printf(" transpose=%016llx", (unsigned long long)fnv1a(t1));
    for (float* p : {in, out1, out2}) check(cudaFree(p), "cudaFree");
  }
  if (wanted("fmachain")) {
    float* out1 = nullptr;
    float* out2 = nullptr;
    if (planted) check(cudaMalloc(&out1, size_t(kChains) * sizeof(float)), "cudaMalloc fmachain out1");
    if (fixed) check(cudaMalloc(&out2, size_t(kChains) * sizeof(float)), "cudaMalloc fmachain out2");
    for (int i = 0; i < iters; ++i) {
      if (planted) fmachain_latency<<<kChainThreads / 64, 64>>>(out1, 1.0f + i);
      if (fixed) fmachain_ilp<<<kChains / kIlp / kIlpBlock, kIlpBlock>>>(out2, 1.0f + i);
    }
    sample::check_launch("fmachain");
    const auto c1 = download(planted ? out1 : out2, kChains);
    const size_t bytes = size_t(kChains) * sizeof(float);
    if (planted && fixed && std::memcmp(c1.data(), download(out2, kChains).data(), bytes) != 0) {
      std::fprintf(stderr, "metrics_kernels: the two FMA chain kernels disagree\n");
      return 1;
    }
    std::printf(" fmachain=%016llx", (unsigned long long)fnv1a(c1));
    for (float* p : {out1, out2}) check(cudaFree(p), "cudaFree");
  }
  std::printf(" check=ok\n");
  return 0;
}

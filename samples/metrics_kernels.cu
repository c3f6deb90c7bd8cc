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
//
// Each kernel runs --iters times (default 3). The program prints the FNV-1a hash of every
// output buffer, so a run under `gpuscope profile --metrics full` (kernel replay saves and
// restores memory) can be checked bit for bit against a plain run.
//
// Prints: RESULT sample=metrics_kernels iters=N triad=<hash> fma=<hash> transpose=<hash> check=ok
#include <cstdio>
#include <cstring>
#include <vector>

#include "sample_common.h"

constexpr int kTriadFloats = 64 << 20;  // 256 MiB per buffer
constexpr int kFmaSteps = 2048;
constexpr int kTile = 32;
constexpr int kMatrix = 8192;  // transpose: 8192 x 8192 floats = 256 MiB

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
    "usage: metrics_kernels [--iters N] [--only triad|fma|transpose]\n"
    "  --iters N   launches of each kernel (default 3)\n"
    "  --only K    run one kernel family only\n";

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
  args.finish();
  if (!only.empty() && only != "triad" && only != "fma" && only != "transpose")
    args.fail("--only must be triad, fma or transpose");
  const auto wanted = [&](const char* k) { return only.empty() || only == k; };
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
    check(cudaMalloc(&out1, count * sizeof(float)), "cudaMalloc out1");
    check(cudaMalloc(&out2, count * sizeof(float)), "cudaMalloc out2");
    const dim3 grid(kMatrix / kTile, kMatrix / kTile), block(kTile, 8);
    for (int i = 0; i < iters; ++i) {
      transpose_conflicts<<<grid, block>>>(out1, in, kMatrix);
      transpose_padded<<<grid, block>>>(out2, in, kMatrix);
    }
    sample::check_launch("transpose");
    const auto t1 = download(out1, count), t2 = download(out2, count);
    if (std::memcmp(t1.data(), t2.data(), count * sizeof(float)) != 0) {
      std::fprintf(stderr, "metrics_kernels: the two transposes disagree\n");
      return 1;
    }
    std::printf(" transpose=%016llx", (unsigned long long)fnv1a(t1));
    for (float* p : {in, out1, out2}) check(cudaFree(p), "cudaFree");
  }
  std::printf(" check=ok\n");
  return 0;
}

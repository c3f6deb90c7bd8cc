// flash_attention: a FlashAttention-style forward pass (tiled QK^T, online softmax, PV; fp32),
// written the way a first hand-written version usually is, for the report's Source section
// (`gpuscope profile --source`). One thread per query row, the block's query rows and scores in
// shared memory, one row after another:
//
//   --layout naive   rows of 64 (Q) and 32 (S) floats: the 32 threads of a warp read the same
//                    column of 32 rows, all in one bank, a 32-way bank conflict on every read
//                    of Q in the QK^T loop and of S in the PV loop (the two planted lines, marked
//                    qk and pv; short_scoreboard / mio_throttle)
//   --layout padded  the fix: each row one float longer, so a column spans all 32 banks
//
// Correctness: rows of the first and last heads are computed again on the host in double and
// must agree within 1e-3. Prints the kernel time (CUDA events, median of --iters launches):
//   RESULT sample=flash_attention layout=... kernel_ms=... check=ok
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "sample_common.h"

constexpr int kRows = 32;  // query rows per block, one thread each
constexpr int kKeys = 32;  // keys per tile
constexpr int kDim = 64;   // head dimension

// pad: floats added to each shared-memory row (0: the naive layout, 1: padded). A kernel
// argument rather than a template parameter, so that both layouts are one kernel by name, as
// a fix in place is, and `gpuscope diff` matches it.
__global__ void flash_forward(const float* q, const float* k, const float* v, float* o, int n, float scale, int pad) {
  __shared__ float qs[kRows * (kDim + 1)];
  __shared__ float ks[kKeys * kDim];
  __shared__ float vs[kKeys * kDim];
  __shared__ float ss[kRows * (kKeys + 1)];
  const int q_stride = kDim + pad, s_stride = kKeys + pad;
  const int t = threadIdx.x;
  const size_t head = static_cast<size_t>(blockIdx.y) * n * kDim;
  const int row = blockIdx.x * kRows + t;
  for (int x = 0; x < kDim; ++x) qs[t * q_stride + x] = q[head + static_cast<size_t>(row) * kDim + x];
  float acc[kDim];
#pragma unroll
  for (int x = 0; x < kDim; ++x) acc[x] = 0;
  float running_max = -INFINITY, running_sum = 0;
  for (int tile = 0; tile < n; tile += kKeys) {
    __syncthreads();
    for (int i = t; i < kKeys * kDim; i += kRows) {
      ks[i] = k[head + static_cast<size_t>(tile) * kDim + i];
      vs[i] = v[head + static_cast<size_t>(tile) * kDim + i];
    }
    __syncthreads();
    float tile_max = -INFINITY;
#pragma unroll 1
    for (int y = 0; y < kKeys; ++y) {
      float dot = 0;
#pragma unroll 8
      for (int x = 0; x < kDim; ++x) dot += qs[t * q_stride + x] * ks[y * kDim + x];  // PLANTED(qk)
      ss[t * s_stride + y] = dot * scale;
      tile_max = fmaxf(tile_max, dot * scale);
    }
    const float new_max = fmaxf(running_max, tile_max);
    const float rescale = __expf(running_max - new_max);
    float tile_sum = 0;
#pragma unroll 1
    for (int y = 0; y < kKeys; ++y) {
      const float p = __expf(ss[t * s_stride + y] - new_max);
      ss[t * s_stride + y] = p;
      tile_sum += p;
    }
#pragma unroll
    for (int x = 0; x < kDim; ++x) {
      float pv = 0;
#pragma unroll 8
      for (int y = 0; y < kKeys; ++y) pv += ss[t * s_stride + y] * vs[y * kDim + x];  // PLANTED(pv)
      acc[x] = acc[x] * rescale + pv;
    }
    running_sum = running_sum * rescale + tile_sum;
    running_max = new_max;
  }
#pragma unroll
  for (int x = 0; x < kDim; ++x) o[head + static_cast<size_t>(row) * kDim + x] = acc[x] / running_sum;
}

namespace {

const char* kUsage =
    "usage: flash_attention [--layout naive|padded] [--n N] [--heads H] [--iters I]\n"
    "  --n N      sequence length, a multiple of 32 (default 2048)\n"
    "  --heads H  heads (default 32)\n"
    "  --iters I  timed launches (default 5)\n";

// Softmax(q k^T * scale) v for one row, in double.
std::vector<double> reference_row(const std::vector<float>& q, const std::vector<float>& k, const std::vector<float>& v,
                                  size_t head, int row, int n, double scale) {
  std::vector<double> scores(n);
  double max = -INFINITY, sum = 0;
  for (int y = 0; y < n; ++y) {
    double dot = 0;
    for (int x = 0; x < kDim; ++x) dot += double(q[head + size_t(row) * kDim + x]) * k[head + size_t(y) * kDim + x];
    scores[y] = dot * scale;
    max = std::max(max, scores[y]);
  }
  for (double& s : scores) sum += (s = std::exp(s - max));
  std::vector<double> out(kDim, 0);
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < kDim; ++x) out[x] += scores[y] / sum * v[head + size_t(y) * kDim + x];
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  using sample::check;
  sample::line_buffered_stdout();
  sample::Args args(argc, argv, kUsage);
  const std::string layout = args.text("--layout", "naive");
  const int n = static_cast<int>(args.integer("--n", 2048, kKeys));
  const int heads = static_cast<int>(args.integer("--heads", 32, 1));
  const int iters = static_cast<int>(args.integer("--iters", 5, 1));
  args.finish();
  if ((layout != "naive" && layout != "padded") || n % kKeys != 0) {
    std::fprintf(stderr, "%s", kUsage);
    return sample::kExitUsage;
  }
  sample::init_device("flash_attention");

  const size_t elements = size_t(heads) * n * kDim;
  std::vector<float> q(elements), k(elements), v(elements);
  sample::Rng rng(7);
  for (std::vector<float>* m : {&q, &k, &v})
    for (float& x : *m) x = static_cast<float>(rng.next() % 2001) / 1000.0f - 1.0f;
  float *dq = nullptr, *dk = nullptr, *dv = nullptr, *dout = nullptr;
  for (float** p : {&dq, &dk, &dv, &dout}) check(cudaMalloc(p, elements * sizeof(float)), "cudaMalloc");
  check(cudaMemcpy(dq, q.data(), elements * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy q");
  check(cudaMemcpy(dk, k.data(), elements * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy k");
  check(cudaMemcpy(dv, v.data(), elements * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy v");

  const float scale = 1.0f / std::sqrt(static_cast<float>(kDim));
  const dim3 grid(n / kRows, heads);
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  std::vector<float> times;
  for (int i = 0; i < iters; ++i) {
    check(cudaEventRecord(start), "cudaEventRecord");
    flash_forward<<<grid, kRows>>>(dq, dk, dv, dout, n, scale, layout == "naive" ? 0 : 1);
    sample::check_launch("flash_forward");
    check(cudaEventRecord(stop), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    times.push_back(ms);
  }
  std::sort(times.begin(), times.end());

  std::vector<float> out(elements);
  check(cudaMemcpy(out.data(), dout, elements * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy out");
  bool ok = true;
  for (const size_t h : {size_t{0}, size_t(heads - 1)})
    for (const int row : {0, 1, 31, 32, n / 2 + 3, n - 1}) {
      const std::vector<double> want = reference_row(q, k, v, h * n * kDim, row, n, scale);
      for (int x = 0; x < kDim; ++x) ok = ok && std::fabs(out[h * n * kDim + size_t(row) * kDim + x] - want[x]) < 1e-3;
    }
  std::printf("RESULT sample=flash_attention layout=%s n=%d heads=%d kernel_ms=%.3f check=%s\n", layout.c_str(), n,
              heads, times[times.size() / 2], ok ? "ok" : "FAILED");
  for (float* p : {dq, dk, dv, dout}) check(cudaFree(p), "cudaFree");
  return ok ? 0 : sample::kExitWrongResult;
}

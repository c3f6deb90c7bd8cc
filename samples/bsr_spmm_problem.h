// Host side of bsr_spmm: the deterministic BSR problem and the CPU reference check.
// Plain C++ (cuda_fp16.h only for the __half type and its host conversions).
//
// BSR layout of A (M x K), shared with the kernel:
//   row_ptr[M/128 + 1]   first non-zero block of each block row, in block units
//   col_idx[nnz_blocks]  block column (K/128 units) of each non-zero block, ascending per row
//   a_vals[nnz_blocks][128][128]  each block dense and row-major, blocks stored in row_ptr order
#pragma once

#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <vector>

#include "sample_common.h"

namespace bsr {

constexpr int kBlock = 128;  // BSR block edge; also the C tile edge of one thread block

// Sizes of one problem. K_eff (the inner dimension actually multiplied) is blocks_per_row * 128.
struct Shape {
  int m = 8192, n = 8192, k = 8192;
  int blocks_per_row = 16;  // the seed's topk=16 (clamped to K/128 for small K)
  size_t block_rows() const { return size_t(m) / kBlock; }
  size_t nnz_blocks() const { return block_rows() * blocks_per_row; }
  size_t a_elems() const { return nnz_blocks() * kBlock * kBlock; }
  size_t b_elems() const { return size_t(k) * n; }
  size_t c_elems() const { return size_t(m) * n; }
  double flops() const { return 2.0 * m * n * double(blocks_per_row) * kBlock; }
};

// Host arrays of one problem; who allocates them (malloc or cudaMallocHost) is the caller's choice.
struct HostProblem {
  __half* a_vals = nullptr;
  int* row_ptr = nullptr;
  int* col_idx = nullptr;
  __half* b = nullptr;
  float* c = nullptr;
};

// Values are k/1024 with k uniform in [-1024, 1024]: exactly representable in fp16, so the host's
// float->half rounding cannot make the GPU and the CPU reference see different inputs.
inline __half random_half(sample::Rng& rng) { return __float2half_rn(float(int(rng.below(2049)) - 1024) / 1024.0f); }

// Fills row_ptr/col_idx (distinct, sorted, pseudo-random block columns per block row) and the
// values of A and B, all from `seed`, so every run and every mode multiplies the same matrices.
inline void build_problem(const Shape& s, uint64_t seed, HostProblem& p) {
  sample::Rng rng(seed);
  const int k_blocks = s.k / kBlock;
  std::vector<int> cols(k_blocks);
  for (size_t br = 0; br < s.block_rows(); ++br) {
    std::iota(cols.begin(), cols.end(), 0);
    for (int j = 0; j < s.blocks_per_row; ++j)  // partial Fisher-Yates: first j are a sample
      std::swap(cols[j], cols[j + rng.below(uint64_t(k_blocks - j))]);
    std::sort(cols.begin(), cols.begin() + s.blocks_per_row);
    p.row_ptr[br] = int(br * s.blocks_per_row);
    std::copy(cols.begin(), cols.begin() + s.blocks_per_row, p.col_idx + br * s.blocks_per_row);
  }
  p.row_ptr[s.block_rows()] = int(s.nnz_blocks());
  for (size_t i = 0; i < s.a_elems(); ++i) p.a_vals[i] = random_half(rng);
  for (size_t i = 0; i < s.b_elems(); ++i) p.b[i] = random_half(rng);
}

struct VerifyResult {
  int rows = 0;
  long long checked = 0, bad = 0;
  double max_abs_err = 0, max_err_over_tol = 0;
  bool ok() const { return rows > 0 && bad == 0; }
};

// Tolerance. fp16 x fp16 products are exact in fp32; the error is the fp32 accumulation of
// K_eff = 2048 terms: at worst about K_eff * 2^-23 * sum|a*b| ~ 2.4e-4 * sum|a*b| even with
// truncating adds (tensor cores round toward zero), typically far less. 1e-3 * sum|a*b| keeps a
// 4x margin over that worst case, while a wrong block, row or k slice moves an element by roughly
// sqrt(terms) * 0.33, far beyond the tolerance of ~0.5 for typical rows (|C| ~ 15, sum|ab| ~ 512).
constexpr double kRelTol = 1e-3;
constexpr double kAbsTol = 1e-5;

// Recomputes `rows` sampled rows of C in double precision from the same fp16 inputs and compares
// every column. Rows are spread over the matrix (one per stride, random within it) so different
// block rows, warps and fragment rows are exercised.
inline VerifyResult verify_rows(const Shape& s, const HostProblem& p, int rows, uint64_t seed) {
  VerifyResult r;
  rows = std::min(rows, s.m);
  if (rows <= 0) return r;
  std::vector<float> to_float(65536);  // fp16 bit pattern -> float, built once
  for (uint32_t bits = 0; bits < 65536; ++bits) {
    __half_raw raw;
    raw.x = uint16_t(bits);
    to_float[bits] = __half2float(__half(raw));
  }
  auto value = [&](const __half& h) {
    uint16_t bits;
    std::memcpy(&bits, &h, sizeof bits);
    return to_float[bits];
  };

  sample::Rng rng(seed ^ 0x5eed5eedull);
  const int stride = s.m / rows;
  std::vector<double> ref(s.n), mag(s.n);
  for (int i = 0; i < rows; ++i) {
    const int row = i * stride + int(rng.below(uint64_t(stride)));
    const int br = row / kBlock, local = row % kBlock;
    std::fill(ref.begin(), ref.end(), 0.0);
    std::fill(mag.begin(), mag.end(), 0.0);
    for (int blk = p.row_ptr[br]; blk < p.row_ptr[br + 1]; ++blk) {
      const __half* a_row = p.a_vals + (size_t(blk) * kBlock + local) * kBlock;
      for (int kk = 0; kk < kBlock; ++kk) {
        const double a = value(a_row[kk]);
        if (a == 0.0) continue;
        const __half* b_row = p.b + (size_t(p.col_idx[blk]) * kBlock + kk) * s.n;
        for (int col = 0; col < s.n; ++col) {
          const double prod = a * value(b_row[col]);
          ref[col] += prod;
          mag[col] += std::fabs(prod);
        }
      }
    }
    const float* got = p.c + size_t(row) * s.n;
    for (int col = 0; col < s.n; ++col) {
      const double err = std::fabs(double(got[col]) - ref[col]);
      const double tol = kRelTol * mag[col] + kAbsTol;
      ++r.checked;
      if (!(err <= tol)) {  // also catches NaN
        if (r.bad < 5)
          std::printf("verify: MISMATCH C[%d][%d] = %.6f, reference %.6f (tolerance %.3g)\n", row, col,
                      double(got[col]), ref[col], tol);
        ++r.bad;
      }
      if (!std::isnan(err)) {
        r.max_abs_err = std::max(r.max_abs_err, err);
        r.max_err_over_tol = std::max(r.max_err_over_tol, err / tol);
      }
    }
    ++r.rows;
  }
  return r;
}

}  // namespace bsr

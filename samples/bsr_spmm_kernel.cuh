// Block-sparse (BSR) x dense GEMM on tensor cores through WMMA: C[M,N] (fp32) = A[M,K] (BSR, fp16)
// x B[K,N] (fp16, row-major). It plays the part of the seed report's "cooperative loads + WMMA"
// kernel (bsr_spmm_kernel_basic<128,128,32>): deliberately simple (no TMA, no wgmma), so the planted
// problems of the sample are on the host side, where a profiler timeline shows them.
//
// The BSR layout is described in bsr_spmm_problem.h, which builds it.
#pragma once

#include <cuda_fp16.h>
#include <mma.h>

#include "bsr_spmm_problem.h"

namespace bsr {

constexpr int kThreads = 128;  // 4 warps in a 2 x 2 layout, each owning a 64 x 64 piece of C

// One thread block computes the BM x BN tile of C at (blockIdx.y * BM, blockIdx.x * BN), walking
// the non-zero blocks of block row blockIdx.y in BK-wide slices ("steps"). Each step stages an
// A slice (BM x BK) and the matching B slice (BK x BN) in shared memory; the next step's global
// loads are issued into registers before the current step's MMAs, so they overlap.
// Requirements (checked by the host): N % BN == 0, B and C 16-byte aligned (cudaMalloc is 256).
//
// Planted slowdown (the sample's --slow-kernel-pct, for testing `gpuscope diff`): extra_pct > 0
// appends round(steps * extra_pct / 100) steps that repeat the first steps in full (global loads,
// shared stores, MMAs) with the A fragments multiplied by discard_scale. The host passes 0, so
// they add exactly zero to C; the compiler cannot know that, so the work is really done.
// extra_pct = 0 gives the original kernel's work.
template <int BM, int BN, int BK>
__global__ void __launch_bounds__(kThreads)
    bsr_spmm_kernel(const __half* __restrict__ a_vals, const int* __restrict__ row_ptr, const int* __restrict__ col_idx,
                    const __half* __restrict__ b, float* __restrict__ c, int n, int extra_pct, float discard_scale) {
  namespace wmma = nvcuda::wmma;
  static_assert(BM == kBlock, "a thread block covers exactly one BSR block row");
  static_assert(BN == 128 && BK % 16 == 0 && kBlock % BK == 0, "tile shape");
  static_assert(kThreads == 4 * 32, "the 2 x 2 warp layout below needs exactly 4 warps");
  constexpr int kVec = 8;          // halves per 16-byte vector load
  constexpr int kPad = 8;          // halves of padding per smem row: keeps rows 32-byte
  constexpr int kLdA = BK + kPad;  // aligned for WMMA and makes the 8 rows that one fragment
  constexpr int kLdB = BN + kPad;  // load touches fall into different banks
  constexpr int kWarpM = BM / 2, kWarpN = BN / 2;
  constexpr int kFragM = kWarpM / 16, kFragN = kWarpN / 16;
  constexpr int kAVecs = BM * BK / kVec / kThreads;  // 16-byte vectors per thread per step
  constexpr int kBVecs = BK * BN / kVec / kThreads;
  constexpr int kStepsPerBlock = kBlock / BK;
  static_assert(kAVecs * kVec * kThreads == BM * BK && kBVecs * kVec * kThreads == BK * BN,
                "every thread loads the same number of whole vectors");

  __shared__ __align__(128) __half a_tile[BM * kLdA];
  __shared__ __align__(128) __half b_tile[BK * kLdB];

  const int tid = threadIdx.x;
  const int warp = tid / 32;
  const int warp_m = warp / 2, warp_n = warp % 2;
  const int block_row = blockIdx.y;
  const int col0 = blockIdx.x * BN;
  const int first_block = row_ptr[block_row];
  const int steps = (row_ptr[block_row + 1] - first_block) * kStepsPerBlock;
  const int all_steps = steps + (steps * extra_pct + 50) / 100;  // = steps unless slowed down
  const __half discard = __float2half(discard_scale);

  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[kFragM][kFragN];
#pragma unroll
  for (int i = 0; i < kFragM; ++i)
#pragma unroll
    for (int j = 0; j < kFragN; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

  int4 a_reg[kAVecs];
  int4 b_reg[kBVecs];

  // Global -> registers for one step. Consecutive threads read consecutive 16-byte vectors of a
  // row, so each warp reads whole 32-byte sectors.
  auto load_step = [&](int step) {
    const int blk = first_block + step / kStepsPerBlock;
    const int k0 = (step % kStepsPerBlock) * BK;
    const __half* a_src = a_vals + size_t(blk) * kBlock * kBlock + k0;
    const __half* b_src = b + (size_t(col_idx[blk]) * kBlock + k0) * n + col0;
#pragma unroll
    for (int v = 0; v < kAVecs; ++v) {
      const int idx = tid + v * kThreads;
      const int row = idx / (BK / kVec), vec = idx % (BK / kVec);
      a_reg[v] = *reinterpret_cast<const int4*>(a_src + size_t(row) * kBlock + vec * kVec);
    }
#pragma unroll
    for (int v = 0; v < kBVecs; ++v) {
      const int idx = tid + v * kThreads;
      const int row = idx / (BN / kVec), vec = idx % (BN / kVec);
      b_reg[v] = *reinterpret_cast<const int4*>(b_src + size_t(row) * n + vec * kVec);
    }
  };

  // Registers -> shared memory, same element mapping as load_step.
  auto store_step = [&]() {
#pragma unroll
    for (int v = 0; v < kAVecs; ++v) {
      const int idx = tid + v * kThreads;
      const int row = idx / (BK / kVec), vec = idx % (BK / kVec);
      *reinterpret_cast<int4*>(&a_tile[row * kLdA + vec * kVec]) = a_reg[v];
    }
#pragma unroll
    for (int v = 0; v < kBVecs; ++v) {
      const int idx = tid + v * kThreads;
      const int row = idx / (BN / kVec), vec = idx % (BN / kVec);
      *reinterpret_cast<int4*>(&b_tile[row * kLdB + vec * kVec]) = b_reg[v];
    }
  };

  if (steps > 0) load_step(0);
  for (int step = 0; step < all_steps; ++step) {
    const bool extra = step >= steps;  // a planted repeat: its products are discarded
    store_step();
    __syncthreads();                                          // tiles complete before any warp reads them
    if (step + 1 < all_steps) load_step((step + 1) % steps);  // in flight while the MMAs run
#pragma unroll
    for (int kk = 0; kk < BK; kk += 16) {
      wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b_frag[kFragN];
#pragma unroll
      for (int j = 0; j < kFragN; ++j)
        wmma::load_matrix_sync(b_frag[j], b_tile + kk * kLdB + warp_n * kWarpN + j * 16, kLdB);
#pragma unroll
      for (int i = 0; i < kFragM; ++i) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a_frag;
        wmma::load_matrix_sync(a_frag, a_tile + (warp_m * kWarpM + i * 16) * kLdA + kk, kLdA);
        if (extra) {
#pragma unroll
          for (int e = 0; e < a_frag.num_elements; ++e) a_frag.x[e] = __hmul(a_frag.x[e], discard);
        }
#pragma unroll
        for (int j = 0; j < kFragN; ++j) wmma::mma_sync(acc[i][j], a_frag, b_frag[j], acc[i][j]);
      }
    }
    __syncthreads();  // all warps done reading before the next store_step overwrites the tiles
  }

  // Every element of the tile is written, also for an empty block row (zeros), so C needs no memset.
#pragma unroll
  for (int i = 0; i < kFragM; ++i)
#pragma unroll
    for (int j = 0; j < kFragN; ++j) {
      float* dst = c + size_t(block_row * BM + warp_m * kWarpM + i * 16) * n + col0 + warp_n * kWarpN + j * 16;
      wmma::store_matrix_sync(dst, acc[i][j], n, wmma::mem_row_major);
    }
}

}  // namespace bsr

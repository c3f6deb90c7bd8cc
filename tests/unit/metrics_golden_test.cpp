// Golden test of the hardware-metric sections: a synthesized but realistic H100 capture made
// with `--metrics full --gpu-metrics` — a cuBLAS-like tensor-core GEMM (compute-bound), a naive
// FP16 matmul on the FMA pipes (latency-bound, far below its roof), an RMSNorm (DRAM-bound) and a
// shared-memory transpose with 32-way bank conflicts (L1-bound) — rendered in every format and
// compared byte for byte with tests/golden/metrics_report.*. GPUSCOPE_UPDATE_GOLDEN=1 rewrites
// them (tests/golden/README.md).
#include <gtest/gtest.h>

#include <algorithm>

#include "gpuscope/report.h"
#include "metrics_trace.h"
#include "test_files.h"
#include "time_units.h"

namespace gpuscope {
namespace {

using testing::expect_golden;

using testing::Metrics;
constexpr TimeNs kT0 = 1761897600'000'000'000;  // 2025-10-31 08:00:00 UTC
using testing::kMs;

struct KernelPlan {
  const char* name;
  int launches;
  TimeNs ns;
  int grid, block, regs, static_smem, dynamic_smem;
  Metrics metrics;
  // GPU-wide counters while it runs: GPU, SM, warps, tensor, DRAM % and DRAM read/write bytes/s.
  double gpu, sm, warps, tensor, dram, dram_read, dram_write;
};

Metrics extra(double tensor_pipe, double fma_pipe, double issue) {
  return {{"sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active", tensor_pipe},
          {"sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active", fma_pipe},
          {"smsp__issue_active.avg.pct_of_peak_sustained_active", issue}};
}

std::vector<KernelPlan> plans() {
  using namespace testing;
  return {
      {"sm90_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_"
       "cublas",
       10, 1'600'000, 132, 384, 168, 0, 204'800,
       sol(84.1, 42.6, 11.2, 38.5, 42.6, 1.6e6) + memory(4.2e8, 1.34e8, 2.1, 72.4, 0, 2.79e6) + occupancy(18.6, 11.9) +
           stalls({{"gmma", 9.5},
                   {"barrier", 2.3},
                   {"long_scoreboard", 1.1},
                   {"wait", 0.9},
                   {"math_pipe_throttle", 0.7},
                   {"not_selected", 0.4},
                   {"dispatch_stall", 0.2}},
                  18.0) +
           flops(2.1e8, 1.1e8, 0, 1.1e12) + level_bytes(5.54e8, 2.9e9, 3.1e9) + h100_peaks() + extra(81.3, 6.2, 18.0) +
           tensor_path("sm__ops_path_tensor_op_hgmma_src_fp16_sparsity_off.sum", 1.1e12, 540672),
       100, 99, 18.6, 81, 11.2, 2.6e11, 8.4e10},
      {"fused_gelu_matmul_naive(__half const*, __half const*, __half*, int)", 2, 6'000'000, 65536, 256, 64, 0, 0,
       sol(45.3, 38.2, 14.8, 38.2, 31.0, 6e6) + memory(1.7e8, 3.4e7, 61.5, 88.9, 0, 1.05e7) + occupancy(46.8, 29.9) +
           stalls({{"long_scoreboard", 14.6},
                   {"wait", 3.1},
                   {"math_pipe_throttle", 2.4},
                   {"lg_throttle", 1.9},
                   {"short_scoreboard", 1.5},
                   {"not_selected", 1.2},
                   {"no_instruction", 0.4}},
                  31.4) +
           flops(0, 3.4e7, 6.87e10, 0) + level_bytes(2.04e8, 1.1e9, 3.2e10) + h100_peaks() + extra(0, 38.0, 31.4),
       100, 99, 46.8, 0, 14.8, 2.8e10, 5.7e9},
      {"rms_norm_kernel<__half, 1024>(__half*, __half const*, __half const*, float, int)", 22, 205'000, 16384, 256, 32,
       0, 0,
       sol(24.6, 78.4, 78.4, 41.2, 28.3, 2.05e5) + memory(2.68e8, 2.68e8, 0.4, 4.1, 0, 3.6e5) + occupancy(61.8, 39.6) +
           stalls({{"long_scoreboard", 22.4},
                   {"lg_throttle", 3.1},
                   {"barrier", 2.2},
                   {"short_scoreboard", 1.0},
                   {"wait", 0.6}},
                  12.5) +
           flops(1.34e8, 6.7e7, 0, 0) + level_bytes(5.36e8, 5.5e8, 5.4e8) + h100_peaks() + extra(0, 4.1, 12.5),
       100, 98, 61.8, 0, 78.4, 1.31e12, 1.31e12},
      {"transpose_smem_kernel(float*, float const*, int, int)", 8, 536'000, 65536, 256, 18, 4096, 0,
       sol(38.5, 81.2, 31.0, 27.4, 81.2, 5.36e5) + memory(2.68e8, 2.68e8, 0, 12.3, 6.5e7, 9.4e5) +
           occupancy(82.4, 52.7) +
           stalls({{"mio_throttle", 9.8},
                   {"short_scoreboard", 7.9},
                   {"long_scoreboard", 3.1},
                   {"barrier", 2.7},
                   {"not_selected", 0.8}},
                  41.3) +
           flops(0, 0, 0, 0) + level_bytes(5.36e8, 5.4e8, 3.2e9) + h100_peaks() + extra(0, 0.5, 41.3),
       100, 99, 82.4, 0, 31.0, 5e11, 5e11},
  };
}

// A 1 ms PM sample of every sampled metric: each kernel's counters weighted by its overlap.
void add_samples(Trace& t, const std::vector<KernelPlan>& ps, TimeNs from, TimeNs to) {
  const auto& names = gpu_sample_metrics();
  for (TimeNs s = from; s < to; s += kMs) {
    double v[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
    for (const Kernel& k : t.kernels) {
      const TimeNs overlap = std::min(k.end, s + kMs) - std::max(k.start, s);
      if (overlap <= 0) continue;
      const double w = static_cast<double>(overlap) / kMs;
      for (const KernelPlan& p : ps)
        if (t.strings.get(k.name) == p.name) {
          const double c[7] = {p.gpu, p.sm, p.warps, p.tensor, p.dram, p.dram_read, p.dram_write};
          for (int i = 0; i < 7; ++i) v[i] += w * c[i];
        }
    }
    if (s == from) v[7] = 2.2e10;  // the inputs' upload over PCIe in the first millisecond
    for (size_t i = 0; i < names.size(); ++i) testing::add_sample(t, names[i].name, s, s + kMs, v[i]);
  }
}

Trace metrics_capture() {
  testing::TraceBuilder b;
  b.run(kT0, kT0 + 45 * kMs);
  Trace& t = b.trace();
  t.run.command_line = "python train_step.py --steps 1";
  t.run.host = "h100-node-03";
  t.run.gpuscope_version = "0.1.0";
  t.run.exit_code = 0;
  t.run.options = "--metrics full --gpu-metrics";
  t.processes[0].command_line = t.run.command_line;
  t.processes[0].start = kT0 + 200'000;
  t.processes[0].end = kT0 + 44 * kMs;
  t.devices[0].name = "NVIDIA H100 80GB HBM3";
  t.devices[0].uuid = "GPU-5a1c3e9f-0b7d-4c2e-9f1a-2b3c4d5e6f70";
  const auto ps = plans();
  TimeNs now = kT0 + 1 * kMs;
  for (const KernelPlan& p : ps) {
    now = testing::launches(b, p.name, p.launches, now, p.ns, p.metrics);
    const StringId id = t.strings.intern(p.name);
    for (Kernel& k : t.kernels)
      if (k.name == id) {
        k.grid[0] = p.grid;
        k.block[0] = p.block;
        k.registers_per_thread = p.regs;
        k.static_shared_bytes = p.static_smem;
        k.dynamic_shared_bytes = p.dynamic_smem;
      }
  }
  b.api("cudaDeviceSynchronize", now, now + 20'000);
  add_samples(t, ps, kT0, kT0 + 44 * kMs);
  t.metric_collections.push_back({1, "kernel", "ok", "GH100", 41, 124, 42, 0, 0, 0, ""});
  t.metric_collections.push_back({1, "sampling", "ok", "GH100", 0, 9, 0, 0, 1'000'000, 0, ""});
  return t;
}

TEST(MetricsGolden, Text) {
  expect_golden("metrics_report.txt", render_report(metrics_capture(), {}, parse_report_format("text")));
}

TEST(MetricsGolden, Markdown) {
  expect_golden("metrics_report.md", render_report(metrics_capture(), {}, parse_report_format("markdown")));
}

TEST(MetricsGolden, Json) {
  expect_golden("metrics_report.json", render_report(metrics_capture(), {}, parse_report_format("json")));
}

TEST(MetricsGolden, RecordOrderDoesNotMatter) {
  Trace forward = metrics_capture();
  Trace reversed = forward;
  std::reverse(reversed.kernels.begin(), reversed.kernels.end());
  std::reverse(reversed.kernel_metrics.begin(), reversed.kernel_metrics.end());
  std::reverse(reversed.gpu_metric_samples.begin(), reversed.gpu_metric_samples.end());
  std::reverse(reversed.metric_collections.begin(), reversed.metric_collections.end());
  EXPECT_EQ(render_report(forward, {}, parse_report_format("text")),
            render_report(reversed, {}, parse_report_format("text")));
}

}  // namespace
}  // namespace gpuscope

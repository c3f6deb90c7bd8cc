// The PyTorch-aware rules on small synthesized traces (a python process; ops linked to their
// CUDA calls the way torch.profiler or --pytorch=ops captures link them) and on the real MLP
// captures of tests/data: each fires on its planted cause, names the op, and stays silent on
// the fixed variant; one cause gives one finding.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "find_finding.h"
#include "gpuscope/analysis_rules.h"
#include "gpuscope/api_class.h"
#include "importers/importer.h"
#include "time_units.h"
#include "trace_builder.h"

namespace gpuscope::analysis {
namespace {

using testing::find;
using testing::TraceBuilder;

std::string rules_of(const std::vector<Finding>& fs) {
  std::string out;
  for (const Finding& f : fs) out += f.rule + " " + std::to_string(f.saving_ns.value_or(-1)) + "; ";
  return out;
}
using testing::kMs;
using testing::kUs;

// A python process, whose ops link to calls by external id (one id per op).
struct TorchTrace {
  TraceBuilder b;
  uint64_t next_id = 1;
  TorchTrace() { b.trace().processes[0].command_line = "python train.py"; }
  // An op on the main thread; the calls given ran inside it (innermost op wins).
  void op(const std::string& name, TimeNs start, TimeNs end, std::vector<uint32_t> calls = {},
          const std::string& category = "cpu_op", const std::string& shapes = "") {
    Trace& t = b.trace();
    HostOp o;
    o.pid = 1, o.tid = 1, o.name = t.strings.intern(name), o.category = t.strings.intern(category);
    o.start = start, o.end = end, o.external_id = next_id++;
    if (!shapes.empty()) o.input_shapes = t.strings.intern(shapes);
    t.host_ops.push_back(o);
    for (uint32_t c : calls) t.external_correlations.push_back({1, c, o.external_id, 0});
  }
  void sort_ops() {
    std::stable_sort(b.trace().host_ops.begin(), b.trace().host_ops.end(), [](const HostOp& x, const HostOp& y) {
      return x.start != y.start ? x.start < y.start : x.end > y.end;
    });
  }
};

// 8 steps of 4 ms (NVTX train_step): 2 fp32 GEMMs of 1.5 ms each, GPU-bound, then a sync.
TEST(RuleFp32Matmul, SimtGemmsFireWithTheOpAndExplainLowOccupancyTf32DoesNot) {
  for (const std::string kernel : {"void cutlass::Kernel2<cutlass_80_simt_sgemm_64x64_8x5_nn_align1>",
                                   "sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32_warpgroupsize1x1x1"}) {
    TorchTrace tt;
    TraceBuilder& b = tt.b;
    b.run(1, 40 * kMs);
    for (int i = 0; i < 8; ++i) {
      const TimeNs t0 = 1 * kMs + i * 4 * kMs;
      b.range("train_step", t0, t0 + 4 * kMs);
      for (int j = 0; j < 2; ++j) {
        const uint32_t c = b.api("cudaLaunchKernel", t0 + j * 20 * kUs, t0 + j * 20 * kUs + 5 * kUs);
        b.kernel(kernel, t0 + 10 * kUs + j * 1500 * kUs, t0 + 10 * kUs + (j + 1) * 1500 * kUs, c);
        b.trace().kernels.back().registers_per_thread = 255;  // 12.5 % occupancy: low_occupancy fires too
        tt.op("aten::linear", t0 + j * 20 * kUs - 2 * kUs, t0 + j * 20 * kUs + 8 * kUs);
        tt.op("aten::addmm", t0 + j * 20 * kUs - 1 * kUs, t0 + j * 20 * kUs + 7 * kUs, {c});
      }
      b.api("cudaDeviceSynchronize", t0 + 50 * kUs, t0 + 3020 * kUs);
    }
    tt.sort_ops();
    const auto fs = run_rules(b.trace());
    const auto f = find(fs, "fp32_matmul");
    if (kernel.find("tf32") != std::string::npos) {
      EXPECT_FALSE(f) << kernel;
      continue;
    }
    ASSERT_TRUE(f);
    ASSERT_FALSE(fs.empty());
    EXPECT_EQ(fs[0].rule, "fp32_matmul") << rules_of(fs);
    EXPECT_FALSE(find(fs, "low_occupancy"));  // the same kernels: one cause, one finding
    // Steps 2..8 judged: 7 x 3 ms of GEMM; launches this long are compute-bound, 0.6 x H100's
    // TF32/FP32 peak ratio (7.4) faster on tensor cores; GPU-bound: re-timed ~ 7 x 2.3 ms.
    EXPECT_NEAR(*f->saving_ns / 1e6, 7 * 3.0 * (1 - 1 / (0.6 * 7.4)), 0.5);
    EXPECT_NE(f->evidence[1].find("aten::linear"), std::string::npos) << f->evidence[1];
    EXPECT_NE(f->advice.find("allow_tf32"), std::string::npos);
  }
}

// 6 steps; the optimizer range launches 30 small for-each kernels per step, 20 us of Python apart.
Trace optimizer_steps(bool fused) {
  TorchTrace tt;
  TraceBuilder& b = tt.b;
  b.run(1, 30 * kMs);
  for (int i = 0; i < 6; ++i) {
    const TimeNs t0 = 1 * kMs + i * 4 * kMs;
    b.range("train_step", t0, t0 + 3 * kMs);
    tt.op("torch::autograd::AccumulateGrad", t0 + 10 * kUs, t0 + 20 * kUs, {}, "cpu_op", "[[1024, 1024]]");
    const TimeNs o0 = t0 + 100 * kUs;
    const int n = fused ? 1 : 30;
    tt.op("Optimizer.step#AdamW.step", o0, o0 + n * 25 * kUs + 20 * kUs, {}, "user_annotation");
    for (int j = 0; j < n; ++j) {
      const TimeNs c0 = o0 + 10 * kUs + j * 25 * kUs;
      const uint32_t c = b.api("cudaLaunchKernel", c0, c0 + 5 * kUs);
      b.kernel(fused ? "multi_tensor_apply_kernel<FusedOptimizerTensorListMetadata<4>, FusedAdamMathFunctor<float, 4>>"
                     : "multi_tensor_apply_kernel<TensorListMetadata<2>, BinaryOpScalarFunctor<float, 2, 1, 1>>",
               c0 + 8 * kUs, c0 + 12 * kUs, c);
      tt.op(fused ? "aten::_fused_adamw_" : "aten::_foreach_mul_", c0 - 1 * kUs, c0 + 6 * kUs, {c});
    }
    b.api("cudaDeviceSynchronize", t0 + 2900 * kUs, t0 + 2950 * kUs);
  }
  tt.sort_ops();
  return b.trace();
}

TEST(RuleUnfusedOptimizer, ForeachAdamWFiresNamingTheClassFusedDoesNot) {
  const auto fs = run_rules(optimizer_steps(false));
  const auto f = find(fs, "unfused_optimizer");
  ASSERT_TRUE(f) << rules_of(fs);
  EXPECT_NE(f->title.find("AdamW"), std::string::npos) << f->title;
  EXPECT_NE(f->advice.find("torch.optim.AdamW(params, ..., fused=True)"), std::string::npos) << f->advice;
  // Steps 2..6: the 730 us from the range's first call to its last become an 80 us fused call.
  EXPECT_NEAR(*f->saving_ns / 1e6, 5 * 0.65, 0.1);
  EXPECT_NE(f->estimate.find("1.05 M parameters"), std::string::npos) << f->estimate;
  EXPECT_FALSE(find(run_rules(optimizer_steps(true)), "unfused_optimizer"));
}

// 6 steps: a GEMM, then loss.item(): aten::item -> _local_scalar_dense -> a blocking DtoH copy.
TEST(RuleHostSync, ItemEveryStepNamesTheOpAndExplainsTheSyncRules) {
  TorchTrace tt;
  TraceBuilder& b = tt.b;
  b.run(1, 40 * kMs);
  for (int i = 0; i < 6; ++i) {
    const TimeNs t0 = 1 * kMs + i * 5 * kMs;
    b.range("train_step", t0, t0 + 5 * kMs);
    const uint32_t k = b.api("cudaLaunchKernel", t0, t0 + 5 * kUs);
    b.kernel("loss_kernel", t0 + 10 * kUs, t0 + 2 * kMs, k);
    const uint32_t c = b.api("cudaMemcpyAsync", t0 + 20 * kUs, t0 + 2020 * kUs);
    b.copy(CopyKind::DtoH, MemoryKind::Pageable, 4, t0 + 2 * kMs, t0 + 2 * kMs + 5 * kUs, c);
    tt.op("aten::item", t0 + 15 * kUs, t0 + 2030 * kUs);
    tt.op("aten::_local_scalar_dense", t0 + 18 * kUs, t0 + 2025 * kUs, {c});
    // The host then does 2 ms of Python before the next step's launch.
  }
  tt.sort_ops();
  const auto fs = run_rules(b.trace());
  const auto f = find(fs, "host_sync");
  ASSERT_TRUE(f);
  EXPECT_NE(f->title.find("aten::item"), std::string::npos) << f->title;
  EXPECT_FALSE(find(fs, "sync_copies"));
  EXPECT_FALSE(find(fs, "excessive_sync"));
  EXPECT_GT(*f->saving_ns, 0);
}

// 6 steps: 3 ms in the DataLoader's __next__ (GPU idle), then a copy and 1 ms of GPU work.
TEST(RuleDataloaderBound, LoaderRangesWithTheGpuIdleFireAndIdleGapsDoNot) {
  TorchTrace tt;
  TraceBuilder& b = tt.b;
  b.run(1, 40 * kMs);
  for (int i = 0; i < 6; ++i) {
    const TimeNs t0 = 1 * kMs + i * 5 * kMs;
    b.range("train_step", t0, t0 + 5 * kMs);
    b.range("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", t0, t0 + 3 * kMs, 1);
    const uint32_t c = b.api("cudaMemcpyAsync", t0 + 3 * kMs, t0 + 3 * kMs + 20 * kUs);
    b.copy(CopyKind::HtoD, MemoryKind::Pinned, 1 << 20, t0 + 3 * kMs + 5 * kUs, t0 + 3 * kMs + 30 * kUs, c, 7, true);
    const uint32_t k = b.api("cudaLaunchKernel", t0 + 3 * kMs + 30 * kUs, t0 + 3 * kMs + 35 * kUs);
    b.kernel("step_kernel", t0 + 3 * kMs + 40 * kUs, t0 + 4 * kMs + 40 * kUs, k);
    b.api("cudaDeviceSynchronize", t0 + 3 * kMs + 40 * kUs, t0 + 4 * kMs + 50 * kUs);
  }
  const auto fs = run_rules(b.trace());
  const auto f = find(fs, "dataloader_bound");
  ASSERT_TRUE(f) << rules_of(fs);
  ASSERT_FALSE(fs.empty());
  EXPECT_EQ(fs[0].rule, "dataloader_bound");
  EXPECT_FALSE(find(fs, "gpu_idle_gaps"));
  EXPECT_NE(f->advice.find("num_workers"), std::string::npos);
}

// 6 steps, each copying a 64 MB pageable batch (aten::to) at 10 GB/s; pinned would reach 50 GB/s.
TEST(RulePageableCopies, OnPyTorchNamesTheOpAndPinMemory) {
  TorchTrace tt;
  TraceBuilder& b = tt.b;
  b.run(1, 120 * kMs);
  for (int i = 0; i < 6; ++i) {
    const TimeNs t0 = 1 * kMs + i * 15 * kMs;
    b.range("train_step", t0, t0 + 15 * kMs);
    const uint32_t c = b.api("cudaMemcpyAsync", t0, t0 + 6500 * kUs);
    b.copy(CopyKind::HtoD, MemoryKind::Pageable, 64 << 20, t0 + 10 * kUs, t0 + 6410 * kUs, c);
    tt.op("aten::to", t0 - 5 * kUs, t0 + 6510 * kUs);
    tt.op("aten::copy_", t0 - 2 * kUs, t0 + 6505 * kUs, {c});
    const uint32_t k = b.api("cudaLaunchKernel", t0 + 6520 * kUs, t0 + 6525 * kUs);
    b.kernel("step_kernel", t0 + 6530 * kUs, t0 + 12 * kMs, k);
    b.api("cudaDeviceSynchronize", t0 + 6530 * kUs, t0 + 12 * kMs + 10 * kUs);
  }
  tt.sort_ops();
  const auto fs = run_rules(b.trace());
  const auto f = find(fs, "pageable_copies");
  ASSERT_TRUE(f) << rules_of(fs);
  EXPECT_NE(f->advice.find("pin_memory=True"), std::string::npos) << f->advice;
  EXPECT_NE(f->advice.find("non_blocking=True"), std::string::npos);
  EXPECT_NE(f->evidence.back().find("aten::to (forward)"), std::string::npos) << f->evidence.back();
}

// 8 steps of 4 ms (NVTX train_step): cuDNN's NCHW -> NHWC conversion, a tensor-core convolution
// and the NHWC -> NCHW conversion back, launched by aten::conv2d > aten::cudnn_convolution.
struct ConvSteps {
  TimeNs to_nhwc = 150 * kUs, conv = 1000 * kUs, to_nchw = 100 * kUs;
  bool torch = true;             // a python process with host ops linked to the launches
  bool first_step_only = false;  // conversions in step 1 only (warm-up, not judged)
  bool host_bound = false;       // 1 ms of host work between launches, no sync: the GPU waits
  bool linked = true;            // kernels carry their launch call's correlation id
  std::string to_nhwc_name =
      "void cudnn::ops::nchwToNhwcKernel<__half, __half, float, false, true, (cudnnKernelDataType_t)0>"
      "(cudnn::ops::nchw2nhwc_params_t<float>, __half const*, __half*)";
};

Trace conv_steps(const ConvSteps& p) {
  TorchTrace tt;
  TraceBuilder& b = tt.b;
  if (!p.torch) b.trace().processes[0].command_line = "./resnet";
  b.run(1, 40 * kMs);
  const TimeNs gap = p.host_bound ? 1 * kMs : 3 * kUs;  // between launch calls
  for (int i = 0; i < 8; ++i) {
    const TimeNs t0 = 1 * kMs + i * 4 * kMs;
    b.range("train_step", t0, t0 + 4 * kMs);
    const bool convert = !p.first_step_only || i == 0;
    std::vector<uint32_t> calls;
    TimeNs gpu = t0 + 10 * kUs;  // where the stream's next kernel starts
    const auto launch = [&](const std::string& name, TimeNs call, TimeNs d) {
      const uint32_t c = b.api("cudaLaunchKernel", call, call + 2 * kUs);
      gpu = std::max(gpu, call + 10 * kUs);
      b.kernel(name, gpu, gpu + d, p.linked ? c : 0);
      gpu += d;
      calls.push_back(c);
    };
    if (convert) launch(p.to_nhwc_name, t0, p.to_nhwc);
    launch("sm90_xmma_fprop_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize128x128x64_kernel", t0 + gap, p.conv);
    if (convert)
      launch(
          "void cudnn::ops::nhwcToNchwKernel<__half, __half, float, true, false, (cudnnKernelDataType_t)0>"
          "(cudnn::ops::nhwc2nchw_params_t<float>, __half const*, __half*)",
          t0 + 2 * gap, p.to_nchw);
    if (!p.host_bound) b.api("cudaDeviceSynchronize", t0 + 60 * kUs, gpu + 10 * kUs);
    if (p.torch) {
      tt.op("aten::conv2d", t0 - 2 * kUs, t0 + 2 * gap + 4 * kUs);
      tt.op("aten::cudnn_convolution", t0 - 1 * kUs, t0 + 2 * gap + 3 * kUs, calls);
    }
  }
  tt.sort_ops();
  return b.trace();
}

TEST(RuleLayoutConversions, ConversionsAroundConvolutionsFireWithTheOpAndChannelsLast) {
  const auto fs = run_rules(conv_steps({}));
  const auto f = find(fs, "layout_conversions");
  ASSERT_TRUE(f) << rules_of(fs);
  // Steps 2..8 judged: 7 x (150 + 100) us of conversions in 7 x 1250 us of GPU busy time.
  ASSERT_GE(f->evidence.size(), 4u);
  EXPECT_NE(f->evidence[0].find("14 conversion kernels (7 NCHW to NHWC, 7 NHWC to NCHW), 1.75 ms (20.0% of GPU "
                                "busy time, 8.75 ms"),
            std::string::npos)
      << f->evidence[0];
  EXPECT_EQ(f->evidence[1].rfind("void cudnn::ops::nchwToNhwcKernel<", 0), 0u) << f->evidence[1];
  EXPECT_NE(f->evidence[1].find(": 7 launches, 1.05 ms, launched by aten::conv2d > aten::cudnn_convolution"),
            std::string::npos)
      << f->evidence[1];
  EXPECT_NE(f->evidence[2].find("nhwcToNchwKernel"), std::string::npos) << f->evidence[2];
  EXPECT_EQ(f->evidence[3], "launched by aten::conv2d > aten::cudnn_convolution (forward): 14");
  // GPU-bound, every step ends in a sync: re-timed without the conversions, each step 250 us shorter.
  ASSERT_TRUE(f->saving_ns);
  EXPECT_NEAR(*f->saving_ns / 1e6, 7 * 0.25, 0.005);
  EXPECT_NE(f->estimate.find("re-timed"), std::string::npos) << f->estimate;
  EXPECT_NE(f->advice.find("model = model.to(memory_format=torch.channels_last)"), std::string::npos) << f->advice;
  EXPECT_NE(f->advice.find("x = x.to(memory_format=torch.channels_last)"), std::string::npos) << f->advice;
  ASSERT_FALSE(f->spans.empty());
  for (const EvidenceSpan& s : f->spans) EXPECT_LE(s.end - s.start, 150 * kUs);  // conversions, not the conv
}

TEST(RuleLayoutConversions, FiresFromThreePercentOfGpuBusyTime) {
  ConvSteps p;
  p.conv = 2000 * kUs;
  p.to_nhwc = 30 * kUs, p.to_nchw = 20 * kUs;  // 50 / 2050 us = 2.4 %: saving 350 us, worth it, yet too small a share
  EXPECT_FALSE(find(run_rules(conv_steps(p)), "layout_conversions"));
  p.to_nhwc = 40 * kUs, p.to_nchw = 30 * kUs;  // 70 / 2070 us = 3.4 %
  const auto f = find(run_rules(conv_steps(p)), "layout_conversions");
  ASSERT_TRUE(f);
  EXPECT_NEAR(*f->saving_ns / 1e6, 7 * 0.07, 0.005);
}

TEST(RuleLayoutConversions, ConversionsOutsideTheJudgedStepsDoNotCount) {
  ConvSteps p;
  p.first_step_only = true;  // step 1 only: 250 us, 3.6 % of the judged busy time if it counted
  EXPECT_FALSE(find(run_rules(conv_steps(p)), "layout_conversions"));
}

// Without host ops, by the mangled name; the advice for a program that calls cuDNN itself.
TEST(RuleLayoutConversions, MangledNamesWithoutPyTorchAdviseNhwcDescriptors) {
  ConvSteps p;
  p.torch = false;
  p.to_nhwc_name =
      "_ZN5cudnn3ops16nchwToNhwcKernelI6__halfS2_fLb0ELb1EL21cudnnKernelDataType_t0EEEvNS0_18nchw2nhwc_params_tIT1_"
      "EEPKT_PT0_";
  const auto f = find(run_rules(conv_steps(p)), "layout_conversions");
  ASSERT_TRUE(f);
  EXPECT_NE(f->evidence[0].find("14 conversion kernels"), std::string::npos) << f->evidence[0];
  for (const std::string& e : f->evidence) EXPECT_EQ(e.find("launched by"), std::string::npos) << e;
  EXPECT_NE(f->advice.find("CUDNN_TENSOR_NHWC"), std::string::npos) << f->advice;
  EXPECT_EQ(f->advice.find("torch"), std::string::npos) << f->advice;
}

// Host-bound steps (the GPU waits for each launch): removing the conversions saves nothing on the
// critical path, so nothing is reported. Without launch calls to re-time, their GPU time is the
// estimate, an upper bound.
TEST(RuleLayoutConversions, HostBoundStepsSaveOnlyWhatIsOnTheCriticalPath) {
  ConvSteps p;
  p.host_bound = true;
  EXPECT_FALSE(find(run_rules(conv_steps(p)), "layout_conversions"));
  p.linked = false;
  const auto f = find(run_rules(conv_steps(p)), "layout_conversions");
  ASSERT_TRUE(f);
  EXPECT_EQ(*f->saving_ns, 7 * 250 * kUs);
  EXPECT_NE(f->estimate.find("not re-timed: 14 of them"), std::string::npos) << f->estimate;
}

// The real MLP captures (launch-bound fp32 MLP, for-each AdamW): PyTorch fixes rank first.
TEST(RulesTorchCaptures, MlpTrainRanksCudaGraphsOptimizerAndTf32First) {
  for (const char* name : {"pytorch/mlp_train_modules.gpuscope", "pytorch/mlp_train.gpuscope"}) {
    const auto fs = run_rules(load_trace(std::string(GPUSCOPE_TEST_DATA_DIR) + "/" + name));
    ASSERT_GE(fs.size(), 2u) << name;
    for (size_t i = 0; i < 2; ++i)
      EXPECT_TRUE(fs[i].rule == "launch_bound" || fs[i].rule == "unfused_optimizer" || fs[i].rule == "fp32_matmul")
          << name << " #" << i << ": " << fs[i].rule;
    EXPECT_FALSE(find(fs, "gpu_idle_gaps")) << name;
    const auto lb = find(fs, "launch_bound");
    ASSERT_TRUE(lb) << name;
    EXPECT_NE(lb->advice.find("reduce-overhead"), std::string::npos);
    EXPECT_NE(lb->advice.find("train_step"), std::string::npos);
  }
}

// The core API trace records no pure queries (cudaGetDevice, cudaPeekAtLastError, ...): a graph of
// the step holds the same GPU work either way, so the MLP's estimate does not move with the trace.
TEST(RulesTorchCaptures, LaunchBoundEstimateIsTheSameFromTheCoreApiTrace) {
  const Trace full = load_trace(std::string(GPUSCOPE_TEST_DATA_DIR) + "/pytorch/mlp_train.gpuscope");
  Trace core = full;
  std::erase_if(core.api_calls, [&](const ApiCall& c) {
    const std::string& name = core.strings.get(c.name);
    return classify_api(name) == ApiClass::Other && !creates_context(name);
  });
  ASSERT_LT(core.api_calls.size(), full.api_calls.size() * 9 / 10);
  const auto in_full = find(run_rules(full), "launch_bound");
  const auto in_core = find(run_rules(core), "launch_bound");
  ASSERT_TRUE(in_full && in_core);
  EXPECT_NEAR(static_cast<double>(*in_core->saving_ns) / static_cast<double>(*in_full->saving_ns), 1.0, 0.02)
      << *in_core->saving_ns << " ns from the core trace, " << *in_full->saving_ns << " ns from the full one";
}

// torch.profiler traces of the same MLP: per-parameter AdamW (aten::mul_, lerp_, addcdiv_ per
// tensor under Optimizer.step#AdamW.step) and its fused twin (aten::_fused_adamw_).
TEST(RulesTorchCaptures, KinetoPerParameterAdamWFiresFusedDoesNot) {
  const std::string dir = std::string(GPUSCOPE_TEST_DATA_DIR) + "/kineto/";
  const auto fs = run_rules(load_trace(dir + "mlp_train.json.gz"));
  const auto f = find(fs, "unfused_optimizer");
  ASSERT_TRUE(f) << rules_of(fs);
  EXPECT_NE(f->advice.find("torch.optim.AdamW(params, ..., fused=True)"), std::string::npos);
  EXPECT_NE(f->advice.find("several elementwise kernels per parameter"), std::string::npos);
  ASSERT_FALSE(fs.empty());
  EXPECT_EQ(fs[0].rule, "launch_bound");
  const auto fused = run_rules(load_trace(dir + "mlp_train_fused.json.gz"));
  EXPECT_FALSE(find(fused, "unfused_optimizer")) << rules_of(fused);
}

}  // namespace
}  // namespace gpuscope::analysis

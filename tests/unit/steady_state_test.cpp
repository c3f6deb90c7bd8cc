// Steady state by default: with steps, the verdict on steps 2..N (GPU-, launch- or sync-bound),
// the Start-up section, and rules and Bottleneck judging the steady state, on synthesized
// traces shaped like the report (a 3-layer MLP + AdamW, 50 train_step ranges on an H200,
// 3 s of Python before the first step); without steps, everything judges the whole run.
#include <gtest/gtest.h>

#include "find_finding.h"
#include "gpuscope/analysis_rules.h"
#include "gpuscope/analysis_startup.h"
#include "gpuscope/analysis_steps.h"
#include "gpuscope/report.h"
#include "time_units.h"
#include "trace_builder.h"

namespace gpuscope::analysis {
namespace {

using testing::kMs;
using testing::kS;
using testing::kUs;
using testing::TraceBuilder;
constexpr int kSteps = 50;
constexpr TimeNs kFirstStep = 3310 * kMs;  // after 3 s of host work with the GPU idle

// Start-up: context creation in a 200 ms cudaFree at 0.1 s, one cuModuleLoadData (5 ms, nested
// driver call) and a 10 ms pinned copy of the weights at 0.3 s, then 3 s of host work outside
// CUDA (the interpreter building the model), then the steps. The first step is 2 ms longer.
TraceBuilder with_startup(TimeNs step_ns) {
  TraceBuilder b;
  b.run(1, kFirstStep + kSteps * step_ns + 2 * kMs + 10 * kMs);
  b.api("cudaFree", 100 * kMs, 300 * kMs);
  b.api("cuModuleLoadData", 250 * kMs, 255 * kMs);
  b.trace().api_calls.back().domain = ApiDomain::Driver;
  const uint32_t c = b.api("cudaMemcpy", 300 * kMs, 310 * kMs);
  b.copy(CopyKind::HtoD, MemoryKind::Pinned, 500 << 20, 300 * kMs, 310 * kMs, c);
  // A record without times: it must change none of the numbers below.
  b.kernel("untimed", 0, 0, b.api("cudaLaunchKernel", 0, 0));
  return b;
}

// A launch-bound step at t0 (1.2 ms): 100 launches 10 us apart (8 us call, 5 us kernel starting
// 6 us after the call), a cudaStreamSynchronize of 3 us in which the last kernel ends after 1 us,
// then host work (optimizer bookkeeping in Python) to the step's end.
// Per step: GPU busy 500 us, idle while waiting 2 us, idle otherwise 698 us.
constexpr TimeNs kLaunchStep = 1200 * kUs;
void launch_bound_step(TraceBuilder& b, TimeNs t0, TimeNs extra = 0) {
  for (int i = 0; i < 100; ++i) {
    const TimeNs t = t0 + i * 10 * kUs;
    b.kernel("mlp_gemm", t + 6 * kUs, t + 11 * kUs, b.api("cudaLaunchKernel", t, t + 8 * kUs));
  }
  b.api("cudaStreamSynchronize", t0 + 1000 * kUs, t0 + 1003 * kUs);
  b.range("train_step", t0, t0 + kLaunchStep + extra);
}

Trace launch_bound_run() {
  TraceBuilder b = with_startup(kLaunchStep);
  TimeNs t = kFirstStep;
  for (int s = 0; s < kSteps; ++s) {
    const TimeNs extra = s == 0 ? 2 * kMs : 0;
    launch_bound_step(b, t, extra);
    t += kLaunchStep + extra;
  }
  return b.trace();
}

TEST(SteadyState, LaunchBoundStepsHaveTheVerdictWithTheirNumbers) {
  const Trace t = launch_bound_run();
  ASSERT_EQ(detect_step_range(t), "train_step");
  const auto steps = summarize_steps(t, "train_step");
  ASSERT_TRUE(steps);
  const auto steady = steady_steps(*steps);
  ASSERT_TRUE(steady);
  EXPECT_EQ(steady->steps, static_cast<size_t>(kSteps - 1));
  EXPECT_EQ(steady->step_ns, 1200.0 * kUs);
  EXPECT_EQ(steady->gpu_busy_ns, 500.0 * kUs);
  EXPECT_EQ(steady->sync_idle_ns, 2.0 * kUs);
  EXPECT_EQ(steady->launch_idle_ns, 698.0 * kUs);
  EXPECT_EQ(steady->bound, StepBound::LaunchBound);
  EXPECT_EQ(verdict(*steady),
            "launch-bound: the GPU is idle 58% of each step (0.70 of 1.20 ms) while the host launches work; GPU busy "
            "0.50 ms");
}

TEST(SteadyState, StartUpIsNotTheTopFindingOnceTheStepsAreJudged) {
  const Trace t = launch_bound_run();
  // Judged over the whole run, the 3 s of host work ranks first: what the issue reported.
  const auto whole = testing::whole_run_rules(t);
  ASSERT_FALSE(whole.empty());
  EXPECT_EQ(whole.front().rule, "gpu_idle_gaps");
  EXPECT_GT(*whole.front().saving_ns, 2900 * kMs);

  const RuleInputs inputs = rule_inputs(t);
  ASSERT_TRUE(inputs.steady);
  EXPECT_EQ(inputs.steady->steps, static_cast<size_t>(kSteps));
  EXPECT_EQ(inputs.steady->start, kFirstStep + kLaunchStep + 2 * kMs);
  EXPECT_EQ(inputs.attribution.wall_ns, (kSteps - 1) * kLaunchStep);
  EXPECT_EQ(inputs.attribution.get(TimeCategory::CudaInit), 0);
  const auto fs = run_rules(t, inputs);
  ASSERT_FALSE(fs.empty());
  EXPECT_EQ(fs.front().rule, "launch_bound");
  for (const Finding& f : fs)  // nothing judged counts the start-up's seconds
    if (f.saving_ns && !f.startup) {
      EXPECT_LT(*f.saving_ns, (kSteps - 1) * kLaunchStep) << f.rule;
    }
  // The context creation (200 ms, more than any steady saving) still fires, ranked last.
  const auto startup = testing::find(fs, "startup_cost");
  ASSERT_TRUE(startup);
  EXPECT_GT(*startup->saving_ns, *fs.front().saving_ns);
  EXPECT_EQ(fs.back().rule, "startup_cost");
}

TEST(SteadyState, StartUpSectionSplitsTheTimeBeforeTheFirstStep) {
  const Trace t = launch_bound_run();
  const auto u = analyze_startup(t, detect_steady_state(t));
  ASSERT_TRUE(u);
  EXPECT_TRUE(u->until_first_step);
  EXPECT_EQ(u->length(), kFirstStep - 1);
  EXPECT_EQ(u->before_cuda_ns, 100 * kMs - 1);
  EXPECT_EQ(u->context_creation_ns, 200 * kMs);
  EXPECT_EQ(u->loading_ns, 0);  // nested in the context-creating call: counted as context creation
  EXPECT_EQ(u->loading_calls, 1u);
  EXPECT_EQ(u->other_cuda_ns, 10 * kMs);
  EXPECT_EQ(u->host_ns, 3000 * kMs);
  EXPECT_EQ(u->gpu_busy_ns, 10 * kMs);
  EXPECT_EQ(*u->warmup_excess_ns, 2 * kMs);

  const std::string text = render_report(t, {}, parse_report_format("text"));
  const size_t steps = text.find("\nSteps\n-----"), startup = text.find("\nStart-up\n"),
               bottleneck = text.find("\nBottleneck\n");
  ASSERT_NE(startup, std::string::npos) << text;
  EXPECT_LT(steps, startup);
  EXPECT_LT(startup, bottleneck);
  EXPECT_NE(text.find("Host work between CUDA calls          3.00 s"), std::string::npos) << text;
  EXPECT_NE(text.find("Verdict                            launch-bound: the GPU is idle 58%"), std::string::npos);
  EXPECT_NE(text.find("Judged                    steady state: steps 2\u201350 of train_step, 58.80 ms of 3.38 s"),
            std::string::npos);
}

// One step per iteration of `step(b, t0)`, 10 of them from 1 ms, no start-up to speak of.
template <class StepFn>
SteadySteps steady_of(TimeNs step_ns, StepFn step) {
  TraceBuilder b;
  b.run(1, 2 * kMs + 10 * step_ns);
  for (int s = 0; s < 10; ++s) step(b, 1 * kMs + s * step_ns);
  const auto steps = summarize_steps(b.trace(), detect_step_range(b.trace()));
  EXPECT_TRUE(steps);
  return steps ? steady_steps(*steps).value_or(SteadySteps{}) : SteadySteps{};
}

TEST(SteadyState, GpuBoundStepsKeepTheGpuBusy) {
  // One 1 ms kernel per 1.1 ms step, the host waiting for it in a synchronize.
  const SteadySteps s = steady_of(1100 * kUs, [](TraceBuilder& b, TimeNs t0) {
    b.kernel("gemm", t0 + 50 * kUs, t0 + 1050 * kUs, b.api("cudaLaunchKernel", t0, t0 + 5 * kUs));
    b.api("cudaStreamSynchronize", t0 + 10 * kUs, t0 + 1055 * kUs);
    b.range("step", t0, t0 + 1100 * kUs);
  });
  EXPECT_EQ(s.bound, StepBound::GpuBound);
  EXPECT_NEAR(s.busy_share, 1000.0 / 1100.0, 1e-9);
  EXPECT_EQ(verdict(s), "GPU-bound: the GPU is busy 91% of each step (1.00 of 1.10 ms)");
}

TEST(SteadyState, SyncBoundStepsIdleWhileTheHostWaits) {
  // A 10 us kernel, then 500 us in cudaStreamSynchronize while the GPU has nothing of this
  // process to run (the stream waits on work the trace does not hold), 100 us of host work.
  const SteadySteps s = steady_of(600 * kUs, [](TraceBuilder& b, TimeNs t0) {
    b.kernel("step_kernel", t0 + 5 * kUs, t0 + 15 * kUs, b.api("cudaLaunchKernel", t0, t0 + 4 * kUs));
    b.api("cudaStreamSynchronize", t0 + 5 * kUs, t0 + 505 * kUs);
    b.range("step", t0, t0 + 600 * kUs);
  });
  EXPECT_EQ(s.bound, StepBound::SyncBound);
  EXPECT_EQ(s.sync_idle_ns, 490.0 * kUs);
  EXPECT_EQ(s.launch_idle_ns, 100.0 * kUs);
  EXPECT_EQ(verdict(s),
            "sync-bound: the GPU is idle 82% of each step (0.49 of 0.60 ms) while the host waits on it; "
            "GPU busy 0.01 ms");
}

TEST(SteadyState, WithoutStepsTheWholeRunIsJudgedAndStartUpEndsAtTheFirstLaunch) {
  TraceBuilder b = with_startup(kLaunchStep);
  launch_bound_step(b, kFirstStep);  // one instance: no steps
  const Trace& t = b.trace();
  EXPECT_EQ(detect_step_range(t), "");
  const RuleInputs inputs = rule_inputs(t);
  EXPECT_FALSE(inputs.steady);
  const Attribution whole = attribute_wall_time(t);
  EXPECT_EQ(inputs.attribution.wall_ns, whole.wall_ns);
  EXPECT_EQ(inputs.attribution.get(TimeCategory::CudaInit), whole.get(TimeCategory::CudaInit));
  const auto u = analyze_startup(t, std::nullopt);
  ASSERT_TRUE(u);
  EXPECT_FALSE(u->until_first_step);
  EXPECT_EQ(u->end, kFirstStep);  // the first cudaLaunchKernel with times
  EXPECT_FALSE(u->warmup_excess_ns);
  const std::string text = render_report(t, {}, parse_report_format("text"));
  EXPECT_EQ(text.find("\nSteps\n"), std::string::npos);
  EXPECT_EQ(text.find("Judged"), std::string::npos);
  EXPECT_NE(text.find("run start to the first kernel launch"), std::string::npos);
}

}  // namespace
}  // namespace gpuscope::analysis

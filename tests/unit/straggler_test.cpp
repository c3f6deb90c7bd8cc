// What the straggler did differently (straggler_cause.cpp), the straggler rule, and ranks in diff
// and check, on the real two-H200 DDP run whose rank 1 sleeps 20 ms before each backward pass.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>

#include "common/error.h"
#include "export_test_util.h"
#include "find_finding.h"
#include "gpuscope/analysis_diff.h"
#include "gpuscope/analysis_ranks.h"
#include "gpuscope/analysis_rules.h"
#include "gpuscope/check.h"
#include "gpuscope/diff_report.h"
#include "gpuscope/report.h"
#include "gpuscope/store.h"
#include "importers/importer.h"
#include "spool_builder.h"
#include "test_files.h"
#include "trace_builder.h"

namespace gpuscope {
namespace {

const Trace& ddp() {
  static const Trace trace = [] {
    const std::string dir = testing::scratch_dir("straggler_ddp");
    const std::string path = dir + "/ddp_straggler.gpuscope";
    std::ofstream(path, std::ios::binary) << testing::gunzip(
        testing::read_text_file(std::string(GPUSCOPE_TEST_DATA_DIR) + "/ddp/ddp_straggler.gpuscope.gz"));
    return import_files({path});
  }();
  return trace;
}

// The DDP run with the straggler's lateness taken out: each NCCL kernel of rank 1 (pid 795) starts
// no later than rank 0's matching one, so neither rank waits for the other's arrival.
// The DDP capture as the launcher would have described it: its ranks (it predates the RANK
// column, so they read -1): 794 is rank 0 and 795 rank 1 (torchrun's environment at the time).
Trace ranked(Trace t) {
  for (Process& p : t.processes)
    if (p.pid == 794 || p.pid == 795) p.rank = static_cast<int32_t>(p.pid - 794), p.world_size = 2;
  return t;
}

Trace without_lateness() {
  Trace t = ddp();
  std::map<uint32_t, std::vector<Kernel*>> comm;
  for (Kernel& k : t.kernels)
    if (analysis::classify_collective(t.strings.get(k.name)) != analysis::Collective::None) comm[k.pid].push_back(&k);
  for (auto& [pid, list] : comm)
    std::sort(list.begin(), list.end(), [](const Kernel* a, const Kernel* b) { return a->start < b->start; });
  const std::vector<Kernel*>&r0 = comm[794], &r1 = comm[795];
  EXPECT_EQ(r0.size(), r1.size());
  for (size_t i = 0; i < std::min(r0.size(), r1.size()); ++i) r1[i]->start = std::min(r1[i]->start, r0[i]->start);
  return t;
}

Trace single_process() { return read_trace(std::string(GPUSCOPE_TEST_DATA_DIR) + "/bsr_spmm_baseline.gpuscope"); }

TEST(StragglerCause, ThePlantedSleepIsAHostGapOfAbout20MsPerStep) {
  const auto r = analysis::analyze_ranks(ddp());
  ASSERT_TRUE(r && r->straggler && r->straggler->cause);
  const analysis::StragglerCause& c = *r->straggler->cause;
  EXPECT_EQ(c.kind, analysis::StragglerCauseKind::HostGaps) << c.text;
  EXPECT_TRUE(c.per_step);
  // Planted: time.sleep(0.02) per step. Rank 1's launching threads (main and autograd) make no
  // CUDA call for 20.2-20.4 ms in each of steps 2..30 (the sleep plus Python around it); rank 0's
  // have no gap of 1 ms or more in those steps. Step 1 (warm-up, 168 / 222 ms) is one of 30: the
  // median leaves it out.
  EXPECT_GE(c.straggler.host_gap_ns, 20.0e6) << c.text;
  EXPECT_LE(c.straggler.host_gap_ns, 21.0e6) << c.text;
  EXPECT_GE(c.straggler.longest_gap_ns, 20.0e6);
  EXPECT_LT(c.others.host_gap_ns, 1.0e6) << c.text;
  EXPECT_NEAR(c.difference, c.straggler.host_gap_ns - c.others.host_gap_ns, 1.0);
  // The sleep ends, backward launches its first ~2 ms of kernels, then the first all-reduce: the one
  // it arrives late at (1.7 ms after the gap on this capture).
  ASSERT_TRUE(c.gap_before_late_ns.has_value());
  EXPECT_GT(*c.gap_before_late_ns, 0.0);
  EXPECT_LT(*c.gap_before_late_ns, 5e6);
  EXPECT_NE(c.text.find("before the collective it arrived late at"), std::string::npos) << c.text;
  // Both ranks run the same model: 40 compute kernels a step on rank 1 (35-40 on rank 0, whose
  // host runs ahead of its GPU). Kernel time is GPU time clipped to each host step, so rank 0's
  // steps, which its GPU trails, hold a little less of it: 2.1 ms apart here, far less than the gap.
  EXPECT_NEAR(c.straggler.kernels, 40.0, 2.0);
  EXPECT_LT(c.straggler.kernel_ns - c.others.kernel_ns, 3.0e6);
  EXPECT_EQ(c.text.rfind("host gaps: +20.", 0), 0u) << c.text;
  EXPECT_NE(c.text.find("ms per step"), std::string::npos) << c.text;

  const std::string text = render_report(ddp(), {}, parse_report_format("text"));
  EXPECT_NE(text.find("Likely cause"), std::string::npos) << text;
  EXPECT_NE(text.find("host gaps: +20."), std::string::npos);
  const std::string json = render_report(ddp(), {}, parse_report_format("json"));
  EXPECT_NE(json.find("\"straggler_cause\""), std::string::npos);
}

// The builder's process as rank 0 (pid 1) and a copy of it as rank 1 (pid 2).
Trace& two_ranks(testing::TraceBuilder& b) {
  Trace& t = b.trace();
  t.processes.push_back(t.processes.front());
  t.processes[1].pid = 2;
  t.processes[0].rank = 0, t.processes[1].rank = 1;
  return t;
}

// DDP's shape: four gradient buckets per step, each all-reduced on the communication stream while
// the next bucket's backward runs. Rank 1 (pid 2) first runs 3 ms of extra GEMMs of its own shape,
// so it reaches every bucket late; rank 0's NCCL kernels queue behind each other, and its own
// compute runs 10 % slower beside its spinning all-reduces (the contention of a waiting rank).
TEST(StragglerCause, ExtraWorkBeforeEveryBucketCostsTheStepOnceAndIsNamedByShape) {
  testing::TraceBuilder b;
  b.run(0, 200'000'000);
  Trace& t = two_ranks(b);
  const std::string ar = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
  const auto on = [&](uint32_t pid) {
    t.kernels.back().pid = pid, t.kernels.back().device = pid - 1, t.kernels.back().correlation_id = 0;
  };
  constexpr TimeNs kMs = 1'000'000;
  for (int step = 0; step < 6; ++step) {
    const TimeNs s = step * 20 * kMs;
    for (uint32_t pid : {1u, 2u}) {
      b.range("train_step", s, s + 15 * kMs);
      t.nvtx_ranges.back().pid = t.nvtx_ranges.back().tid = pid;
      b.api("cudaLaunchKernel", s, s + 10'000, 1);
      t.api_calls.back().pid = pid, t.api_calls.back().tid = pid;
    }
    b.kernel("monitor_gemm", s + 1 * kMs, s + 4 * kMs, 0), on(2);
    t.kernels.back().grid[0] = 512;
    TimeNs previous_end = 0;
    for (int bucket = 0; bucket < 4; ++bucket) {
      const TimeNs rank0_ready = s + kMs + (bucket + 1) * 2'200'000;
      const TimeNs rank1_ready = s + 4 * kMs + (bucket + 1) * 2 * kMs;
      b.kernel("gemm", rank0_ready - 2'200'000, rank0_ready, 0), on(1);
      b.kernel("gemm", rank1_ready - 2 * kMs, rank1_ready, 0), on(2);
      const TimeNs rank0_start = std::max(rank0_ready, previous_end);
      previous_end = rank1_ready + 200'000;
      b.kernel(ar, rank0_start, previous_end, 0), on(1);
      b.kernel(ar, rank1_ready, previous_end, 0), on(2);
    }
  }
  const auto r = analysis::analyze_ranks(t);
  ASSERT_TRUE(r && r->straggler && r->straggler->cause);
  const analysis::Straggler& st = *r->straggler;
  EXPECT_EQ(st.rank, 1);
  EXPECT_EQ(st.steps, 6u);
  // Late by 2.8 ms at the first bucket and 1.8 ms at each later one (rank 0's queue realigned):
  // 8.2 ms summed, but the step ends 2.8 ms later, once.
  EXPECT_NEAR(st.late_per_step_ns, 2.8e6, 1e3);
  ASSERT_EQ(st.step_lateness.size(), 6u);
  EXPECT_NEAR(static_cast<double>(st.late_ns) / 6, 8.2e6, 1e3);
  const analysis::StragglerCause& c = *st.cause;
  EXPECT_EQ(c.kind, analysis::StragglerCauseKind::MoreKernels) << c.text;
  EXPECT_NEAR(c.difference, 3e6, 1e3) << c.text;  // the extra GEMMs, not 11 - 8.8 ms of kernel time
  EXPECT_NE(c.text.find("+1 launches per step"), std::string::npos) << c.text;
  EXPECT_NE(c.text.find("monitor_gemm (grid 512x1x1, block 128x1x1)"), std::string::npos) << c.text;
}

TEST(StragglerCause, SlowerKernelsOnASyntheticRank) {
  // Two ranks (pids 1 and 2), three all-reduces; rank 1's compute kernel before each runs 4 ms
  // instead of 1 ms, so it reaches every all-reduce 3 ms late.
  testing::TraceBuilder b;
  b.run(0, 100'000'000);
  Trace& t = two_ranks(b);
  const auto on_rank1 = [&] { t.kernels.back().pid = 2, t.kernels.back().device = 1; };
  for (TimeNs base : {10'000'000, 30'000'000, 50'000'000}) {
    b.kernel("gemm", base, base + 1'000'000, 0);
    b.kernel("gemm", base, base + 4'000'000, 0), on_rank1();
    b.kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL", base + 1'000'000, base + 5'000'000, 0);
    b.kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL", base + 4'000'000, base + 5'000'000, 0), on_rank1();
  }
  const auto r = analysis::analyze_ranks(t);
  ASSERT_TRUE(r && r->straggler && r->straggler->cause);
  EXPECT_EQ(r->straggler->rank, 1);
  const analysis::StragglerCause& c = *r->straggler->cause;
  EXPECT_FALSE(c.per_step);  // no NVTX steps: over the run
  EXPECT_EQ(c.kind, analysis::StragglerCauseKind::SlowerKernels) << c.text;
  EXPECT_DOUBLE_EQ(c.difference, 9'000'000.0);
  EXPECT_EQ(c.text,
            "slower kernels: +9.0 ms over the run (12.0 ms of compute kernel time against 3.0 ms, the same 3 "
            "kernels)");
}

TEST(StragglerRule, FiresOnTheDdpRunWithItsLatenessPerStep) {
  const analysis::RuleInputs inputs = analysis::rule_inputs(ddp());
  ASSERT_TRUE(inputs.ranks && inputs.ranks->straggler);
  const auto f = testing::find(analysis::run_rules(ddp(), inputs), "straggler");
  ASSERT_TRUE(f.has_value());
  // The saving is the straggler's lateness in the judged steps; no more than its lateness summed
  // over the collectives (which counts a lateness carried through several buckets at each).
  const analysis::Straggler& s = *inputs.ranks->straggler;
  TimeNs expected = 0, summed = 0;
  size_t steps = 0;
  for (const analysis::LateArrival& step : s.step_lateness)
    if (!inputs.steady || inputs.steady->contains(step.start)) expected += step.late_ns, ++steps;
  for (const analysis::RankSummary& r : inputs.ranks->ranks)
    if (r.pid == s.pid)
      for (const analysis::LateArrival& a : r.late_arrivals)
        if (!inputs.steady || inputs.steady->contains(a.start)) summed += a.late_ns;
  ASSERT_TRUE(f->saving_ns.has_value());
  EXPECT_EQ(*f->saving_ns, expected);
  EXPECT_LE(*f->saving_ns, summed);
  // At least the planted 20 ms in each judged step (29 of 30 when the whole run is judged).
  EXPECT_GE(steps, 29u);
  EXPECT_GE(*f->saving_ns, static_cast<TimeNs>(steps) * 20'000'000) << steps;
  EXPECT_NE(f->title.find("is the straggler: the other ranks wait 22."), std::string::npos) << f->title;
  EXPECT_NE(f->title.find("per train_step"), std::string::npos) << f->title;
  const bool cause_cited = std::any_of(f->evidence.begin(), f->evidence.end(), [](const std::string& e) {
    return e.find("what it did differently: host gaps: +20.") != std::string::npos;
  });
  EXPECT_TRUE(cause_cited);
  EXPECT_NE(f->advice.find("pin_memory"), std::string::npos) << f->advice;
  EXPECT_FALSE(f->spans.empty());
}

TEST(StragglerRule, SilentOnASingleProcessCapture) {
  const Trace t = single_process();
  const analysis::RuleInputs inputs = analysis::rule_inputs(t);
  EXPECT_FALSE(inputs.ranks.has_value());
  EXPECT_FALSE(testing::find(analysis::run_rules(t, inputs), "straggler").has_value());
}

TEST(RanksDiff, TheDdpRunAgainstItselfChangesNothing) {
  const analysis::DiffResult d = analysis::diff_traces(ddp(), ddp(), {});
  ASSERT_TRUE(d.ranks.has_value());
  EXPECT_TRUE(d.ranks->by_pid_order);  // captured before ranks were recorded
  ASSERT_EQ(d.ranks->ranks.size(), 2u);
  for (const analysis::RankDiffRow& r : d.ranks->ranks) {
    ASSERT_TRUE(r.base && r.next);
    EXPECT_EQ(r.base->pid, r.next->pid);
    EXPECT_EQ(r.base->gpu_busy_ns, r.next->gpu_busy_ns);
    EXPECT_EQ(r.base->compute_ns, r.next->compute_ns);
    EXPECT_EQ(r.base->comm_ns, r.next->comm_ns);
    EXPECT_EQ(r.base->overlap_ns, r.next->overlap_ns);
    EXPECT_EQ(r.base->waited_ns, r.next->waited_ns);
  }
  EXPECT_EQ(d.ranks->base_late_per_step_ns, d.ranks->new_late_per_step_ns);
  const std::string text = render_diff(d, {}, parse_report_format("text"));
  EXPECT_NE(text.find("Straggler, base"), std::string::npos) << text;
  EXPECT_NE(text.find("#1 (pid 795 / 795)"), std::string::npos) << text;
  // Every change cell reads 0 (or +0.0 pt): no other change text in the ranks table.
  EXPECT_EQ(text.find("only in"), std::string::npos);
}

TEST(RanksDiff, TakingTheLatenessOutShowsInTheDiff) {
  const Trace fixed = without_lateness();
  const analysis::DiffResult d = analysis::diff_traces(ddp(), fixed, {});
  ASSERT_TRUE(d.ranks.has_value());
  ASSERT_TRUE(d.ranks->base_straggler.has_value());
  EXPECT_EQ(d.ranks->base_straggler->pid, 795u);
  EXPECT_FALSE(d.ranks->new_straggler.has_value());
  EXPECT_GT(d.ranks->base_late_per_step_ns, 20e6);
  EXPECT_EQ(d.ranks->new_late_per_step_ns, 0.0);
  // Rank 0 no longer waits for rank 1's arrival.
  const analysis::RankDiffRow& r0 = d.ranks->ranks[0];
  EXPECT_GT(r0.base->waited_ns, 600'000'000);
  EXPECT_EQ(r0.next->waited_ns, 0);
  EXPECT_LT(d.ranks->new_job.max_waited_ns, d.ranks->base_job.max_waited_ns);
  const std::string md = render_diff(d, {}, parse_report_format("markdown"));
  EXPECT_NE(md.find("Straggler, new"), std::string::npos);
  EXPECT_NE(md.find("**Straggler, new:** none"), std::string::npos) << md;
  EXPECT_NE(md.find("-100"), std::string::npos) << md;  // the waits and the lateness
  const std::string json = render_diff(d, {}, parse_report_format("json"));
  EXPECT_NE(json.find("\"Straggler late per step\""), std::string::npos);
}

TEST(RanksDiff, SingleProcessCapturesHaveNoRanksPart) {
  const Trace t = single_process();
  EXPECT_FALSE(analysis::diff_traces(t, t, {}).ranks.has_value());
}

check::CheckResult gate(const std::string& rules, const Trace& t) {
  return check::evaluate(check::parse_rules(rules, "rules.toml"), t, nullptr, {});
}

TEST(RanksCheck, GatesOnTheStragglerAndPerRank) {
  const std::string rules = R"(
[[total]]
id = "straggler"
name = "ranks.straggler_late_per_step"
max = "5 ms"

[[total]]
name = "ranks.max_waited"
max = "100 ms"

[[total]]
name = "ranks.comm_hidden_pct"
min = 0
max = 100

[[total]]
name = "rank.1.compute"
min = "10 ms"
)";
  const check::CheckResult slow = gate(rules, ranked(ddp()));
  ASSERT_EQ(slow.outcomes.size(), 4u);
  EXPECT_FALSE(slow.outcomes[0].passed);  // 22.7 ms per step
  EXPECT_NEAR(slow.outcomes[0].value, 22.7e6, 0.5e6);
  EXPECT_EQ(slow.outcomes[0].target, "job: straggler_late_per_step");
  EXPECT_FALSE(slow.outcomes[1].passed);  // rank 0 waited the whole lateness
  EXPECT_TRUE(slow.outcomes[2].passed);
  EXPECT_EQ(slow.outcomes[2].measure, check::Measure::Number);
  EXPECT_TRUE(slow.outcomes[3].passed);
  EXPECT_EQ(slow.outcomes[3].target, "rank 1 (pid 795): compute");

  const check::CheckResult fixed = gate(rules, ranked(without_lateness()));
  EXPECT_TRUE(fixed.outcomes[0].passed);
  EXPECT_EQ(fixed.outcomes[0].value, 0.0);
  EXPECT_TRUE(fixed.outcomes[1].passed);
  EXPECT_EQ(fixed.failures(), 0u);
}

std::string gate_error(const std::string& rules, const Trace& t) {
  try {
    gate(rules, t);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(RanksCheck, BadNamesAndMissingRanksAreErrors) {
  EXPECT_NE(gate_error("[[total]]\nname = \"ranks.nope\"\nmax = \"1 ms\"\n", ddp()).find("unknown total 'ranks.nope'"),
            std::string::npos);
  EXPECT_NE(gate_error("[[total]]\nname = \"rank.x.compute\"\nmax = \"1 ms\"\n", ddp()).find("unknown total"),
            std::string::npos);
  // A percentage takes a plain number, a duration a unit.
  EXPECT_NE(gate_error("[[total]]\nname = \"ranks.comm_hidden_pct\"\nmin = \"1 ms\"\n", ddp()), "");
  EXPECT_NE(gate_error("[[total]]\nname = \"rank.0.compute\"\nmax = 5\n", ddp()), "");
  EXPECT_NE(gate_error("[[total]]\nname = \"rank.7.compute\"\nmax = \"1 s\"\n", ranked(ddp())).find("no rank 7"),
            std::string::npos);
  // Recorded before RANK was: the ranks are unknown, so no gate on one of them (pid order would
  // pick some process); the job's totals still gate.
  EXPECT_NE(gate_error("[[total]]\nname = \"rank.1.compute\"\nmin = \"1 ms\"\n", ddp())
                .find("the capture does not say which process is rank 1 (no RANK in the processes' environment)"),
            std::string::npos);
  EXPECT_EQ(gate_error("[[total]]\nname = \"ranks.max_waited\"\nmax = \"1 s\"\n", ddp()), "");
  EXPECT_NE(gate_error("[[total]]\nname = \"ranks.max_waited\"\nmax = \"1 s\"\n", single_process())
                .find("fewer than two GPU processes"),
            std::string::npos);
}

}  // namespace
}  // namespace gpuscope

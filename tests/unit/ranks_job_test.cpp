// A distributed job analysed per rank: the launcher is never the program, steps per rank and for
// the job, the straggler judged against the step, NCCL kernels neither unstable nor compute. On
// the real torchrun capture of 2x H200 (rank 1 sleeps 20 ms per step) and on synthetic traces.
#include <gtest/gtest.h>

#include <fstream>

#include "export_test_util.h"
#include "gpuscope/analysis_ranks.h"
#include "gpuscope/analysis_rules.h"
#include "gpuscope/analysis_steps.h"
#include "gpuscope/analysis_timeline.h"
#include "gpuscope/report.h"
#include "importers/importer.h"
#include "spool_builder.h"
#include "test_files.h"
#include "trace_builder.h"

namespace gpuscope {
namespace {

// torchrun (pid 746, one CUDA call, no kernels) and its two ranks (794, 795), 30 train_step each.
const Trace& ddp() {
  static const Trace trace = [] {
    const std::string path = testing::scratch_dir("ranks_job_ddp") + "/ddp_straggler.gpuscope";
    std::ofstream(path, std::ios::binary) << testing::gunzip(
        testing::read_text_file(std::string(GPUSCOPE_TEST_DATA_DIR) + "/ddp/ddp_straggler.gpuscope.gz"));
    return import_files({path});
  }();
  return trace;
}

TEST(JobRanks, TheLauncherIsNotTheProgram) {
  EXPECT_EQ(analysis::root_pid(ddp()), 794u);  // the first rank (no RANK recorded: the earliest start)
  EXPECT_EQ(analysis::detect_step_range(ddp()), "train_step");
  const analysis::RuleInputs inputs = analysis::rule_inputs(ddp());
  ASSERT_TRUE(inputs.attribution.thread.has_value());
  EXPECT_EQ(inputs.attribution.thread->pid, 794u);
  EXPECT_TRUE(inputs.attribution.steady);
  const std::string text = render_report(ddp(), {}, parse_report_format("text"));
  EXPECT_NE(text.find("\nSteps\n"), std::string::npos) << text;
  EXPECT_NE(text.find("Steps per rank"), std::string::npos) << text;
}

TEST(JobRanks, StepsPerRankAndForTheJob) {
  const auto summary = analysis::summarize_steps(ddp(), "train_step");
  ASSERT_TRUE(summary && summary->job);
  const analysis::JobSteps& job = *summary->job;
  ASSERT_EQ(job.ranks.size(), 2u);
  EXPECT_EQ(job.ranks[0].pid, 794u);
  EXPECT_EQ(job.ranks[1].pid, 795u);
  for (const analysis::RankSteps& r : job.ranks) EXPECT_EQ(r.duration.count, 30u);
  EXPECT_EQ(job.steps.size(), 30u);
  EXPECT_EQ(job.unmatched, 0u);
  // The job's steps never overlap, and the job is as slow as its slowest rank: rank 1's
  // train_step holds the 20 ms sleep (34 ms on average against rank 0's 19 ms).
  for (size_t i = 1; i < job.steps.size(); ++i) EXPECT_GE(job.steps[i].start, job.steps[i - 1].end);
  EXPECT_GE(job.duration.median, job.ranks[1].duration.median * 0.95);
  EXPECT_GE(job.p90_ns, job.duration.median);
  const auto steady = analysis::steady_state(ddp(), *summary);
  ASSERT_TRUE(steady);
  EXPECT_EQ(steady->pid, 794u);
  EXPECT_EQ(steady->steps, 30u);
  EXPECT_EQ(steady->later.size(), 29u);
}

// The straggler is judged against its step, so adding minutes of start-up (a longer wall time)
// changes nothing; it was 1 % of the wall time, which this capture's 12 s of mostly Python
// start-up made a coin toss.
TEST(JobRanks, TheStragglerIsJudgedAgainstTheStep) {
  const auto r = analysis::analyze_ranks(ddp());
  ASSERT_TRUE(r && r->straggler);
  const analysis::Straggler& s = *r->straggler;
  EXPECT_EQ(s.pid, 795u);
  EXPECT_EQ(s.step_range, "train_step");
  EXPECT_GE(s.share_of_step, analysis::kStragglerMinShare);
  EXPECT_GT(s.step_ns, s.late_per_step_ns);
  Trace longer = ddp();
  longer.run.start -= 600'000'000'000;  // ten more minutes before anything ran
  const auto again = analysis::analyze_ranks(longer);
  ASSERT_TRUE(again && again->straggler);
  EXPECT_EQ(again->straggler->pid, 795u);
  EXPECT_DOUBLE_EQ(again->straggler->share_of_step, s.share_of_step);
}

TEST(JobRanks, WaitingInCollectivesIsNeitherUnstableNorCompute) {
  const auto findings = analysis::run_rules(ddp(), analysis::rule_inputs(ddp()));
  for (const analysis::Finding& f : findings) {
    if (f.rule != "unstable_timings") continue;
    for (const std::string& e : f.evidence) EXPECT_EQ(e.find("nccl"), std::string::npos) << e;
  }
}

// A launcher whose ranks are its grandchildren (mpirun -> orted -> rank): the program is rank 0,
// whichever started first.
TEST(JobRanks, TheProgramIsTheLaunchersFirstRank) {
  testing::TraceBuilder b;
  Trace& t = b.trace();
  t.processes.front().pid = 10, t.processes.front().parent_pid = 1, t.processes.front().start = 0;
  const auto add = [&](uint32_t pid, uint32_t parent, TimeNs start, int32_t rank) {
    Process p = t.processes.front();
    p.pid = pid, p.parent_pid = parent, p.start = start, p.rank = rank;
    t.processes.push_back(p);
  };
  add(11, 10, 5, -1);  // orted: no kernels
  add(12, 11, 20, 0);
  add(13, 11, 10, 1);
  b.kernel("gemm", 100, 200, 1);
  b.kernel("gemm", 100, 200, 2);
  t.kernels[0].pid = 12, t.kernels[1].pid = 13;
  EXPECT_EQ(analysis::root_pid(t), 12u);
  t.kernels.push_back(t.kernels[0]);
  t.kernels.back().pid = 10;  // the launched process ran kernels itself: it is the program
  EXPECT_EQ(analysis::root_pid(t), 10u);
}

// Two ranks, three steps each, ranks out of step by 1 ms: the job's k-th step ends with its
// last rank's and starts no earlier than the previous one ended.
TEST(JobRanks, TheJobsStepEndsWithItsLastRank) {
  testing::TraceBuilder b;
  Trace& t = b.trace();
  Process second = t.processes.front();
  second.pid = 2;
  t.processes.push_back(second);
  for (TimeNs s : {0, 10'000'000, 20'000'000}) {
    b.range("step", s, s + 9'000'000);
    b.range("step", s + 1'000'000, s + 11'000'000);
    t.nvtx_ranges.back().pid = t.nvtx_ranges.back().tid = 2;
  }
  const auto job = analysis::job_steps(t, analysis::summarize_steps(t, "step")->steps);
  ASSERT_TRUE(job);
  ASSERT_EQ(job->steps.size(), 3u);
  EXPECT_EQ(job->steps[0].start, 0);
  EXPECT_EQ(job->steps[0].end, 11'000'000);
  EXPECT_EQ(job->steps[1].start, 11'000'000);  // rank 0 started at 10 ms, before step 1 ended
  EXPECT_EQ(job->steps[1].end, 21'000'000);
  EXPECT_DOUBLE_EQ(job->duration.median, 10'000'000.0);
  EXPECT_EQ(job->ranks[0].duration.count, 3u);
  EXPECT_DOUBLE_EQ(job->ranks[1].p90_ns, 10'000'000.0);
}

}  // namespace
}  // namespace gpuscope

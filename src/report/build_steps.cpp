// "Steps": the training or benchmark loop's steps, led by the verdict on the steady steps (what
// bounds a step after warm-up), then every step's time and how busy the GPU was in it.
#include "gpuscope/analysis_steps.h"
#include "report/builder.h"
#include "report/units.h"

namespace gpuscope::report {
namespace {

// The steady steps (2..N of each process): the launch-bound picture the verdict rests on.
void add_steady_lines(Section& s, const analysis::SteadySteps& steady) {
  const double step = steady.step_ns;
  const auto share = [&](double ns) { return opt_num(analysis::share_percent(ns, step), Unit::Percent); };
  s.lines.push_back({"steady_steps", "Steady steps", num(static_cast<double>(steady.steps), Unit::Count),
                     "each process's steps after its first; medians below"});
  s.lines.push_back({"steady_median", "Steady step time (median)", num(step, Unit::Ns), ""});
  s.lines.push_back({"steady_gpu_busy", "GPU busy per steady step", num(steady.gpu_busy_ns, Unit::Ns), ""});
  s.lines.push_back({"steady_gpu_busy_percent", "GPU busy share", share(steady.gpu_busy_ns),
                     "GPU-bound at " + format_percent(100 * analysis::kGpuBoundBusyShare) + " or more"});
  s.lines.push_back({"launch_bound_idle", "GPU idle, host not waiting", num(steady.launch_idle_ns, Unit::Ns),
                     "the host launches work or runs its own code while the GPU runs dry"});
  s.lines.push_back({"launch_bound_percent", "Launch-bound share", share(steady.launch_idle_ns), ""});
  s.lines.push_back({"sync_idle", "GPU idle, host waiting on it", num(steady.sync_idle_ns, Unit::Ns),
                     "inside a synchronize, an event/stream wait or a synchronous copy"});
  s.lines.push_back({"sync_bound_percent", "Sync-bound share", share(steady.sync_idle_ns), ""});
}

Table steps_table(const analysis::StepSummary& summary, size_t top) {
  Table t;
  t.key = "steps";
  t.title = "Steps";
  t.columns = {text_column("name", "Step", TextStyle::Identifier),
               num_column("pid", "PID", Unit::Plain),
               num_column("duration", "Duration", Unit::Ns),
               num_column("gpu_busy", "GPU busy", Unit::Ns),
               num_column("gpu_busy_percent", "GPU busy %", Unit::Percent),
               num_column("launch_idle", "Idle, host not waiting", Unit::Ns),
               num_column("sync_idle", "Idle, host waiting", Unit::Ns),
               num_column("kernels", "Kernels launched", Unit::Count),
               num_column("launched_gpu", "GPU time launched", Unit::Ns)};
  for (const analysis::Step& step : summary.steps) {
    const double length = static_cast<double>(step.end - step.start);
    t.rows.push_back({text(step.name), num(step.pid, Unit::Plain), num(length, Unit::Ns),
                      num(static_cast<double>(step.gpu_busy_ns), Unit::Ns),
                      opt_num(analysis::share_percent(static_cast<double>(step.gpu_busy_ns), length), Unit::Percent),
                      num(static_cast<double>(step.launch_idle_ns), Unit::Ns),
                      num(static_cast<double>(step.sync_idle_ns), Unit::Ns),
                      num(static_cast<double>(step.kernels), Unit::Count), num(step.launched_gpu_ns, Unit::Ns)});
  }
  t.notes.push_back("GPU time launched: the GPU work whose launch call ran inside the step, wherever it ran.");
  t.notes.push_back(
      "Idle, host (not) waiting: GPU idle in the step while the step's thread was (not) inside a call "
      "that waits on the GPU.");
  limit_rows(t, top);
  return t;
}

// Each rank's steps and the job's: the job steps at the pace of its slowest rank.
void add_job(Section& s, const analysis::JobSteps& job) {
  s.lines.push_back({"job_steps", "Job steps", num(static_cast<double>(job.steps.size()), Unit::Count),
                     "the k-th step of every rank; it ends when the last rank's ends"});
  s.lines.push_back({"job_median", "Job step time (median)", num(job.duration.median, Unit::Ns), ""});
  s.lines.push_back({"job_p90", "Job step time (p90)", num(job.p90_ns, Unit::Ns), ""});
  if (job.unmatched)
    s.notes.push_back(plural(job.unmatched, "step", "steps") +
                      " of ranks with more steps than the others are not in the job's steps.");
  Table t;
  t.key = "rank_steps";
  t.title = "Steps per rank";
  t.columns = {num_column("rank", "Rank", Unit::Plain), num_column("pid", "PID", Unit::Plain),
               num_column("steps", "Steps", Unit::Count), num_column("median", "Median", Unit::Ns),
               num_column("p90", "p90", Unit::Ns)};
  for (const analysis::RankSteps& r : job.ranks)
    t.rows.push_back({r.rank < 0 ? text("") : num(r.rank, Unit::Plain), num(r.pid, Unit::Plain),
                      num(static_cast<double>(r.duration.count), Unit::Count), num(r.duration.median, Unit::Ns),
                      num(r.p90_ns, Unit::Ns)});
  s.tables.push_back(std::move(t));
}

}  // namespace

Section build_steps_section(const analysis::StepSummary& summary, size_t top) {
  Section s;
  s.key = "steps";
  s.title = "Steps";
  if (!summary.problem.empty()) {
    s.notes.push_back("The " + summary.range + " ranges cannot be used as steps: " + summary.problem);
    return s;
  }
  const std::optional<analysis::SteadySteps> steady = analysis::steady_steps(summary);
  // The verdict leads: it is the one line the report's first screen must carry.
  if (steady) s.lines.push_back({"verdict", "Verdict", text(analysis::verdict(*steady)), "steady steps, medians"});
  const analysis::Stats& d = summary.duration;
  const analysis::Stats& busy = summary.gpu_busy;
  s.lines.push_back({"count", "Steps", num(static_cast<double>(d.count), Unit::Count), summary.range + " ranges"});
  s.lines.push_back({"median", "Step time (median)", num(d.median, Unit::Ns), ""});
  s.lines.push_back({"min", "Fastest step", num(d.min, Unit::Ns), ""});
  s.lines.push_back({"max", "Slowest step", num(d.max, Unit::Ns), ""});
  s.lines.push_back({"cv", "Spread (CV)", num(d.cv_percent, Unit::Percent), "standard deviation / mean"});
  s.lines.push_back({"gpu_busy_median", "GPU busy per step (median)", num(busy.median, Unit::Ns),
                     "union of the process's kernels, copies and memsets inside the step"});
  s.lines.push_back({"gpu_busy_percent", "GPU busy / step time",
                     opt_num(analysis::share_percent(busy.total, d.total), Unit::Percent), "over all steps"});
  if (summary.first_ratio > 0) {
    const bool warmup = summary.first_ratio >= analysis::kWarmupRatio;
    s.lines.push_back(
        {"first_ratio", "First step / median of the others", num(summary.first_ratio, Unit::Plain),
         warmup ? "likely warm-up: leave it out when comparing (--skip-iterations 1)" : "no sign of warm-up"});
  }
  if (summary.job) add_job(s, *summary.job);
  if (steady) add_steady_lines(s, *steady);
  if (summary.unclosed)
    s.notes.push_back(plural(summary.unclosed, "step was", "steps were") + " never closed and are not counted.");
  s.tables.push_back(steps_table(summary, top));
  return s;
}

}  // namespace gpuscope::report

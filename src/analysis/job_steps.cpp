// job_steps(): the steps of a job of several ranks, each rank's and the job's
// (gpuscope/analysis_steps.h). Times in ns.
#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "gpuscope/analysis_steps.h"

namespace gpuscope::analysis {
namespace {

// Nearest-rank percentile (q in 0..1) of a sample; 0 when empty.
double percentile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  return percentile_sorted(values, q);
}

std::vector<double> lengths(const std::vector<Interval>& steps) {
  std::vector<double> out;
  out.reserve(steps.size());
  for (const Interval& i : steps) out.push_back(static_cast<double>(i.end - i.start));
  return out;
}

}  // namespace

std::optional<JobSteps> job_steps(const Trace& trace, const std::vector<Step>& steps) {
  // A bench capture's processes are repetitions of one program, one after another, not ranks.
  if (trace.runs.size() > 1) return std::nullopt;
  std::map<uint32_t, std::vector<Interval>> by_pid;  // pid -> its steps, by start
  for (const Step& s : steps) by_pid[s.pid].push_back({s.start, s.end});
  if (by_pid.size() < 2) return std::nullopt;
  std::map<uint32_t, int32_t> rank_of;
  for (const Process& p : trace.processes) rank_of.emplace(p.pid, p.rank);

  JobSteps job;
  size_t fewest = SIZE_MAX, total = 0;
  for (auto& [pid, list] : by_pid) {
    std::sort(list.begin(), list.end(), [](const Interval& a, const Interval& b) { return a.start < b.start; });
    RankSteps r;
    r.pid = pid;
    const auto rank = rank_of.find(pid);
    r.rank = rank == rank_of.end() ? -1 : rank->second;
    r.duration = describe(lengths(list));
    r.p90_ns = percentile(lengths(list), kStepP90);
    job.ranks.push_back(r);
    fewest = std::min(fewest, list.size());
    total += list.size();
  }
  std::sort(job.ranks.begin(), job.ranks.end(), [](const RankSteps& a, const RankSteps& b) {
    return std::tuple(a.rank < 0, a.rank, a.pid) < std::tuple(b.rank < 0, b.rank, b.pid);
  });
  // The k-th step of every rank is one step of the job: the ranks of a synchronous job step
  // together. It ends when its last rank's ends, and starts when its first rank's starts, but not
  // before the job's previous step ended (a rank may start its next step while another finishes
  // this one): so the job's steps do not overlap and their lengths are the job's pace. A rank
  // with more steps (one captured from earlier on) keeps its first ones.
  job.unmatched = total - fewest * by_pid.size();
  for (size_t k = 0; k < fewest; ++k) {
    Interval step{INT64_MAX, INT64_MIN};
    for (const auto& [pid, list] : by_pid)
      step.start = std::min(step.start, list[k].start), step.end = std::max(step.end, list[k].end);
    if (!job.steps.empty()) step.start = std::max(step.start, job.steps.back().end);
    job.steps.push_back(step);
  }
  job.duration = describe(lengths(job.steps));
  job.p90_ns = percentile(lengths(job.steps), kStepP90);
  return job;
}

}  // namespace gpuscope::analysis

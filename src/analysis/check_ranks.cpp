// [[total]] rules of `gpuscope check` on ranks (check_ranks.h, docs/diff.md "Gates"):
//   ranks.straggler_late_per_step  the straggler's median lateness per step (over the run
//                                  without steps; 0 without a straggler)
//   ranks.max_waited               the most any one rank waited in collectives
//   ranks.gpu_busy | compute | comm | waited   summed over the ranks
//   ranks.comm_hidden_pct          the job's communication hidden behind compute, %
//   rank.N.gpu_busy | compute | comm | waited | comm_hidden_pct   one rank (rank_number N)
#include "analysis/check_ranks.h"

#include <fmt/format.h>

#include <charconv>

#include "common/error.h"
#include "gpuscope/analysis_stats.h"

namespace gpuscope::check::detail {
namespace {

// The measures of one rank or of the job: their names and whether they are durations.
constexpr std::pair<const char*, bool> kMeasures[] = {
    {"gpu_busy", true}, {"compute", true}, {"comm", true}, {"waited", true}, {"comm_hidden_pct", false}};

struct Parsed {
  bool job = true;
  int32_t rank = -1;
  std::string measure;
};

std::optional<Parsed> parse(const std::string& name) {
  Parsed p;
  if (name.rfind("ranks.", 0) == 0) {
    p.measure = name.substr(6);
    if (p.measure == "straggler_late_per_step" || p.measure == "max_waited") return p;
  } else if (name.rfind("rank.", 0) == 0) {
    const size_t dot = name.find('.', 5);
    if (dot == std::string::npos || dot == 5) return std::nullopt;
    const auto [end, error] = std::from_chars(name.data() + 5, name.data() + dot, p.rank);
    if (error != std::errc{} || end != name.data() + dot || p.rank < 0) return std::nullopt;
    p.job = false;
    p.measure = name.substr(dot + 1);
  } else {
    return std::nullopt;
  }
  for (const auto& [measure, duration] : kMeasures)
    if (p.measure == measure) return p;
  return std::nullopt;
}

double hidden_percent(TimeNs overlap, TimeNs comm) {
  return analysis::share_percent(static_cast<double>(overlap), static_cast<double>(comm)).value_or(0.0);
}

}  // namespace

bool is_ranks_total(const std::string& name, bool& duration) {
  const auto p = parse(name);
  if (!p) return false;
  duration = p->measure.size() < 4 || p->measure.compare(p->measure.size() - 4, 4, "_pct") != 0;
  return true;
}

std::string ranks_total_names() {
  return "ranks.straggler_late_per_step, ranks.max_waited, ranks.<m> or rank.<N>.<m> with <m> = gpu_busy, compute, "
         "comm, waited, comm_hidden_pct";
}

RanksValue ranks_total(const Gate& rule, const std::optional<analysis::RanksAnalysis>& ranks, const std::string& at) {
  const auto p = parse(rule.name);
  if (!p) throw Error(fmt::format("{}: unknown total '{}'", at, rule.name));
  if (!ranks)
    throw Error(
        fmt::format("{}: total '{}' matches nothing: the capture has fewer than two GPU processes", at, rule.name));
  TimeNs gpu_busy = 0, compute = 0, comm = 0, overlap = 0, waited = 0;
  std::string target;
  double value = 0;
  if (p->job) {
    const analysis::JobTotals j = analysis::job_totals(*ranks);
    gpu_busy = j.gpu_busy_ns, compute = j.compute_ns, comm = j.comm_ns, overlap = j.overlap_ns, waited = j.waited_ns;
    target = "job";
    if (p->measure == "straggler_late_per_step") value = analysis::straggler_late_per_step_ns(*ranks);
    if (p->measure == "max_waited") value = static_cast<double>(j.max_waited_ns);
  } else {
    // A gate on rank N needs the launcher's word for which process that is: numbering the
    // processes in pid order would gate some process, not rank N.
    if (analysis::numbered_by_pid_order(*ranks))
      throw Error(
          fmt::format("{}: total '{}': the capture does not say which process is rank {} (no RANK in the "
                      "processes' environment); gate the job with ranks.<m>, or profile under a launcher "
                      "that sets RANK (torchrun, mpirun)",
                      at, rule.name, p->rank));
    const analysis::RankSummary* r = nullptr;
    for (size_t i = 0; i < ranks->ranks.size(); ++i)
      if (analysis::rank_number(*ranks, i) == p->rank) r = &ranks->ranks[i];
    if (!r)
      throw Error(fmt::format("{}: total '{}' matches nothing: the capture has no rank {} (it has {} GPU processes)",
                              at, rule.name, p->rank, ranks->ranks.size()));
    gpu_busy = r->gpu_busy_ns, compute = r->compute_ns, comm = r->comm_ns, overlap = r->overlap_ns,
    waited = r->waited_ns;
    target = fmt::format("rank {} (pid {})", p->rank, r->pid);
  }
  if (p->measure == "gpu_busy") value = static_cast<double>(gpu_busy);
  if (p->measure == "compute") value = static_cast<double>(compute);
  if (p->measure == "comm") value = static_cast<double>(comm);
  if (p->measure == "waited") value = static_cast<double>(waited);
  if (p->measure == "comm_hidden_pct") value = hidden_percent(overlap, comm);
  RanksValue v{fmt::format("{}: {}", target, p->measure), true, value};
  is_ranks_total(rule.name, v.duration);
  return v;
}

}  // namespace gpuscope::check::detail

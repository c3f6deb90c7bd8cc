// Ranks across captures (analysis_ranks.h, analysis_diff.h): rank numbers for matching, the
// job's totals, and the per-rank comparison `gpuscope diff` shows and `check` gates on.
#include <algorithm>
#include <map>

#include "gpuscope/analysis_diff.h"
#include "gpuscope/analysis_ranks.h"
#include "gpuscope/analysis_stats.h"

namespace gpuscope::analysis {

bool numbered_by_pid_order(const RanksAnalysis& ranks) {
  return !std::all_of(ranks.ranks.begin(), ranks.ranks.end(), [](const RankSummary& r) { return r.rank >= 0; });
}

int32_t rank_number(const RanksAnalysis& ranks, size_t index) {
  return numbered_by_pid_order(ranks) ? static_cast<int32_t>(index) : ranks.ranks[index].rank;
}

JobTotals job_totals(const RanksAnalysis& ranks) {
  JobTotals t;
  for (const RankSummary& r : ranks.ranks) {
    t.gpu_busy_ns = add_saturated(t.gpu_busy_ns, r.gpu_busy_ns);
    t.compute_ns = add_saturated(t.compute_ns, r.compute_ns);
    t.comm_ns = add_saturated(t.comm_ns, r.comm_ns);
    t.overlap_ns = add_saturated(t.overlap_ns, r.overlap_ns);
    t.waited_ns = add_saturated(t.waited_ns, r.waited_ns);
    t.max_waited_ns = std::max(t.max_waited_ns, r.waited_ns);
  }
  return t;
}

double straggler_late_per_step_ns(const RanksAnalysis& ranks) {
  if (!ranks.straggler) return 0;
  return ranks.straggler->steps > 0 ? ranks.straggler->late_per_step_ns : static_cast<double>(ranks.straggler->late_ns);
}

std::optional<RanksDiff> diff_ranks(const std::optional<RanksAnalysis>& base,
                                    const std::optional<RanksAnalysis>& next) {
  if (!base || !next) return std::nullopt;
  RanksDiff d;
  d.by_pid_order = numbered_by_pid_order(*base) || numbered_by_pid_order(*next);
  std::map<int32_t, RankDiffRow> rows;
  // By pid order on both sides when either lacks ranks: rank numbers of one and positions of
  // the other would not name the same processes.
  const auto number = [&](const RanksAnalysis& r, size_t i) {
    return d.by_pid_order ? static_cast<int32_t>(i) : rank_number(r, i);
  };
  for (size_t i = 0; i < base->ranks.size(); ++i) {
    RankDiffRow& row = rows[number(*base, i)];
    row.number = number(*base, i);
    row.base = base->ranks[i];
  }
  for (size_t i = 0; i < next->ranks.size(); ++i) {
    RankDiffRow& row = rows[number(*next, i)];
    row.number = number(*next, i);
    row.next = next->ranks[i];
  }
  for (auto& [n, row] : rows) d.ranks.push_back(std::move(row));
  d.base_job = job_totals(*base);
  d.new_job = job_totals(*next);
  d.base_straggler = base->straggler;
  d.new_straggler = next->straggler;
  d.base_late_per_step_ns = straggler_late_per_step_ns(*base);
  d.new_late_per_step_ns = straggler_late_per_step_ns(*next);
  return d;
}

}  // namespace gpuscope::analysis

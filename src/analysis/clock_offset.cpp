// estimate_clock_offset (gpuscope/merge.h): one capture's clock against another's, from the ends
// of the NCCL collectives both ran (every rank leaves a collective at nearly the same instant).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>

#include "gpuscope/analysis_ranks.h"
#include "gpuscope/analysis_stats.h"
#include "gpuscope/merge.h"

namespace gpuscope::analysis {
namespace {

// The process whose collectives stand for the capture. Any rank would do, since all leave each
// collective together; this is the lowest known rank, else the first (by pid) with NCCL kernels.
std::optional<uint32_t> communicating_process(const Trace& trace, std::vector<CommKernel>& comm) {
  std::optional<uint32_t> best;
  std::pair<bool, int32_t> best_key{true, 0};
  for (const Process& p : trace.processes) {
    std::vector<CommKernel> mine = communication_kernels(trace, p.pid);
    if (mine.empty()) continue;
    const std::pair<bool, int32_t> key{p.rank < 0, p.rank};
    if (best && key >= best_key) continue;
    best = p.pid, best_key = key, comm = std::move(mine);
  }
  return best;
}

struct Pairing {
  size_t matched = 0;
  double offset = 0, deviation = 0;  // ns
  TimeNs least = INT64_MIN, most = INT64_MAX;
};

// Collectives whose result on every rank depends on every rank's data: no rank can leave one
// before every rank has entered it. (A broadcast's root, or a send, can finish first.)
bool needs_every_rank(Collective kind) {
  return kind == Collective::AllReduce || kind == Collective::AllGather || kind == Collective::ReduceScatter ||
         kind == Collective::AllToAll;
}

// The reference's collectives from `skip_ref` on paired with the other's from `skip_other` on
// (match_collectives), and the median and median absolute deviation of their end differences.
Pairing pair_ends(const std::vector<CommKernel>& ref, const std::vector<CommKernel>& other, size_t skip_ref,
                  size_t skip_other) {
  const std::vector<CommKernel> a(ref.begin() + static_cast<ptrdiff_t>(skip_ref), ref.end());
  const std::vector<CommKernel> b(other.begin() + static_cast<ptrdiff_t>(skip_other), other.end());
  std::string note;
  const auto ops = match_collectives({&a, &b}, note);
  std::vector<double> diffs;
  diffs.reserve(ops.size());
  Pairing p;
  for (const auto& op : ops) {
    const CommKernel &ref_kernel = *op[0], &other_kernel = *op[1];
    diffs.push_back(static_cast<double>(ref_kernel.end) - static_cast<double>(other_kernel.end));
    if (!needs_every_rank(ref_kernel.kind)) continue;
    // ref.end >= other.start + offset and other.end + offset >= ref.start.
    p.most = std::min(p.most, ref_kernel.end - other_kernel.start);
    p.least = std::max(p.least, ref_kernel.start - other_kernel.end);
  }
  p.matched = diffs.size();
  if (diffs.empty()) return p;
  p.offset = median(diffs);
  for (double& d : diffs) d = std::fabs(d - p.offset);
  p.deviation = median(std::move(diffs));
  return p;
}

}  // namespace

std::optional<ClockEstimate> estimate_clock_offset(const Trace& reference, const Trace& other) {
  std::vector<CommKernel> ref_comm, other_comm;
  const auto ref_pid = communicating_process(reference, ref_comm);
  const auto other_pid = communicating_process(other, other_comm);
  if (!ref_pid || !other_pid) return std::nullopt;

  // Lag 0 first; another pairing must agree at least twice as well to win, so a periodic job
  // (one step's collectives like the next's) keeps the plain k-th-with-k-th pairing unless it
  // is clearly wrong. Skips leave at least kMinAlignCollectives pairs.
  Pairing best = pair_ends(ref_comm, other_comm, 0, 0);
  size_t best_skip = 0;
  for (size_t skip = 1; skip <= kMaxSkipped; ++skip) {
    for (bool on_ref : {true, false}) {
      const std::vector<CommKernel>& skipped = on_ref ? ref_comm : other_comm;
      if (skipped.size() < skip + kMinAlignCollectives) continue;
      const Pairing p = pair_ends(ref_comm, other_comm, on_ref ? skip : 0, on_ref ? 0 : skip);
      if (p.matched >= kMinAlignCollectives && 2 * p.deviation < best.deviation) best = p, best_skip = skip;
    }
  }
  if (best.matched < 2) return std::nullopt;
  ClockEstimate e;
  e.reference_pid = *ref_pid;
  e.pid = *other_pid;
  e.matched = best.matched;
  e.skipped = best_skip;
  e.offset_ns = static_cast<TimeNs>(std::llround(best.offset));
  e.precision_ns = static_cast<TimeNs>(std::llround(best.deviation));
  if (best.least <= best.most && best.most != INT64_MAX) e.bounds = std::pair{best.least, best.most};
  return e;
}

}  // namespace gpuscope::analysis

// Several GPU processes of one job (ranks): each one's GPU time split into compute and
// communication, how much communication hides behind compute, the collectives by kind, and the
// straggler the others wait for. What the report's "Ranks" section shows (docs/report.md).
// Pure and deterministic; times in ns.
//
// Communication kernels are NCCL's (ncclDevKernel_AllReduce_Sum_f32_RING_LL, older
// ncclKernel_AllReduce_RING_LL_Sum_float, ncclDevKernel_SendRecv, ...). A collective starts on a
// rank when its stream reaches the kernel and ends on every rank together, once the last rank
// has arrived: so the k-th collective of each rank is one operation, and the rank whose kernel
// starts last is the one the others wait for. Comparing start times across processes needs one
// clock: CUPTI's timestamps on one host are (CLOCK_REALTIME); across hosts they are not, and
// the straggler analysis says nothing then (every rank must be in one capture of one host).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuscope/model.h"

namespace gpuscope::analysis {

enum class Collective { None, AllReduce, AllGather, ReduceScatter, Broadcast, Reduce, SendRecv, AllToAll, Other };
const char* to_string(Collective c);  // "all-reduce", ...; "" for None
// None: not a communication kernel. Other: an NCCL kernel of a kind not named above.
Collective classify_collective(std::string_view kernel_name);

// One collective a rank arrived last at: its kernel's start and how late it was.
struct LateArrival {
  TimeNs start = 0, late_ns = 0;
};

struct RankSummary {
  uint32_t pid = 0;
  int32_t rank = -1;  // -1: the launcher set none
  std::vector<uint32_t> devices;  // the GPUs its kernels ran on
  size_t kernels = 0, collectives = 0;
  TimeNs gpu_busy_ns = 0;  // union of its kernels, copies and memsets
  TimeNs compute_ns = 0;   // union of its kernels that are not communication
  TimeNs comm_ns = 0;      // union of its communication kernels
  TimeNs overlap_ns = 0;   // communication during which its compute kernels ran too
  // In the matched collectives: time it waited in them for a later rank, and how often (and by
  // how much in all) it was itself the last to arrive.
  TimeNs waited_ns = 0;
  size_t last_count = 0;
  TimeNs late_ns = 0;  // sum over the collectives it arrived last at: its start minus the next latest
  std::vector<LateArrival> late_arrivals;  // by start
};

struct CollectiveGroup {
  Collective kind = Collective::None;
  size_t kernels = 0;     // over all ranks
  TimeNs total_ns = 0;    // summed kernel time over all ranks
  double median_ns = 0;   // median kernel duration
};

struct Straggler {
  uint32_t pid = 0;
  int32_t rank = -1;
  size_t last_count = 0, matched = 0;  // last at this many of the matched collectives
  TimeNs late_ns = 0;                  // summed lateness (RankSummary::late_ns)
  size_t steps = 0;                    // its main thread's repeating NVTX range (0: none found)
  std::string step_range;
  // The median over its steps of its lateness in each (a collective counts in the step whose
  // start last precedes its kernel's start): warm-up steps do not skew it.
  double late_per_step_ns = 0;
  double share_of_wall = 0;            // late_ns over the run's wall time (0..1)
};

struct RanksAnalysis {
  std::vector<RankSummary> ranks;  // by rank (unknown last), then pid
  std::vector<CollectiveGroup> collectives;  // by total time, largest first
  size_t matched = 0;              // collectives matched across all ranks
  std::string matching_note;       // why some could not be matched; empty: all were
  std::optional<Straggler> straggler;
};

// A straggler is named when it arrived last at more than half of the matched collectives and
// its lateness adds up to at least this share of the wall time: below that, which rank is last
// is noise.
inline constexpr double kStragglerMinShare = 0.01;

// One communication kernel of a rank: when its stream reached it (start) and when every rank
// left it (end).
struct CommKernel {
  TimeNs start = 0, end = 0;
  Collective kind = Collective::None;
};

// The communication kernels of process `pid`, by start.
std::vector<CommKernel> communication_kernels(const Trace& trace, uint32_t pid);

// Matches the collectives of several ranks (each list by start): per operation, its kernel on
// each rank, in the order of `ranks`. The k-th collective of every rank is one operation when all
// ran the same sequence; else each kind's k-th instance. `note` says why some could not be
// matched; empty when all were.
std::vector<std::vector<const CommKernel*>> match_collectives(const std::vector<const std::vector<CommKernel>*>& ranks,
                                                              std::string& note);

// nullopt unless at least two processes ran kernels, and for bench captures (their processes are
// runs of one program one after another).
std::optional<RanksAnalysis> analyze_ranks(const Trace& trace);

}  // namespace gpuscope::analysis

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
  int32_t rank = -1;              // -1: the launcher set none
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
  // Every matched collective it took part in, by start: late_ns as above where it arrived last, else 0.
  std::vector<LateArrival> arrivals;
};

struct CollectiveGroup {
  Collective kind = Collective::None;
  size_t kernels = 0;    // over all ranks
  TimeNs total_ns = 0;   // summed kernel time over all ranks
  double median_ns = 0;  // median kernel duration
};

// The matched operations of one kind and message size (nccl-tests' "size": one rank's larger
// buffer, in bytes): each operation once, timed by the kernel of the rank that arrived last,
// the only one that did not wait. Bandwidths in bytes/s, as nccl-tests defines them:
// algorithm bandwidth = size / time; bus bandwidth = algorithm bandwidth x 2(n-1)/n for
// all-reduce, x (n-1)/n for all-gather, reduce-scatter and all-to-all, x 1 otherwise (n ranks):
// what each link carried, comparable with the link's peak whatever the collective.
struct CollectiveSize {
  Collective kind = Collective::None;
  uint64_t bytes = 0;
  uint32_t ranks = 0;  // communicator size (NCCL's, else the ranks that communicated)
  size_t operations = 0;
  double median_ns = 0;      // median time of the operation
  double algorithm_bps = 0;  // from the median time
  double bus_bps = 0;
};

// The bandwidth one GPU's link to its peers can carry per direction, for the bus bandwidth's
// share of it; bytes_per_s = 0 when the GPU is not one we know.
struct LinkPeak {
  double bytes_per_s = 0;
  std::string what;  // "NVLink 4, 18 links: 450 GB/s per direction (H100/H200 SXM)"
};
LinkPeak link_peak(const Device& device);

// What the straggler did differently from the other ranks (straggler_cause.cpp), per iteration of
// its repeating NVTX range, from one instance's start to the next's (each other rank: its own main
// thread's ranges of that name), or over the run when either has no steps. Medians over the steps; "others": the median
// of the other ranks' medians.
struct RankWork {
  double kernels = 0;    // compute kernels that started on the GPU in the step
  double kernel_ns = 0;  // every compute kernel's GPU time inside the step (clipped to it), summed
  // Host gaps: stretches of >= kHostGapMin in which none of its threads that launch GPU work
  // (main thread, autograd thread, ...) was in a CUDA call: host work (data loading, sleep,
  // Python) the GPU could not be fed during. Summed.
  double host_gap_ns = 0;
  double longest_gap_ns = 0;  // the longest such stretch (median over the steps)
};
inline constexpr TimeNs kHostGapMin = 1'000'000;

enum class StragglerCauseKind { Unknown, HostGaps, SlowerKernels, MoreKernels };
const char* to_string(StragglerCauseKind kind);  // "host gaps", "slower kernels", "more kernels", "unknown"

struct StragglerCause {
  StragglerCauseKind kind = StragglerCauseKind::Unknown;
  bool per_step = false;  // false: the measures are over the whole run
  RankWork straggler, others;
  // The difference (straggler minus others) of the measure that names the cause, in ns: host
  // gaps; the GPU time of the launches the others do not make (more kernels, by launch shape:
  // name, grid, block); the rest of its extra kernel time (slower kernels).
  double difference = 0;
  // Host gaps: the median time from the end of the straggler's longest gap in a step to the next
  // collective it arrived last at (nullopt: none follows one).
  std::optional<double> gap_before_late_ns;
  std::string text;  // "host gaps: +20.3 ms per step (...)"
};

struct Straggler {
  uint32_t pid = 0;
  int32_t rank = -1;
  size_t last_count = 0, matched = 0;  // last at this many of the matched collectives
  TimeNs late_ns = 0;                  // summed lateness (RankSummary::late_ns)
  size_t steps = 0;                    // its main thread's repeating NVTX range (0: none, or one)
  std::string step_range;
  // Its lateness in each step (a collective counts in the step whose start last precedes its
  // kernel's start): the sum of the rises of its lateness from one collective to the next, from 0
  // at the step's start. A rank that is 3 ms behind at every gradient bucket is 3 ms late, not 3 ms
  // per bucket: the others' compute goes on while their communication waits, so a lateness that
  // persists costs the step once; one that grows, or comes back after the ranks realigned, counts
  // again. By step start.
  std::vector<LateArrival> step_lateness;
  // The median of step_lateness: warm-up steps do not skew it.
  double late_per_step_ns = 0;
  double step_ns = 0;  // the median of its steps (one start to the next), ns
  // late_per_step_ns / step_ns; without steps, late_ns over the span of the matched collectives
  // (the first one's start to the last one's end). 0..1.
  double share_of_step = 0;
  std::optional<StragglerCause> cause;  // what it did differently (nullopt: no other rank ran kernels)
};

struct RanksAnalysis {
  std::vector<RankSummary> ranks;            // by rank (unknown last), then pid
  std::vector<CollectiveGroup> collectives;  // by total time, largest first
  // Matched operations whose size NCCL (or torch.profiler) recorded, by kind, then size from the largest;
  // operations of unknown size are left out (no bandwidth without bytes). A group NCCL carried
  // out in several kernels is one operation, timed by the sum of its kernels' times.
  std::vector<CollectiveSize> sizes;
  // Operations (a group in several kernels counts once) of known and of unknown size.
  size_t sized_operations = 0, unsized_operations = 0;
  LinkPeak link;              // of the first rank's first GPU
  size_t matched = 0;         // collectives matched across all ranks
  std::string matching_note;  // why some could not be matched; empty: all were
  std::optional<Straggler> straggler;
};

// A straggler is named when it arrived last at more than half of the matched collectives and it
// is late by at least this share of its step (median lateness per step over its median step):
// the job runs at least 5 % slower for it. Without steps, its summed lateness against the span of
// the matched collectives. Judged against the step, not the wall time (mostly Python start-up in
// a short job), so the same program gets the same verdict from run to run.
inline constexpr double kStragglerMinShare = 0.05;

// One communication kernel of a rank: when its stream reached it (start) and when every rank
// left it (end).
struct CommKernel {
  TimeNs start = 0, end = 0;
  Collective kind = Collective::None;
  uint64_t bytes = 0;  // NCCL's size of it (CollectiveCall::bytes); 0: unknown
  uint32_t ranks = 0;  // communicator size; 0: unknown
  // A further kernel of the group of calls the rank's previous NCCL kernel on its stream carried
  // out (CollectiveCall::calls 0): with it, one operation of `bytes` in all.
  bool continues = false;
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

// The biggest difference between the straggler and the other ranks (StragglerCause), called by
// analyze_ranks. A cause is named when its difference is at least kCauseMinShare of the
// straggler's lateness (per step, or over the run); else the kind is Unknown.
inline constexpr double kCauseMinShare = 0.25;
std::optional<StragglerCause> straggler_cause(const Trace& trace, const RanksAnalysis& ranks);

// A rank's number for matching ranks across captures (diff, check's rank.N): its rank when the
// launcher set every rank's, else its position among ranks.ranks (ordered by rank, then pid).
// diff_ranks.cpp.
int32_t rank_number(const RanksAnalysis& ranks, size_t index);
bool numbered_by_pid_order(const RanksAnalysis& ranks);  // rank_number is a position, not the rank

// The job: every rank's times summed (RankSummary's fields), and the most any one rank waited.
struct JobTotals {
  TimeNs gpu_busy_ns = 0, compute_ns = 0, comm_ns = 0, overlap_ns = 0, waited_ns = 0, max_waited_ns = 0;
};
JobTotals job_totals(const RanksAnalysis& ranks);
// The straggler's lateness per step (Straggler::late_per_step_ns), over the run (late_ns) when it
// has no steps, 0 without a straggler.
double straggler_late_per_step_ns(const RanksAnalysis& ranks);

}  // namespace gpuscope::analysis

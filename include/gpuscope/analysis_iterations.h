// Iterations defined by an NVTX range (`--iteration-range NAME` of diff, check
// and bench): every closed instance of the range is one iteration, and every
// record is attributed to the iteration it belongs to, so the statistics can
// compare one value per iteration (docs/diff.md, "Iterations").
//
// Attribution:
//   CUDA API calls and other NVTX ranges  by where they start: inside the
//       half-open interval [range start, range end) of an iteration of the
//       same process. When several iterations contain that moment (iterations
//       on several threads at once), the one on the record's own thread wins;
//       a record on a thread with none of them is counted as ambiguous and left
//       out when more than one other thread's iteration contains it.
//   kernels, copies, memsets  by their launching API call (same run, process
//       and correlation id): a kernel belongs to the iteration its launch call
//       started in, even when it runs on the GPU after the range has closed.
// Instances of the range must not overlap on one thread (nested push/pop, or
// start/end ranges that overlap): that is an error, not a guess.
// Pure and deterministic; throws gpuscope::Error with a one-line message.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "gpuscope/model.h"

namespace gpuscope::analysis {

// A first iteration this many times the median of the others is reported as
// likely warm-up: steady iterations differ by percents, not by half.
inline constexpr double kWarmupRatio = 1.5;

struct IterationSpec {
  std::string range;    // NVTX range name, or a glob (* and ?) such as "ProfilerStep#*"; empty: none
  size_t skip = 0;      // the first `skip` instances of each process are warm-up and left out
  size_t min_kept = 1;  // fewer instances left than this is an error (diff: 3, the verdict's minimum)
  std::string label;    // names the capture in error messages, e.g. its path
};

// One instance of the range. Times in ns.
struct Iteration {
  uint32_t run_id = 0, pid = 0, tid = 0;
  TimeNs start = 0, end = 0;
  size_t ordinal = 0;  // 0-based position among its process's instances (by start), skipped ones included
};

// What the report says about the iterations of one capture.
struct IterationSummary {
  std::string range;
  size_t found = 0;             // closed instances (never-closed ones have no duration and are not counted)
  size_t skipped = 0;           // left out by --skip-iterations
  size_t kept = 0;              // found - skipped: the sample size of every item
  size_t processes = 0;         // (run, process) pairs with at least one instance
  size_t unclosed = 0;          // instances never closed, left out
  size_t unattributed_gpu = 0;  // kernels / copies / memsets whose launching call is not in the capture
  size_t ambiguous = 0;         // calls and ranges inside several other threads' iterations at once
  // Warm-up hint: the largest ratio, over processes with >= 3 instances, of the
  // first instance's duration to the median of the others (0 when none).
  double first_ratio = 0;
  uint32_t first_ratio_pid = 0;
};

class Iterations {
 public:
  IterationSummary summary;
  std::vector<Iteration> kept;  // by (run, pid, start); an attributed record gets an index into this

  // The kept iteration a record belongs to; nullopt when it is outside every
  // iteration, in a skipped one, or ambiguous. of_range is nullopt for the
  // iteration range's own instances.
  std::optional<uint32_t> of_call(const ApiCall& call) const;
  std::optional<uint32_t> of_gpu(uint32_t run_id, uint32_t pid, uint32_t correlation_id) const;
  std::optional<uint32_t> of_range(const NvtxRange& range) const;

  // (iteration index, ns) pairs -> one sum per kept iteration, 0 where the item
  // did not occur: the item's time per iteration.
  std::vector<double> sums(const std::vector<std::pair<uint32_t, double>>& instances) const;
  // The duration of each kept iteration (ns).
  std::vector<double> durations() const;

 private:
  friend Iterations find_iterations(const Trace& trace, const IterationSpec& spec);
  struct Slot {
    TimeNs start, end;
    std::optional<uint32_t> kept;  // nullopt: a skipped instance (it still claims its records)
  };
  using ProcessKey = std::pair<uint32_t, uint32_t>;                    // (run, pid)
  using CallKey = std::tuple<uint32_t, uint32_t, uint32_t>;            // (run, pid, correlation id)
  const std::optional<uint32_t>* find_call(const CallKey& key) const;  // nullptr: no such call
  std::optional<uint32_t> locate(uint32_t run_id, uint32_t pid, uint32_t tid, TimeNs at, bool* ambiguous) const;

  std::map<ProcessKey, std::map<uint32_t, std::vector<Slot>>> slots_;  // per process, per thread, by start
  // (run, pid, correlation id) -> iteration, sorted by key, one entry per key (the last call's):
  // looked up once per kernel, copy and memset. A sorted array, not a std::map (whose nodes were
  // 6% of `report` on a 1M-record capture) nor a hash map (slower still: its lookups miss the cache
  // where binary searches of keys looked up in nearly sorted order do not).
  std::vector<std::pair<CallKey, std::optional<uint32_t>>> calls_;
  // Each process's block of calls_, with, when its correlation ids are dense (CUPTI numbers a
  // process's calls 1, 2, 3, ...), the index into calls_ by id - first_id: a lookup without a
  // search. Sparse ids (an imported file's) are binary-searched within the block.
  struct CallBlock {
    ProcessKey process;
    size_t begin, end;  // calls_[begin, end)
    uint32_t first_id;
    std::vector<uint32_t> by_id;  // index into calls_, or UINT32_MAX: no call of that id; empty: sparse
  };
  std::vector<CallBlock> call_blocks_;  // by process
  void index_calls();
  std::set<StringId> names_;  // the range names that matched spec.range (ids of the trace's string table)
};

// Finds the instances of spec.range and prepares attribution. Throws
// gpuscope::Error when the range is missing, its instances overlap on a
// thread, or fewer than spec.min_kept remain after skipping.
Iterations find_iterations(const Trace& trace, const IterationSpec& spec);

}  // namespace gpuscope::analysis

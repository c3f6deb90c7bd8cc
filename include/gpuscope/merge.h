// `gpuscope merge`: several captures of one distributed job (a file per rank: gpuscope captures,
// torch.profiler traces, nsys exports) as one trace, so the Ranks analysis sees every rank.
// Pure functions; times in ns. docs/merge.md.
//
// Clocks: CUPTI stamps GPU work with the host's CLOCK_REALTIME, so captures of one host share a
// clock and are not shifted. Across hosts the clocks differ by whatever NTP left (µs to ms, or
// anything on a host without it). Every rank leaves a collective together once the last one has
// arrived, so the k-th collective ENDS at nearly the same instant in every capture: the median of
// (end in the first capture - end in this one) over the collectives both ran is this capture's
// offset, and the spread of those differences how far to trust it. Ranks do not leave at exactly
// the same instant, though: on the test run (2×H200, NVLink) the rank that arrived last left
// 20 µs after the other every time, a bias the spread does not show. So the estimate also gets
// hard bounds from causality (ClockEstimate::bounds).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gpuscope/model.h"

namespace gpuscope::analysis {

struct ClockEstimate {
  uint32_t reference_pid = 0, pid = 0;  // the two processes whose collectives were paired
  size_t matched = 0;                   // collectives paired
  size_t skipped = 0;                   // collectives of one side left out at its start to pair them
  TimeNs offset_ns = 0;                 // add to `other`'s times to put them on the reference's clock
  TimeNs precision_ns = 0;              // median absolute deviation of the per-collective differences
  // What causality allows: no rank leaves an all-reduce (all-gather, reduce-scatter, all-to-all)
  // before every rank entered it, so the offset lies in [first, second] whatever the ends' skew.
  // nullopt: no such collective paired (or the bounds contradict: not one job).
  std::optional<std::pair<TimeNs, TimeNs>> bounds;
};

// Collective ends of `other` paired with those of `reference` (ClockEstimate). A capture may
// start a few collectives later than another (a profiler schedule, a later start), so pairings
// with up to kMaxSkipped collectives left out at either start are tried and the one whose
// differences agree best (smallest deviation) is kept. nullopt: either has no NCCL kernels, or
// fewer than 2 collectives paired.
inline constexpr size_t kMaxSkipped = 16;
std::optional<ClockEstimate> estimate_clock_offset(const Trace& reference, const Trace& other);

// Fewer paired collectives than this and an estimate is not applied (too little to tell a clock
// offset from a rank's lateness).
inline constexpr size_t kMinAlignCollectives = 5;

struct MergeInput {
  std::string file;  // as given on the command line; names the input in messages and notes
  Trace trace;       // finished (importer.h's load_trace)
};

struct MergeOptions {
  bool align = true;  // false (--no-align): never shift, only measure
  // --offset FILE=NS: shift the input given as FILE by NS ns whatever was measured (a known
  // offset, or one measured on another run). Not the first input: it is the reference clock.
  std::map<std::string, TimeNs> offsets;
};

struct MergedInput {
  std::string file, host;                              // host: "" when the input does not say
  std::vector<uint32_t> pids;                          // in the merged trace
  std::vector<std::pair<uint32_t, uint32_t>> renamed;  // (pid in the file, pid in the merged trace)
  std::vector<int32_t> ranks;                          // of its processes, where known
  std::optional<ClockEstimate> clock;                  // vs the first input; nullopt for the first
  TimeNs shift_ns = 0;                                 // added to all its times
  std::string decision;                                // why it was (not) shifted, one phrase
};

struct MergeReport {
  std::vector<MergedInput> inputs;
  std::vector<std::string> warnings;  // one line each, also stored in the trace (DataLoss "clock_unaligned")
};

// The inputs as one trace: every process (pids that collide renamed: the later input's pid +
// 10,000,000 × its position, unused elsewhere), names re-interned, clocks aligned as above. The
// run spans all inputs; its command says "merged from N captures", and its options hold one
// "merged: ..." line per input (merge_note_lines) that the report's Run section shows. Throws
// Error for fewer than 2 inputs and for bench captures, even of one run (their processes are
// runs, not ranks).
Trace merge_traces(std::vector<MergeInput> inputs, const MergeOptions& options, MergeReport& report);

// A clock offset or precision for people: "800 ns" below a µs, "12.3 µs" below a ms, else
// "3.700 ms"; with `sign`, a leading + or -.
std::string format_clock(TimeNs ns, bool sign);

// The lines of run.options that merge wrote ("merged: FILE ..."); empty for any other capture.
inline constexpr char kMergedNotePrefix[] = "merged: ";
std::vector<std::string> merge_note_lines(const Run& run);

}  // namespace gpuscope::analysis

// The critical path of a step: the chain of work that decided when the step ended (its range
// closed and the GPU work it launched finished), walked back from the step's end to its start over the dependencies a
// capture shows (host thread order of CUDA calls, launch call -> its kernel or copy, stream order, cudaStreamWaitEvent
// -> the other stream's work, a blocking synchronization -> the GPU work that ended it, and across ranks a collective
// -> the rank that arrived last at it). Each segment says how much the step would shorten if it took no time ("lost
// potential time"), by re-timing the step (retime.h); work off the path saves nothing. What the report's "Critical
// path" section shows (docs/report.md). Pure and deterministic; times in ns.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "gpuscope/analysis_steps.h"
#include "gpuscope/model.h"

namespace gpuscope::analysis {

enum class SegmentKind : uint8_t { HostWork, LaunchLatency, Kernel, Copy, Wait, Collective };
inline constexpr size_t kSegmentKinds = 6;
// "host work", "launch latency", "kernel", "copy", "wait", "collective"
const char* to_string(SegmentKind kind);

struct PathSegment {
  SegmentKind kind = SegmentKind::HostWork;
  uint32_t pid = 0;
  int32_t rank = -1;  // the process's rank; -1: not one of several ranks, or unknown
  TimeNs start = 0, end = 0;
  // A kernel's name, a copy's direction ("HtoD copy", "memset"), a wait's call; empty otherwise.
  std::string name;
  // How much the step shortens if this segment took no time: re-timed on its own process;
  // on another rank, the segment's length bounded by that rank's lead at the collective the
  // path crossed last before it (over the others' earliest arrival had it not held them up
  // at earlier collectives): from there on another rank takes over.
  TimeNs lost_ns = 0;
  TimeNs length() const { return end - start; }
};

struct StepPath {
  size_t step = 0;  // index into StepSummary::steps
  uint32_t pid = 0;
  int32_t rank = -1;
  // The step as analysed: from its range's start, or from the end of the GPU work its process's
  // previous step launched if that is later, to its range's end, or to the end of the GPU work
  // it launched if that is later. So a host that runs ahead of the GPU (nothing in the step
  // waits for it) gives steps as the GPU ran them, and consecutive steps never overlap.
  TimeNs start = 0, end = 0;
  TimeNs path_ns = 0;  // sum of the segments: step_ns() unless the walk stopped early
  TimeNs step_ns() const { return end - start; }
  // The GPU work launched in the step ended after its range: the step ends on the GPU, and the
  // path is walked back from that work's end.
  bool gpu_lags = false;
  std::vector<PathSegment> segments;                 // in time order, no two overlapping
  std::array<TimeNs, kSegmentKinds> kind_ns{};       // segment time per kind
  std::array<TimeNs, kSegmentKinds> kind_lost_ns{};  // every segment of the kind on its process shrunk at once
  // The work that bounds the step most: of the segments outside collectives and waits, those of
  // one process, kind and name (a kernel, a copy direction, host work) with the most time on the
  // path (then the most lost potential). `bound` is the longest of them (its rank says which rank
  // bounds the job's step), bound_ns their time on the path, bound_lost_ns the step's gain if
  // all of them took no time (re-timed at once; on other ranks, each bounded as lost_ns is).
  size_t bound = SIZE_MAX;  // index into segments; SIZE_MAX when none
  TimeNs bound_ns = 0, bound_lost_ns = 0;
};

// One kernel (by name) of the analysed steps: on the path or off it.
struct PathKernel {
  std::string name;
  double gpu_ns = 0;      // its GPU time inside the step, per step (median over the steps)
  double on_path_ns = 0;  // of which on the critical path
  double lost_ns = 0;     // the step's gain if every launch of it in the step took no time
};

struct CriticalPaths {
  std::vector<StepPath> steps;      // each analysed step of each process, as in StepSummary::steps
  std::vector<PathKernel> kernels;  // the kernels with the most GPU time in the steps
  size_t skipped_steps = 0;         // steps beyond kMaxPathSteps per process, not analysed
  bool ranks = false;               // several ranks, collectives matched: the path crosses them
};

// Per process, at most this many steps (its first ones) are walked and re-timed.
inline constexpr size_t kMaxPathSteps = 64;
// Per step, the segments re-timed one by one: the longest this many (ties included). A shorter
// one's lost potential is its length, bounded as on another rank (PathSegment::lost_ns).
inline constexpr size_t kRetimedSegments = 256;
// At most this many kernels by median GPU time per step (PathKernel); those with none in most steps never.
inline constexpr size_t kPathKernels = 10;

// Paths of the summary's steps; empty when it has none (or a problem).
CriticalPaths critical_paths(const Trace& trace, const StepSummary& steps);

}  // namespace gpuscope::analysis

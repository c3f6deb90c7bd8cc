// Re-timing a step the GPU bounds: its host ran ahead (the GPU work it launched ended after its
// range), so the host calls are not what to replay. The step's GPU work is replayed instead, in
// the dependencies the walk follows (critical_path_graph.h): each op starts after the latest of
// its launch call's return, the op before it on its stream and the other stream's op it waited
// for, plus its recorded gap behind that release. Host calls keep their recorded times unless
// host work before them is taken out (HostCut). Every thread's launches count, so work launched
// by another thread (PyTorch's autograd thread launches the backward pass) moves like the rest.
// Times in ns.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "analysis/critical_path_graph.h"
#include "analysis/retime.h"
#include "gpuscope/analysis_steps.h"

namespace gpuscope::analysis::path_detail {

// Host work taken out: the calls of thread `tid` that start at or after `at` return `ns` earlier.
struct HostCut {
  uint32_t tid = 0;
  TimeNs at = 0;
  TimeNs ns = 0;
};

struct GpuScenario {
  std::unordered_map<uint32_t, TimeNs> op_ns;   // op -> new duration
  std::unordered_map<uint32_t, TimeNs> gap_ns;  // op -> new gap behind what released it
  // op -> new time from its launch call's start to the call releasing it (recorded: the call's time)
  std::unordered_map<uint32_t, TimeNs> launch_ns;
  std::vector<HostCut> cuts;
};

class GpuWindowReplay {
 public:
  // The ops of `g` that ran in [from, to) are replayed; those launched by calls that started in
  // [launched_from, launched_to) on any thread are the step's own. The step's range ends at
  // host_end on thread tid.
  GpuWindowReplay(const Trace& trace, const ProcessGraph& g, TimeNs from, TimeNs to, TimeNs launched_from,
                  TimeNs launched_to, uint32_t tid, TimeNs host_end);
  // When the step is done in the scenario: the later of its range's end and its own GPU work's end.
  TimeNs end(const GpuScenario& s) const;

 private:
  static constexpr uint32_t kFixed = UINT32_MAX;  // a release before the window: its recorded time
  struct Node {
    uint32_t op = 0;
    TimeNs duration = 0, gap = 0;
    TimeNs call_end = INT64_MIN;  // its launch call's return (at most the op's start); INT64_MIN: none
    TimeNs call_start = 0;
    uint32_t call_tid = 0;
    uint32_t prev = kFixed, waited = kFixed;              // nodes that release it, or kFixed
    TimeNs prev_end = INT64_MIN, waited_end = INT64_MIN;  // when kFixed: the recorded ends
    bool own = false;                                     // launched by the step
  };
  static TimeNs cut(const GpuScenario& s, uint32_t tid, TimeNs at);

  std::vector<Node> nodes_;  // by start
  uint32_t tid_ = 0;
  TimeNs host_end_ = 0;
};

// What a step's segments shrink, for whichever replay re-times the step.
struct StepScenario {
  Scenario host;
  GpuScenario gpu;
};

// One step's re-timing: on its own thread (the Retimer, the only thread it replays) when the step
// ends on the host, on the GPU (GpuWindowReplay) when its GPU work ends after its range. What
// shrinking a segment changes in the scenario, and what the step gains from a scenario.
class StepRetime {
 public:
  // With host_replay (the step's thread's Retimer, RetimeOptions::step_windows), on the host;
  // without, on the GPU over [from, to), the step as analysed.
  StepRetime(const Trace& t, const ProcessGraph& g, const Step& step, const Retimer* host_replay, TimeNs from,
             TimeNs to);
  TimeNs saving(const StepScenario& s) const;
  // Adds "this segment takes no time" to `s`.
  void shrink(StepScenario& s, const WalkedSegment& w) const;
  // Adds "this op takes no time" to `s`.
  void zero_op(StepScenario& s, uint32_t op) const;

 private:
  void shrink_host(Scenario& s, uint32_t tid, TimeNs a, TimeNs b) const;

  const Trace& t_;
  const ProcessGraph& g_;
  const Retimer* retimer_;
  const Step& step_;
  std::optional<GpuWindowReplay> gpu_;
  TimeNs unchanged_ = 0;  // the step's end replayed without changes
};

}  // namespace gpuscope::analysis::path_detail

// critical_paths(): each step's critical path and its lost potential time
// (gpuscope/analysis_critical_path.h), walked by critical_path_walk.cpp and re-timed by critical_path_replay.h.
#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string_view>
#include <tuple>

#include "analysis/critical_path_graph.h"
#include "analysis/critical_path_replay.h"
#include "analysis/retime.h"
#include "analysis/timeline_util.h"
#include "gpuscope/analysis_stats.h"

namespace gpuscope::analysis {

const char* to_string(SegmentKind kind) {
  switch (kind) {
    case SegmentKind::HostWork: return "host work";
    case SegmentKind::LaunchLatency: return "launch latency";
    case SegmentKind::Kernel: return "kernel";
    case SegmentKind::Copy: return "copy";
    case SegmentKind::Wait: return "wait";
    case SegmentKind::Collective: return "collective";
  }
  return "";
}

namespace {

using path_detail::GpuOp;
using path_detail::OpTable;
using path_detail::ProcessGraph;
using path_detail::StepRetime;
using path_detail::StepScenario;
using path_detail::WalkedSegment;

// The work that bounds the step most: of the segments outside collectives and waits, those of one
// process, kind and name (one kernel, one copy direction, host work) with the most time on the
// path, then the most lost potential. Indices into segments; empty when none.
std::vector<size_t> bounding_work(const std::vector<PathSegment>& segments) {
  std::map<std::tuple<uint32_t, SegmentKind, std::string_view>, std::vector<size_t>> groups;
  for (size_t i = 0; i < segments.size(); ++i) {
    const PathSegment& s = segments[i];
    if (s.kind != SegmentKind::Collective && s.kind != SegmentKind::Wait) groups[{s.pid, s.kind, s.name}].push_back(i);
  }
  std::vector<size_t> best;
  std::pair<TimeNs, TimeNs> most{-1, -1};  // (on the path, lost potential) of the best
  for (auto& [key, members] : groups) {
    std::pair<TimeNs, TimeNs> sum{0, 0};
    for (size_t i : members) sum.first += segments[i].length(), sum.second += segments[i].lost_ns;
    if (sum > most) most = sum, best = std::move(members);
  }
  return best;
}

struct KernelTally {
  std::vector<double> gpu_ns, on_path_ns, lost_ns;  // per analysed step
};

// Where the trace stops mattering: the end of each process's step after the last one analysed,
// the latest over the processes; INT64_MAX when every step is analysed.
TimeNs head_end(const StepSummary& summary) {
  std::map<uint32_t, size_t> seen;  // pid -> steps so far
  TimeNs until = INT64_MIN;
  bool cut = false;
  for (const Step& step : summary.steps) {
    if (seen[step.pid]++ <= kMaxPathSteps) until = std::max(until, step.end);
    else cut = true;
  }
  return cut ? until : INT64_MAX;
}

// The trace's head: the host calls and synchronizations that started before `until`, the GPU work
// that started before it or that those calls launched, and the whole-trace tables. The graphs and
// the replay are built over it, so a long capture costs what its analysed steps cost.
Trace head_of(const Trace& t, TimeNs until) {
  Trace head;
  head.strings = t.strings, head.run = t.run, head.runs = t.runs, head.source_gaps = t.source_gaps;
  head.processes = t.processes, head.devices = t.devices, head.streams = t.streams;
  std::set<std::pair<uint32_t, uint32_t>> launched;  // (pid, correlation id) of the kept calls
  for (const ApiCall& c : t.api_calls)
    if (c.start < until) head.api_calls.push_back(c), launched.insert({c.pid, c.correlation_id});
  for (const Synchronization& s : t.synchronizations)
    if (s.start < until) head.synchronizations.push_back(s);
  auto keep_gpu = [&](const auto& rows, auto& into) {
    for (const auto& r : rows)
      if (r.start < until || launched.count({r.pid, r.correlation_id})) into.push_back(r);
  };
  keep_gpu(t.kernels, head.kernels);
  keep_gpu(t.memcpys, head.memcpys);
  keep_gpu(t.memsets, head.memsets);
  return head;
}

}  // namespace

CriticalPaths critical_paths(const Trace& trace, const StepSummary& summary) {
  const TimeNs until = head_end(summary);
  const std::optional<Trace> head = until == INT64_MAX ? std::nullopt : std::optional(head_of(trace, until));
  const Trace& t = head ? *head : trace;
  CriticalPaths out;
  std::vector<ProcessGraph> graphs;
  std::map<uint32_t, size_t> graph_of;  // pid -> graphs index
  for (const Process& p : t.processes) {
    if (graph_of.count(p.pid)) continue;
    graph_of[p.pid] = graphs.size();
    graphs.emplace_back(t, p.pid, p.rank);
  }
  out.ranks = path_detail::link_collectives(t, graphs);

  std::map<std::pair<uint32_t, uint32_t>, std::unique_ptr<Retimer>> retimers;  // (pid, tid)
  std::map<uint32_t, size_t> walked;                                           // pid -> steps analysed
  std::map<uint32_t, TimeNs> previous_end;                                     // pid -> its last step's end
  std::map<StringId, KernelTally> kernels;
  for (size_t i = 0; i < summary.steps.size(); ++i) {
    const Step& step = summary.steps[i];
    const auto graph = graph_of.find(step.pid);
    if (graph == graph_of.end()) continue;
    if (walked[step.pid]++ >= kMaxPathSteps) {
      ++out.skipped_steps;
      continue;
    }
    const ProcessGraph& g = graphs[graph->second];
    StepPath path;
    path.step = i, path.pid = step.pid, path.rank = g.rank;
    const uint32_t last = g.last_launched(step.start, step.end);
    path.gpu_lags = last != path_detail::kNone && g.ops[last].end > step.end;
    path.end = path.gpu_lags ? g.ops[last].end : step.end;
    path.start = step.start;
    if (const auto prev = previous_end.find(step.pid); prev != previous_end.end() && prev->second < path.end)
      path.start = std::max(path.start, prev->second);
    previous_end[step.pid] = path.end;
    const std::vector<WalkedSegment> walk = path.gpu_lags
                                                ? path_detail::walk_back(t, graphs, graph->second, 0, last, path.start,
                                                                         path.end)
                                                : path_detail::walk_back(t, graphs, graph->second, step.tid,
                                                                         path_detail::kNone, path.start, path.end);
    // A step that ends on the host is replayed on its thread, one that ends on the GPU on the GPU.
    const Retimer* host_replay = nullptr;
    if (!path.gpu_lags) {
      std::unique_ptr<Retimer>& retimer = retimers[{step.pid, step.tid}];
      if (!retimer)
        retimer = std::make_unique<Retimer>(t, MainThread{step.pid, step.tid},
                                            RetimeOptions{.follow_stream_waits = true, .step_windows = true});
      host_replay = retimer.get();
    }
    const StepRetime retime(t, g, step, host_replay, path.start, path.end);
    // Each replay costs the step's calls: only the longest segments are re-timed one by one.
    std::vector<TimeNs> lengths;
    for (const WalkedSegment& w : walk) lengths.push_back(w.segment.length());
    TimeNs retimed_from = 0;
    if (lengths.size() > kRetimedSegments) {
      std::nth_element(lengths.begin(), lengths.begin() + (kRetimedSegments - 1), lengths.end(), std::greater<>());
      retimed_from = lengths[kRetimedSegments - 1];
    }
    std::array<std::vector<size_t>, kSegmentKinds> of_kind;  // indices into walk and path.segments
    for (size_t w = 0; w < walk.size(); ++w) {
      PathSegment seg = walk[w].segment;
      if (walk[w].graph == graph->second) {
        TimeNs gain = seg.length();
        if (seg.length() >= retimed_from) {
          StepScenario s;
          retime.shrink(s, walk[w]);
          gain = retime.saving(s);
        }
        seg.lost_ns = std::min({gain, seg.length(), walk[w].lead_ns});
      } else {
        seg.lost_ns = std::min(seg.length(), walk[w].lead_ns);  // bounded by the rank's lead at the collective
      }
      const size_t kind = static_cast<size_t>(seg.kind);
      of_kind[kind].push_back(w);
      path.path_ns += seg.length();
      path.kind_ns[kind] += seg.length();
      path.segments.push_back(std::move(seg));
    }
    // The step's gain if these segments all took no time: on its own process re-timed at once,
    // at most their length and the smallest lead among them; on other processes each segment's own.
    auto lost_together = [&](const std::vector<size_t>& members) {
      StepScenario together;
      TimeNs own = 0, lead = INT64_MAX, elsewhere = 0;
      for (size_t m : members) {
        if (walk[m].graph != graph->second) {
          elsewhere += path.segments[m].lost_ns;
          continue;
        }
        retime.shrink(together, walk[m]);
        own += path.segments[m].length(), lead = std::min(lead, walk[m].lead_ns);
      }
      return (own > 0 ? std::min({retime.saving(together), own, lead}) : 0) + elsewhere;
    };
    for (size_t k = 0; k < kSegmentKinds; ++k)
      if (path.kind_ns[k] > 0) path.kind_lost_ns[k] = lost_together(of_kind[k]);
    // What bounds the step: its longest segment names it; all of them together give its lost potential.
    if (const std::vector<size_t> bound = bounding_work(path.segments); !bound.empty()) {
      for (size_t m : bound) {
        path.bound_ns += path.segments[m].length();
        if (path.bound == SIZE_MAX || path.segments[m].length() > path.segments[path.bound].length()) path.bound = m;
      }
      path.bound_lost_ns = lost_together(bound);
    }

    // Every kernel of the step's process that ran in it: on the path or not.
    std::map<StringId, std::pair<double, StepScenario>> in_step;
    const auto [first_op, past_op] = g.ops_around(path.start, path.end);
    for (size_t o = first_op; o < past_op; ++o) {
      const GpuOp& op = g.ops[o];
      if (op.table != OpTable::Kernel || op.end <= path.start) continue;
      auto& [ns, scenario] = in_step[t.kernels[op.index].name];
      ns += static_cast<double>(overlap_within(op.start, op.end, path.start, path.end));
      retime.zero_op(scenario, static_cast<uint32_t>(o));
    }
    std::map<std::string_view, double> on_path_by_name;  // the step's kernels on its path
    for (const PathSegment& s : path.segments)
      if (s.pid == step.pid && s.kind == SegmentKind::Kernel)
        on_path_by_name[s.name] += static_cast<double>(s.length());
    for (auto& [name, entry] : in_step) {
      KernelTally& k = kernels[name];
      const auto on = on_path_by_name.find(t.strings.get(name));
      const double on_path = on == on_path_by_name.end() ? 0 : on->second;
      k.gpu_ns.resize(out.steps.size(), 0), k.on_path_ns.resize(out.steps.size(), 0),
          k.lost_ns.resize(out.steps.size(), 0);
      k.gpu_ns.push_back(entry.first);
      k.on_path_ns.push_back(on_path);
      k.lost_ns.push_back(static_cast<double>(retime.saving(entry.second)));
    }
    out.steps.push_back(std::move(path));
  }

  // The kernels with the most GPU time per analysed step (median; then in all of them), medians
  // over all of them: a kernel of the first step alone (warm-up, autotuning) does not show.
  std::vector<std::tuple<double, double, StringId>> order;
  for (auto& [name, k] : kernels) {
    k.gpu_ns.resize(out.steps.size(), 0), k.on_path_ns.resize(out.steps.size(), 0),
        k.lost_ns.resize(out.steps.size(), 0);
    double total = 0;
    for (double v : k.gpu_ns) total += v;
    const double median = describe(k.gpu_ns).median;
    if (median > 0) order.emplace_back(-median, -total, name);
  }
  std::sort(order.begin(), order.end());
  for (size_t i = 0; i < order.size() && i < kPathKernels; ++i) {
    const StringId name = std::get<2>(order[i]);
    KernelTally& k = kernels[name];
    out.kernels.push_back(
        {t.strings.get(name), -std::get<0>(order[i]), describe(k.on_path_ns).median, describe(k.lost_ns).median});
  }
  return out;
}

}  // namespace gpuscope::analysis

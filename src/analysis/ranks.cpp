#include "gpuscope/analysis_ranks.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "analysis/ranks_internal.h"
#include "analysis/timeline_util.h"
#include "gpuscope/analysis_stats.h"
#include "gpuscope/analysis_timeline.h"

namespace gpuscope::analysis {
namespace {

struct Participant {
  RankSummary summary;
  std::vector<CommKernel> comm;  // by start
};

void sort_by_start(std::vector<CommKernel>& kernels) {
  std::sort(kernels.begin(), kernels.end(), [](const CommKernel& a, const CommKernel& b) {
    return std::tie(a.start, a.end) < std::tie(b.start, b.end);
  });
}

// Kernels, copies and memsets of each process, split into compute and communication.
std::map<uint32_t, Participant> gather(const Trace& trace) {
  std::map<uint32_t, Participant> by_pid;
  std::map<uint32_t, std::vector<Interval>> busy, compute, comm;
  std::map<StringId, Collective> kinds;                                     // classify each name once
  std::map<std::pair<uint32_t, uint32_t>, const CollectiveCall*> messages;  // (pid, correlation) -> NCCL's call
  for (const CollectiveCall& c : trace.collective_calls) messages.emplace(std::pair{c.pid, c.correlation_id}, &c);
  for (const Kernel& k : trace.kernels) {
    auto [it, fresh] = kinds.try_emplace(k.name);
    if (fresh) it->second = classify_collective(trace.strings.get(k.name));
    Participant& p = by_pid[k.pid];
    RankSummary& s = p.summary;
    ++s.kernels;
    if (std::find(s.devices.begin(), s.devices.end(), k.device) == s.devices.end()) s.devices.push_back(k.device);
    busy[k.pid].push_back({k.start, k.end});
    if (it->second == Collective::None) {
      compute[k.pid].push_back({k.start, k.end});
    } else {
      comm[k.pid].push_back({k.start, k.end});
      const auto message = messages.find({k.pid, k.correlation_id});
      const CollectiveCall* call = message == messages.end() ? nullptr : message->second;
      p.comm.push_back(
          {k.start, k.end, it->second, call ? call->bytes : 0, call ? call->ranks : 0, call && call->calls == 0});
    }
  }
  for (const Memcpy& m : trace.memcpys)
    if (by_pid.count(m.pid)) busy[m.pid].push_back({m.start, m.end});
  for (const Memset& m : trace.memsets)
    if (by_pid.count(m.pid)) busy[m.pid].push_back({m.start, m.end});
  for (auto& [pid, p] : by_pid) {
    RankSummary& s = p.summary;
    s.pid = pid;
    std::sort(s.devices.begin(), s.devices.end());
    s.collectives = p.comm.size();
    s.gpu_busy_ns = union_length(busy[pid]);
    const std::vector<Interval> computing = merge_intervals(compute[pid]), communicating = merge_intervals(comm[pid]);
    for (const Interval& c : computing) s.compute_ns = add_saturated(s.compute_ns, c.end - c.start);
    for (const Interval& c : communicating) {
      s.comm_ns = add_saturated(s.comm_ns, c.end - c.start);
      s.overlap_ns = add_saturated(s.overlap_ns, covered_within(computing, c.start, c.end));
    }
    sort_by_start(p.comm);
  }
  for (const Process& proc : trace.processes)
    if (auto it = by_pid.find(proc.pid); it != by_pid.end()) it->second.summary.rank = proc.rank;
  return by_pid;
}

// The candidate's steps: the starts of its main thread's repeating range, by start.
std::vector<TimeNs> step_starts(const Trace& trace, uint32_t pid, std::string& range) {
  std::vector<TimeNs> starts;
  const auto thread = main_thread(trace, pid);
  const auto name = thread ? repeating_range(trace, *thread, 3) : std::nullopt;
  if (!name) return starts;
  range = trace.strings.get(*name);
  for (const Interval& step : range_instances(trace, *thread, *name)) starts.push_back(step.start);
  return starts;
}

// From the first matched collective's start to the last one's end, over every rank: the part of
// the run the ranks communicated in (start-up before it is no rank's lateness).
double communicating_span(const std::vector<std::vector<CommKernel>*>& ranks) {
  TimeNs first = INT64_MAX, last = INT64_MIN;
  for (const auto* r : ranks)
    if (!r->empty()) first = std::min(first, r->front().start), last = std::max(last, r->back().end);
  return last > first ? static_cast<double>(last - first) : 0;
}

void find_straggler(const Trace& trace, RanksAnalysis& out, double span_ns) {
  const auto it = std::max_element(out.ranks.begin(), out.ranks.end(),
                                   [](const RankSummary& a, const RankSummary& b) { return a.late_ns < b.late_ns; });
  if (it == out.ranks.end() || out.matched == 0 || 2 * it->last_count <= out.matched) return;
  Straggler s;
  s.pid = it->pid;
  s.rank = it->rank;
  s.last_count = it->last_count;
  s.matched = out.matched;
  s.late_ns = it->late_ns;
  const std::vector<TimeNs> starts = step_starts(trace, it->pid, s.step_range);
  s.steps = starts.size();
  if (s.steps >= 2) {
    // Per iteration (a step's start to the next one's; the last runs to the last collective): the
    // rises of its lateness in it (Straggler::step_lateness), and its length.
    std::vector<TimeNs> late(starts.size(), 0), previous(starts.size(), 0);
    for (const LateArrival& a : it->arrivals) {
      const auto after = std::upper_bound(starts.begin(), starts.end(), a.start);
      if (after == starts.begin()) continue;
      const size_t step = static_cast<size_t>(after - starts.begin()) - 1;
      if (a.late_ns > previous[step]) late[step] = add_saturated(late[step], a.late_ns - previous[step]);
      previous[step] = a.late_ns;
    }
    std::vector<double> late_ns, length;
    for (size_t i = 0; i < starts.size(); ++i) {
      s.step_lateness.push_back({starts[i], late[i]});
      late_ns.push_back(static_cast<double>(late[i]));
    }
    for (size_t i = 0; i + 1 < starts.size(); ++i) length.push_back(static_cast<double>(starts[i + 1] - starts[i]));
    s.late_per_step_ns = median(std::move(late_ns));
    s.step_ns = median(std::move(length));
    s.share_of_step = s.step_ns > 0 ? s.late_per_step_ns / s.step_ns : 0;
  } else {
    s.steps = 0;
    s.share_of_step = span_ns > 0 ? static_cast<double>(s.late_ns) / span_ns : 0;
  }
  if (s.share_of_step < kStragglerMinShare) return;
  out.straggler = s;
}

}  // namespace

const char* to_string(Collective c) {
  switch (c) {
    case Collective::None: return "";
    case Collective::AllReduce: return "all-reduce";
    case Collective::AllGather: return "all-gather";
    case Collective::ReduceScatter: return "reduce-scatter";
    case Collective::Broadcast: return "broadcast";
    case Collective::Reduce: return "reduce";
    case Collective::SendRecv: return "send/recv";
    case Collective::AllToAll: return "all-to-all";
    case Collective::Other: return "other NCCL";
  }
  return "";
}

Collective classify_collective(std::string_view name) {
  if (!is_nccl_kernel(name)) return Collective::None;
  const std::string_view op = name.substr(name.find('_') + 1);
  // Longest names first: "ReduceScatter" before "Reduce", "AllReduce" before both.
  static constexpr std::pair<std::string_view, Collective> kOps[] = {
      {"AllReduce", Collective::AllReduce},
      {"AllGather", Collective::AllGather},
      {"ReduceScatter", Collective::ReduceScatter},
      {"Broadcast", Collective::Broadcast},
      {"Reduce", Collective::Reduce},
      {"SendRecv", Collective::SendRecv},
      {"Send", Collective::SendRecv},
      {"Recv", Collective::SendRecv},
      {"AllToAll", Collective::AllToAll},
  };
  for (const auto& [prefix, kind] : kOps)
    if (op.rfind(prefix, 0) == 0) return kind;
  return Collective::Other;
}

std::vector<CommKernel> communication_kernels(const Trace& trace, uint32_t pid) {
  std::vector<CommKernel> out;
  std::map<StringId, Collective> kinds;  // classify each name once
  for (const Kernel& k : trace.kernels) {
    if (k.pid != pid) continue;
    auto [it, fresh] = kinds.try_emplace(k.name);
    if (fresh) it->second = classify_collective(trace.strings.get(k.name));
    if (it->second != Collective::None) out.push_back({k.start, k.end, it->second});
  }
  sort_by_start(out);
  return out;
}

std::vector<std::vector<const CommKernel*>> match_collectives(const std::vector<const std::vector<CommKernel>*>& ranks,
                                                              std::string& note) {
  std::vector<std::vector<const CommKernel*>> ops;
  if (ranks.empty()) return ops;
  const std::vector<CommKernel>& front = *ranks.front();
  const bool same = std::all_of(ranks.begin(), ranks.end(), [&](const std::vector<CommKernel>* r) {
    if (r->size() != front.size()) return false;
    for (size_t i = 0; i < front.size(); ++i)
      if ((*r)[i].kind != front[i].kind) return false;
    return true;
  });
  if (same) {
    for (size_t i = 0; i < front.size(); ++i) {
      ops.emplace_back();
      for (const std::vector<CommKernel>* r : ranks) ops.back().push_back(&(*r)[i]);
    }
    return ops;
  }
  std::map<Collective, std::vector<std::vector<const CommKernel*>>> per_kind;  // kind -> rank -> kernels
  for (size_t r = 0; r < ranks.size(); ++r)
    for (const CommKernel& k : *ranks[r]) {
      auto& lists = per_kind[k.kind];
      lists.resize(ranks.size());
      lists[r].push_back(&k);
    }
  size_t unmatched = 0;
  for (auto& [kind, lists] : per_kind) {
    size_t fewest = SIZE_MAX, most = 0;
    for (const auto& l : lists) fewest = std::min(fewest, l.size()), most = std::max(most, l.size());
    unmatched += most - fewest;
    for (size_t i = 0; i < fewest; ++i) {
      ops.emplace_back();
      for (const auto& l : lists) ops.back().push_back(l[i]);
    }
  }
  note = "the ranks ran different sequences of collectives; matched each kind's instances in order" +
         (unmatched ? ", " + std::to_string(unmatched) + " left unmatched on the ranks with more" : std::string());
  return ops;
}

std::optional<RanksAnalysis> analyze_ranks(const Trace& trace) {
  // A bench capture's processes are repetitions of one program, one after another, not ranks.
  if (trace.runs.size() > 1) return std::nullopt;
  std::map<uint32_t, Participant> by_pid = gather(trace);
  if (by_pid.size() < 2) return std::nullopt;
  std::vector<Participant*> ranks;
  for (auto& [pid, p] : by_pid) ranks.push_back(&p);
  std::sort(ranks.begin(), ranks.end(), [](const Participant* a, const Participant* b) {
    const auto key = [](const Participant* p) { return std::pair{p->summary.rank < 0, p->summary.rank}; };
    return key(a) != key(b) ? key(a) < key(b) : a->summary.pid < b->summary.pid;
  });

  RanksAnalysis out;
  std::vector<Participant*> communicating;
  std::vector<const std::vector<CommKernel>*> lists;
  for (Participant* p : ranks)
    if (!p->comm.empty()) communicating.push_back(p), lists.push_back(&p->comm);
  if (communicating.size() >= 2) {
    const auto ops = match_collectives(lists, out.matching_note);
    out.matched = ops.size();
    out.sizes = ranks_detail::size_collectives(ops, communicating.size(), out.unsized_operations);
    for (const CollectiveSize& size : out.sizes) out.sized_operations += size.operations;
    for (const auto& op : ops) {
      size_t last = 0;
      TimeNs latest = op[0]->start, next = INT64_MIN;
      for (size_t r = 1; r < op.size(); ++r) {
        if (op[r]->start > latest) next = latest, latest = op[r]->start, last = r;
        else next = std::max(next, op[r]->start);
      }
      for (size_t r = 0; r < op.size(); ++r) {
        RankSummary& summary = communicating[r]->summary;
        summary.waited_ns = add_saturated(summary.waited_ns, latest - op[r]->start);
        summary.arrivals.push_back({op[r]->start, r == last ? latest - next : 0});
      }
      RankSummary& straggler = communicating[last]->summary;
      straggler.last_count += 1;
      straggler.late_ns = add_saturated(straggler.late_ns, latest - next);
      straggler.late_arrivals.push_back({latest, latest - next});
    }
  }
  std::map<Collective, std::vector<double>> durations;
  for (const Participant* p : ranks) {
    out.ranks.push_back(p->summary);
    for (const CommKernel& k : p->comm) durations[k.kind].push_back(static_cast<double>(k.end - k.start));
  }
  for (auto& [kind, list] : durations) {
    CollectiveGroup g;
    g.kind = kind;
    g.kernels = list.size();
    for (double d : list) g.total_ns = add_saturated(g.total_ns, static_cast<TimeNs>(d));
    g.median_ns = median(list);
    out.collectives.push_back(g);
  }
  std::stable_sort(out.collectives.begin(), out.collectives.end(),
                   [](const CollectiveGroup& a, const CollectiveGroup& b) { return a.total_ns > b.total_ns; });
  const RankSummary& first = out.ranks.front();  // ran kernels, so it has a device
  for (const Device& d : trace.devices)
    if (d.pid == first.pid && d.id == first.devices.front()) {
      out.link = link_peak(d);
      break;
    }
  std::vector<std::vector<CommKernel>*> comm;
  for (Participant* p : communicating) comm.push_back(&p->comm);
  find_straggler(trace, out, communicating_span(comm));
  if (out.straggler) out.straggler->cause = straggler_cause(trace, out);
  return out;
}

}  // namespace gpuscope::analysis

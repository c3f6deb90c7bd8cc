// Rule graph_replay_gaps: a CUDA graph is replayed again and again, and between two replays the
// GPU sits idle because the host has not launched the next one yet (the host syncs, logs or
// loads data between replays). Saving = that GPU-idle host-wait time between replays
// (ReplayGap::host_idle, analysis_graphs.h), the union over the process's graphs: the time
// from the previous replay's end to the next replay's launch call returning, where no GPU work
// of the process ran. A replay's own launch latency (call return to first node) stays.
#include <fmt/format.h>

#include <algorithm>

#include "analysis/rules/rule.h"
#include "gpuscope/analysis_graphs.h"

namespace gpuscope::analysis::rules {
namespace {

constexpr size_t kMinGaps = 2;  // gaps with a host wait: a graph replayed in a loop, not once more
constexpr size_t kGraphsShown = 3;

// One graph's judged gaps.
struct GraphGaps {
  const GraphRow* row = nullptr;
  size_t gaps = 0, waited = 0;  // judged gaps; those with a host wait
  std::vector<double> lengths;  // ns, for the median
  TimeNs host_wait_ns = 0;
};

class GraphReplayGapsRule final : public Rule {
 public:
  std::string id() const override { return "graph_replay_gaps"; }
  std::vector<std::string_view> needs() const override { return {kGapApiCalls, kGapTimeline}; }

  std::optional<Finding> check(const RuleContext& ctx) const override {
    if (!ctx.main) return std::nullopt;
    const GraphSummary summary = summarize_graphs(ctx.trace);
    std::vector<GraphGaps> graphs;
    std::vector<Interval> waits;       // GPU-idle host-wait pieces of all graphs (they may overlap)
    std::vector<EvidenceSpan> covers;  // the judged gaps
    size_t waited = 0;
    for (const GraphRow& row : summary.graphs) {
      if (row.pid != ctx.main->pid) continue;
      GraphGaps g;
      g.row = &row;
      for (const ReplayGap& gap : row.gaps) {
        if (!ctx.judged(gap.start)) continue;
        ++g.gaps;
        g.lengths.push_back(static_cast<double>(gap.end - gap.start));
        covers.push_back({row.pid, gap.start, gap.end});
        if (gap.host_idle.empty()) continue;
        ++g.waited;
        g.host_wait_ns += gap.host_idle_ns();
        waits.insert(waits.end(), gap.host_idle.begin(), gap.host_idle.end());
      }
      waited += g.waited;
      if (g.waited > 0) graphs.push_back(std::move(g));
    }
    if (waited < kMinGaps) return std::nullopt;
    std::vector<EvidenceSpan> spans;
    for (const Interval& w : merge_intervals(waits)) spans.push_back({ctx.main->pid, w.start, w.end});
    const TimeNs saving = union_length(std::move(waits));
    if (!ctx.worth(saving)) return std::nullopt;

    std::sort(graphs.begin(), graphs.end(),
              [](const GraphGaps& a, const GraphGaps& b) { return a.host_wait_ns > b.host_wait_ns; });
    Finding f;
    f.rule = id();
    f.title = "CUDA graph replays wait for the host: the GPU idles between replays";
    f.saving_ns = saving;
    f.estimate =
        "GPU-idle time between consecutive replays of a graph before the next replay's launch call returned (or its "
        "first node started), if the next replay were launched before the previous one ended; a replay's launch "
        "latency stays. An upper bound: gained as far as the host work between replays shrinks (more of the step in "
        "the graph) or runs while a replay does";
    for (size_t i = 0; i < graphs.size() && i < kGraphsShown; ++i) {
      const GraphGaps& g = graphs[i];
      f.evidence.push_back(fmt::format(
          "graph {}: {} replays; over the {} gaps between them judged, median gap {}, host wait {} in {} of them "
          "(launch call {})",
          g.row->graph_id, g.row->launches, g.gaps, ms(saturated_ns(median(g.lengths))), ms(g.host_wait_ns), g.waited,
          g.row->launch_call.empty() ? "not recorded" : g.row->launch_call));
    }
    if (graphs.size() > kGraphsShown)
      f.evidence.push_back(
          fmt::format("{} more graphs wait for the host between replays", graphs.size() - kGraphsShown));
    const EvidenceSpan longest = *std::max_element(spans.begin(), spans.end(), [](const auto& a, const auto& b) {
      return a.end - a.start < b.end - b.start;
    });
    const std::string range = ctx.nvtx_at(longest.start);
    f.evidence.push_back(fmt::format("longest host wait: {} at {}{}", ms(longest.end - longest.start),
                                     ctx.at(longest.start), range.empty() ? "" : ", NVTX range '" + range + "'"));
    f.spans = evidence_spans(std::move(spans));
    f.covers = std::move(covers);
    f.explains = {"gpu_idle_gaps"};
    // A launch-bound step graphed whole saves its GPU-idle time too, these waits included.
    f.shares_time_with = {"launch_bound"};
    const std::string torch =
        "In PyTorch: capture more of the step in the graph (torch.compile(mode=\"reduce-overhead\") over the whole "
        "step without graph breaks, the optimizer step inside the compiled region); move host work out from between "
        "replays (.item(), printing or logging tensors, data loading: prefetch on a DataLoader with workers and "
        "pinned memory, log every N steps); launch the next replay before waiting on the previous one's results.";
    const std::string cuda =
        "In CUDA C++: capture the whole iteration in one graph, or launch several graphs back to back on a stream "
        "without a host synchronization between them (cudaGraphLaunch is asynchronous; wait with events only where "
        "the host needs results).";
    f.advice = ctx.torch->pytorch() ? torch + " " + cuda : cuda + " " + torch;
    return f;
  }
};

}  // namespace

std::unique_ptr<Rule> make_graph_replay_gaps_rule() { return std::make_unique<GraphReplayGapsRule>(); }

}  // namespace gpuscope::analysis::rules

// graph_replay_gaps on synthesized loops of CUDA graph replays: replays launched ahead run back
// to back; a host that launches each replay only after the previous one ended (a sync, then
// host work) leaves the GPU idle between them, unless other GPU work of the process fills it.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "find_finding.h"
#include "gpuscope/analysis_graphs.h"
#include "gpuscope/analysis_rules.h"
#include "time_units.h"
#include "trace_builder.h"

// A namespace of its own: the unity build batches this file with other rule tests' constants.
namespace gpuscope::analysis::graph_replay_gaps_test {
namespace {

using testing::find;
using testing::kMs;
using testing::kUs;
using testing::TraceBuilder;
using testing::whole_run_rules;

constexpr TimeNs kT0 = 1 * kMs;
constexpr TimeNs kCall = 3 * kUs;     // cudaGraphLaunch on the host
constexpr TimeNs kLatency = 8 * kUs;  // call start -> first node start
constexpr TimeNs kNode = 400 * kUs;   // each of a replay's two kernels
constexpr int kReplays = 20;

// One replay of `graph` launched at `call_at`, its first node starting no earlier than
// `gpu_free` (the stream's previous work); returns its last node's end.
TimeNs replay(TraceBuilder& b, uint32_t graph, TimeNs call_at, TimeNs gpu_free) {
  const uint32_t corr = b.api("cudaGraphLaunch", call_at, call_at + kCall);
  const TimeNs first = std::max(call_at + kLatency, gpu_free);
  b.kernel("gemm", first, first + kNode, corr);
  b.trace().kernels.back().graph_id = graph;
  b.kernel("relu", first + kNode, first + 2 * kNode, corr);
  b.trace().kernels.back().graph_id = graph;
  return first + 2 * kNode;
}

// kReplays replays of graph 1 launched 20 µs apart: the host runs far ahead, each replay queues
// 1 µs after the previous one on the stream.
TraceBuilder back_to_back() {
  TraceBuilder b;
  TimeNs gpu_free = 0;
  for (int i = 0; i < kReplays; ++i) gpu_free = replay(b, 1, kT0 + i * 20 * kUs, gpu_free + 1 * kUs);
  b.api("cudaStreamSynchronize", kT0 + kReplays * 20 * kUs, gpu_free + 5 * kUs);
  return b.run(1, gpu_free + 100 * kUs);
}

// Graphs `graphs` replayed in turn; before each replay after the first, the host syncs on the
// previous one and then works `host_ns`. `fill(b, from, to)` may add other GPU work to each
// host window [previous replay end, next call end). Returns the builder.
template <class Fill>
TraceBuilder host_gaps(TimeNs host_ns, const std::vector<uint32_t>& graphs, Fill fill) {
  TraceBuilder b;
  TimeNs ended = replay(b, graphs[0], kT0, 0);
  for (int i = 1; i < kReplays; ++i) {
    b.api("cudaStreamSynchronize", ended - 300 * kUs, ended + 5 * kUs);
    const TimeNs call_at = ended + host_ns;
    fill(b, ended, call_at + kCall);
    ended = replay(b, graphs[i % graphs.size()], call_at, 0);
  }
  return b.run(1, ended + 100 * kUs);
}

TraceBuilder host_gaps(TimeNs host_ns, const std::vector<uint32_t>& graphs = {1}) {
  return host_gaps(host_ns, graphs, [](TraceBuilder&, TimeNs, TimeNs) {});
}

const GraphRow& graph_row(const GraphSummary& s, uint32_t graph) {
  for (const GraphRow& r : s.graphs)
    if (r.graph_id == graph) return r;
  throw std::runtime_error("no graph " + std::to_string(graph));
}

TEST(RuleGraphReplayGaps, ReplaysLaunchedAheadRunBackToBack) {
  TraceBuilder b = back_to_back();
  const GraphSummary s = summarize_graphs(b.trace());
  const GraphRow& g = graph_row(s, 1);
  EXPECT_EQ(g.gaps.size(), kReplays - 1u);
  EXPECT_EQ(*g.median_gap_ns, 1 * kUs);  // the stream's own gap between replays
  EXPECT_EQ(g.gap_ns, (kReplays - 1) * kUs);
  EXPECT_EQ(g.gap_host_ns, 0);  // every call returned long before the previous replay ended
  EXPECT_EQ(g.host_wait_ns, 0);
  EXPECT_EQ(g.gap_idle_ns, g.gap_ns);
  EXPECT_EQ(*g.min_span_ns, 2 * kNode);
  EXPECT_EQ(*g.max_span_ns, 2 * kNode);
  EXPECT_FALSE(find(whole_run_rules(b.trace()), "graph_replay_gaps"));
}

TEST(RuleGraphReplayGaps, HostWorkBetweenReplaysIsTheSaving) {
  constexpr TimeNs kHost = 300 * kUs;
  TraceBuilder b = host_gaps(kHost);
  const GraphSummary s = summarize_graphs(b.trace());
  const GraphRow& g = graph_row(s, 1);
  EXPECT_EQ(*g.median_gap_ns, kHost + kLatency);
  EXPECT_EQ(g.gap_host_ns, (kReplays - 1) * (kHost + kCall));  // up to the call's return
  EXPECT_EQ(g.host_wait_ns, g.gap_host_ns);
  EXPECT_EQ(g.gap_idle_ns, g.gap_ns);

  const auto f = find(whole_run_rules(b.trace()), "graph_replay_gaps");
  ASSERT_TRUE(f);
  // The planted idle time before each launch call returned; the 5 µs of launch latency after it stay.
  EXPECT_EQ(*f->saving_ns, (kReplays - 1) * (kHost + kCall));
  ASSERT_GE(f->evidence.size(), 2u);
  EXPECT_NE(f->evidence[0].find("graph 1: 20 replays; over the 19 gaps"), std::string::npos) << f->evidence[0];
  EXPECT_NE(f->evidence[0].find("median gap 0.31 ms, host wait 5.76 ms in 19 of them"), std::string::npos)
      << f->evidence[0];
  EXPECT_NE(f->advice.find("reduce-overhead"), std::string::npos);
  EXPECT_NE(f->advice.find("cudaGraphLaunch"), std::string::npos);
  EXPECT_EQ(f->spans.size(), kReplays - 1u);
}

TEST(RuleGraphReplayGaps, ShortHostGapsAreNotWorthIt) {
  // Each replay launched as soon as the previous one ended: 19 x 3 µs of launch call = 57 µs of
  // host wait in a 16.9 ms run, under 0.5 % of it (85 µs).
  TraceBuilder b = host_gaps(0);
  EXPECT_EQ(graph_row(summarize_graphs(b.trace()), 1).host_wait_ns, (kReplays - 1) * kCall);
  EXPECT_FALSE(find(whole_run_rules(b.trace()), "graph_replay_gaps"));
}

TEST(RuleGraphReplayGaps, OtherGpuWorkInTheGapsIsNoSaving) {
  constexpr TimeNs kHost = 300 * kUs;
  // Plain kernels cover every host window whole: the GPU was not idle.
  TraceBuilder filled = host_gaps(kHost, {1}, [](TraceBuilder& b, TimeNs from, TimeNs to) {
    b.kernel("optimizer", from, to, b.api("cudaLaunchKernel", from - 50 * kUs, from - 45 * kUs));
  });
  const GraphSummary s = summarize_graphs(filled.trace());
  const GraphRow& g = graph_row(s, 1);
  EXPECT_EQ(g.gap_host_ns, (kReplays - 1) * (kHost + kCall));  // the host was still late...
  EXPECT_EQ(g.host_wait_ns, 0);                                // ...but the GPU had work
  EXPECT_EQ(g.gap_idle_ns, (kReplays - 1) * (kLatency - kCall));
  EXPECT_FALSE(find(whole_run_rules(filled.trace()), "graph_replay_gaps"));

  // Kernels over the first half of each window: the other half is the saving.
  TraceBuilder half = host_gaps(kHost, {1}, [](TraceBuilder& b, TimeNs from, TimeNs to) {
    b.kernel("optimizer", from, from + (to - from) / 2, b.api("cudaLaunchKernel", from - 50 * kUs, from - 45 * kUs));
  });
  const auto f = find(whole_run_rules(half.trace()), "graph_replay_gaps");
  ASSERT_TRUE(f);
  EXPECT_EQ(*f->saving_ns, (kReplays - 1) * (kHost + kCall) / 2);
}

TEST(RuleGraphReplayGaps, GraphsReplayedInTurnCountEachWaitOnce) {
  constexpr TimeNs kHost = 200 * kUs;
  TraceBuilder b = host_gaps(kHost, {1, 2});
  const GraphSummary s = summarize_graphs(b.trace());
  // Graph 1's gaps hold a replay of graph 2 and two host waits, and the other way round.
  const GraphRow& g1 = graph_row(s, 1);
  EXPECT_EQ(g1.gaps.size(), 9u);
  EXPECT_EQ(g1.host_wait_ns, 9 * 2 * (kHost + kCall));
  EXPECT_EQ(g1.gap_idle_ns, 9 * 2 * (kHost + kLatency));
  const auto f = find(whole_run_rules(b.trace()), "graph_replay_gaps");
  ASSERT_TRUE(f);
  EXPECT_EQ(*f->saving_ns, (kReplays - 1) * (kHost + kCall));  // not the graphs' sum
}

TEST(RuleGraphReplayGaps, ReplaysWithoutLaunchCallsHaveNoHostPart) {
  TraceBuilder b = host_gaps(300 * kUs);
  std::erase_if(b.trace().api_calls,
                [&](const ApiCall& c) { return b.trace().strings.get(c.name) == "cudaGraphLaunch"; });
  const GraphSummary s = summarize_graphs(b.trace());
  const GraphRow& g = graph_row(s, 1);
  EXPECT_EQ(g.gaps_without_call, kReplays - 1u);
  EXPECT_EQ(g.gap_host_ns, 0);
  EXPECT_GT(g.gap_idle_ns, 0);
  EXPECT_FALSE(find(whole_run_rules(b.trace()), "graph_replay_gaps"));
}

}  // namespace
}  // namespace gpuscope::analysis::graph_replay_gaps_test

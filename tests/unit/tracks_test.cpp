// The track layout (src/export/tracks.h): groups, rows, nesting, flows, counters, untimed
// records and bench runs, on small synthesized traces and on the real captures.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "export_test_util.h"
#include "gpuscope/store.h"
#include "gpuscope/tracks.h"
#include "trace_builder.h"

namespace gpuscope {
namespace {

using testing::TraceBuilder;
using tracks::GroupKind;
using tracks::Layout;
using tracks::SliceKind;
using tracks::TrackKind;

const tracks::Track& only_track(const Layout& l, TrackKind kind) {
  const auto it = std::find_if(l.tracks.begin(), l.tracks.end(),
                               [&](const tracks::Track& t) { return t.kind == kind; });
  if (it == l.tracks.end()) throw std::runtime_error("no such track");
  return *it;
}

TEST(Tracks, ProcessThenDeviceGroupsWithNamedTracks) {
  TraceBuilder b;
  b.run(1000, 90000);
  const uint32_t launch = b.api("cudaLaunchKernel", 2000, 2500);
  b.kernel("gemm", 3000, 8000, launch);
  const Layout l = tracks::layout_tracks(b.trace());
  ASSERT_EQ(l.groups.size(), 2u);
  EXPECT_EQ(l.groups[0].kind, GroupKind::Process);
  EXPECT_EQ(l.groups[0].name, "process 1: app");
  EXPECT_EQ(l.groups[1].kind, GroupKind::Device);
  EXPECT_EQ(l.groups[1].name, "GPU 0: NVIDIA H200 (process 1)");
  EXPECT_EQ(only_track(l, TrackKind::Thread).name, "thread 1");
  EXPECT_EQ(only_track(l, TrackKind::Stream).name, "stream 7");
  EXPECT_EQ(l.origin, 1000);  // the run's start
  EXPECT_EQ(l.end, 90000);
  EXPECT_EQ(l.slices, 2u);
  EXPECT_EQ(l.names[only_track(l, TrackKind::Stream).slices[0].name], "gemm");
}

// A stream's track says how the capture saw it created; a stream without a row (created before
// the capture, or another process's) keeps its plain name.
TEST(Tracks, StreamTracksSayHowTheStreamWasCreated) {
  TraceBuilder b;
  b.run(1000, 90000);
  b.kernel("legacy", 2000, 3000, 1, 7).kernel("nccl", 2000, 3000, 2, 13).kernel("copy", 2000, 3000, 3, 14);
  b.kernel("old", 2000, 3000, 4, 15);
  Trace t = b.trace();
  t.streams.push_back({1, 1, 7, StreamFlag::Legacy, 0, 0});
  t.streams.push_back({1, 1, 13, StreamFlag::NonBlocking, -3, 20});
  t.streams.push_back({1, 1, 14, StreamFlag::Blocking, 0, 21});
  t.streams.push_back({2, 1, 15, StreamFlag::NonBlocking, -1, 22});  // another process's stream 15
  std::vector<std::string> names;
  for (const tracks::Track& track : tracks::layout_tracks(t).tracks)
    if (track.kind == TrackKind::Stream) names.push_back(track.name);
  EXPECT_EQ(names,
            (std::vector<std::string>{"stream 7 (legacy default stream)", "stream 13 (non-blocking, priority -3)",
                                      "stream 14 (blocking)", "stream 15"}));
}

TEST(Tracks, NestedSlicesTakeRowsByDepthAndNest) {
  TraceBuilder b;
  b.range("step", 1000, 9000);
  b.range("forward", 1500, 5000, 1);
  b.api("cudaLaunchKernel", 2000, 2100);
  b.api("cudaMemcpy", 6000, 7000);
  const Layout l = tracks::layout_tracks(b.trace());
  const tracks::Track& t = only_track(l, TrackKind::Thread);
  ASSERT_EQ(t.slices.size(), 4u);
  EXPECT_EQ(t.rows, 3u);
  EXPECT_TRUE(t.nests);
  std::vector<uint32_t> rows;
  for (const auto& s : t.slices) rows.push_back(s.row);
  EXPECT_EQ(rows, (std::vector<uint32_t>{0, 1, 2, 1}));  // step, forward, launch (in forward), memcpy (in step)
}

TEST(Tracks, OverlappingKernelsOnOneStreamDoNotNest) {
  TraceBuilder b;
  b.kernel("a", 1000, 5000, 1).kernel("b", 4000, 9000, 2);  // overlap without nesting (PDL)
  const Layout l = tracks::layout_tracks(b.trace());
  const tracks::Track& t = only_track(l, TrackKind::Stream);
  EXPECT_EQ(t.rows, 2u);
  EXPECT_FALSE(t.nests);
}

TEST(Tracks, FlowsJoinLaunchCallsToTheirWork) {
  TraceBuilder b;
  const uint32_t k = b.api("cudaLaunchKernel", 1000, 1200);
  const uint32_t c = b.api("cudaMemcpyAsync", 1300, 1400);
  b.api("cudaGetLastError", 1500, 1510);
  b.kernel("k", 2000, 3000, k).copy(CopyKind::HtoD, MemoryKind::Pinned, 4096, 3100, 3300, c);
  const Layout l = tracks::layout_tracks(b.trace());
  ASSERT_EQ(l.flows.size(), 2u);
  for (const tracks::Flow& f : l.flows) {
    const auto& from = l.tracks[f.from.track].slices[f.from.slice];
    const auto& to = l.tracks[f.to.track].slices[f.to.slice];
    EXPECT_EQ(b.trace().api_calls[from.source].correlation_id, f.correlation_id);
    EXPECT_LT(from.start, to.start);
  }
  EXPECT_EQ(l.names[only_track(l, TrackKind::Stream).slices[1].name], "memcpy HtoD");
}

TEST(Tracks, RecordsWithoutTimesAreCountedNotPlaced) {
  TraceBuilder b;
  b.api("cudaMalloc", 0, 500);    // no start
  b.api("cudaFree", 3000, 2000);  // ends before it starts
  b.kernel("k", 1000, 2000, 0);
  const Layout l = tracks::layout_tracks(b.trace());
  EXPECT_EQ(l.untimed, 2u);
  EXPECT_EQ(l.slices, 1u);
}

TEST(Tracks, MemoryInUseIsARunningSumPerDevice) {
  TraceBuilder b;
  b.kernel("k", 1000, 2000, 0);
  for (auto [op, bytes, at] :
       {std::tuple{MemoryOp::Alloc, 100u, 1100}, {MemoryOp::Alloc, 50u, 1200}, {MemoryOp::Free, 100u, 1300}}) {
    MemoryEvent e;
    e.pid = 1;
    e.op = op;
    e.bytes = bytes;
    e.timestamp = at;
    b.trace().memory_events.push_back(e);
  }
  const Layout l = tracks::layout_tracks(b.trace());
  ASSERT_EQ(l.counters.size(), 1u);
  const tracks::Counter& c = l.counters[0];
  EXPECT_EQ(c.unit, "bytes");
  ASSERT_EQ(c.points.size(), 3u);
  EXPECT_EQ(c.points[0].value, 100);
  EXPECT_EQ(c.points[1].value, 150);
  EXPECT_EQ(c.points[2].value, 50);
  EXPECT_EQ(l.groups[c.group].kind, GroupKind::Device);
}

TEST(Tracks, BenchRunsAreGroupsOrFilteredByRun) {
  TraceBuilder b;
  Trace& t = b.trace();
  t.processes.push_back(t.processes[0]);
  t.processes[0].run_id = 1;
  t.processes[1].run_id = 2;
  t.runs = {{1, 1000, 5000, 0, 0}, {2, 6000, 9000, 0, 0}};
  b.kernel("k", 2000, 3000, 0).kernel("k", 7000, 8000, 0);
  t.kernels[0].run_id = 1;
  t.kernels[1].run_id = 2;
  const Layout all = tracks::layout_tracks(t);
  EXPECT_EQ(all.groups.size(), 4u);  // a process and its GPU, per run
  EXPECT_EQ(all.groups[0].name, "run 1 · process 1: app");
  const Layout second = tracks::layout_tracks(t, {2});
  EXPECT_EQ(second.slices, 1u);
  EXPECT_EQ(second.origin, 6000);
  EXPECT_EQ(second.end, 9000);
}

// A distributed job's ranks side by side in rank order, named with their rank, whatever order
// their processes first appear in; a process without a rank comes after them.
TEST(Tracks, RanksAreGroupedSideBySideInRankOrder) {
  TraceBuilder b;
  b.run(1000, 90000);
  b.kernel("gemm", 3000, 8000, b.api("cudaLaunchKernel", 2000, 2500));
  Trace t = b.trace();
  t.processes[0].rank = 1;
  t.processes[0].world_size = 2;
  // Two more processes, copies of the first: rank 0 (pid 2, first seen later) and a helper with
  // no rank (pid 3, first seen earliest).
  for (uint32_t pid : {2u, 3u}) {
    Process p = t.processes[0];
    p.pid = pid;
    p.rank = pid == 2 ? 0 : -1;
    t.processes.push_back(p);
    Device d = t.devices[0];
    d.pid = pid;
    d.id = pid == 2 ? 0 : 1;
    t.devices.push_back(d);
    ApiCall call = t.api_calls[0];
    call.pid = pid;
    call.start -= pid == 3 ? 1000 : -1000;
    call.end = call.start + 500;
    t.api_calls.push_back(call);
    Kernel k = t.kernels[0];
    k.pid = pid;
    k.device = d.id;
    t.kernels.push_back(k);
  }
  t.devices[0].id = 1;
  t.kernels[0].device = 1;
  std::sort(t.api_calls.begin(), t.api_calls.end(),
            [](const ApiCall& a, const ApiCall& c) { return a.start < c.start; });
  const Layout l = tracks::layout_tracks(t);
  std::vector<std::string> names;
  for (const tracks::Group& g : l.groups) names.push_back(g.name);
  EXPECT_EQ(names, (std::vector<std::string>{"rank 0 · process 2: app", "GPU 0: NVIDIA H200 (rank 0, process 2)",
                                             "rank 1 · process 1: app", "GPU 1: NVIDIA H200 (rank 1, process 1)",
                                             "process 3: app", "GPU 1: NVIDIA H200 (process 3)"}));
  EXPECT_EQ(l.groups[0].rank, 0);
  EXPECT_EQ(l.groups[4].rank, -1);
}

// A replay is a span over its nodes on each stream they ran on, one row above them; the
// launch call's flows go to the nodes, not to the span.
TEST(Tracks, GraphReplaysSpanTheirNodesOnEachStream) {
  const Trace trace = testing::graph_replays();
  const TimeNs t0 = trace.run.start;
  const Layout l = tracks::layout_tracks(trace);
  ASSERT_EQ(l.graph_replays.size(), 3u);
  const tracks::GraphReplay& first = l.graph_replays[0];
  EXPECT_EQ(std::tuple(first.graph_id, first.replay, first.replays, first.nodes), std::tuple(3u, 1u, 2u, 3u));
  EXPECT_EQ(std::pair(first.start - t0, first.end - t0), std::pair(TimeNs{1000}, TimeNs{3000}));
  EXPECT_EQ(first.correlation_id, trace.api_calls[0].correlation_id);
  EXPECT_EQ(std::tuple(l.graph_replays[1].graph_id, l.graph_replays[1].replay), std::tuple(3u, 2u));
  EXPECT_EQ(std::tuple(l.graph_replays[2].graph_id, l.graph_replays[2].replay, l.graph_replays[2].replays,
                       l.graph_replays[2].nodes),
            std::tuple(4u, 1u, 1u, 1u));
  std::map<uint32_t, std::vector<std::tuple<std::string, TimeNs, uint32_t>>> rows;  // stream -> (name, start, row)
  for (const tracks::Track& t : l.tracks) {
    if (t.kind != TrackKind::Stream) continue;
    EXPECT_TRUE(t.nests) << t.name;
    EXPECT_EQ(t.rows, 2u) << t.name;
    for (const tracks::Slice& s : t.slices) {
      rows[t.stream].emplace_back(l.names[s.name], s.start - t0, s.row);
      if (s.kind == SliceKind::GraphReplay) {
        EXPECT_EQ(tracks::correlation_of(trace, l, s), l.graph_replays[s.source].correlation_id);
        EXPECT_STREQ(tracks::to_string(s.kind), "cuda_graph");
      }
    }
  }
  using Row = std::tuple<std::string, TimeNs, uint32_t>;
  EXPECT_EQ(rows[7], (std::vector<Row>{{"graph 3", 1000, 0},
                                       {"a", 1000, 1},
                                       {"b", 2100, 1},
                                       {"plain", 6000, 0},
                                       {"graph 3", 11000, 0},
                                       {"a", 11000, 1},
                                       {"b", 12100, 1},
                                       {"graph 4", 31000, 0},  // first though its one kernel has its times
                                       {"c", 31000, 1}}));
  EXPECT_EQ(rows[9],
            (std::vector<Row>{
                {"graph 3", 1200, 0}, {"memcpy DtoD", 1200, 1}, {"graph 3", 11200, 0}, {"memcpy DtoD", 11200, 1}}));
  EXPECT_EQ(l.flows.size(), 8u);  // 6 nodes, the plain kernel, graph 4's kernel
  for (const tracks::Flow& f : l.flows) EXPECT_NE(l.tracks[f.to.track].slices[f.to.slice].kind, SliceKind::GraphReplay);
  EXPECT_EQ(l.untimed, 1u);
}

TEST(Tracks, RealCapturesPlaceEveryTimedRecord) {
  for (const char* name : {"bsr_spmm_baseline", "spawn", "crash_segv", "bsr_spmm_metrics"}) {
    const Trace t = read_trace(std::string(GPUSCOPE_TEST_DATA_DIR) + "/" + name + ".gpuscope");
    const Layout l = tracks::layout_tracks(t);
    size_t kernels = 0, api = 0;
    for (const auto& track : l.tracks)
      for (const auto& s : track.slices) {
        kernels += s.kind == SliceKind::Kernel;
        api += s.kind == SliceKind::RuntimeApi || s.kind == SliceKind::DriverApi;
      }
    EXPECT_EQ(kernels, size_t(std::count_if(t.kernels.begin(), t.kernels.end(),
                                            [](const Kernel& k) { return k.start > 0 && k.end >= k.start; })))
        << name;
    EXPECT_EQ(api, size_t(std::count_if(t.api_calls.begin(), t.api_calls.end(),
                                        [](const ApiCall& c) { return c.start > 0 && c.end >= c.start; })))
        << name;
    for (const auto& f : l.flows) EXPECT_EQ(l.tracks[f.to.track].kind, TrackKind::Stream) << name;
  }
}

}  // namespace
}  // namespace gpuscope

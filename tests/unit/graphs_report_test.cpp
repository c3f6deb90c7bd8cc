// The "CUDA graphs" section: one row per graph with its launches, per-launch GPU and host times,
// and the kernel time inside and outside graphs; absent without graph work.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "gpuscope/report.h"
#include "trace_builder.h"

namespace gpuscope {
namespace {

using nlohmann::json;
using testing::TraceBuilder;

constexpr TimeNs kT0 = 1'000'000;

// One node of a launch, its times from the launch call's start.
struct Node {
  std::string kernel;  // empty: a copy
  TimeNs start = 0, end = 0;
};

// One launch of `graph`: its launch call `call_ns` long at `at`, then its nodes. Without a call,
// the nodes keep a correlation id that no API call in the trace has. Returns the correlation id.
uint32_t launch(TraceBuilder& b, uint32_t graph, TimeNs at, TimeNs call_ns, const std::vector<Node>& nodes,
                const std::string& call = "cudaGraphLaunch", bool recorded = true) {
  const uint32_t corr = b.api(call, at, at + call_ns);
  if (!recorded) b.trace().api_calls.pop_back();
  uint64_t node_id = 1;
  for (const Node& n : nodes) {
    if (n.kernel.empty()) {
      b.copy(CopyKind::DtoD, MemoryKind::Device, 4096, at + n.start, at + n.end, corr);
      b.trace().memcpys.back().graph_id = graph;
    } else {
      b.kernel(n.kernel, at + n.start, at + n.end, corr);
      b.trace().kernels.back().graph_id = graph;
      b.trace().kernels.back().graph_node_id = node_id++;
    }
  }
  return corr;
}

json report_json(const Trace& t, size_t top = 15) {
  ReportOptions options;
  options.top = top;
  return json::parse(render_report(t, options, parse_report_format("json")));
}

const json* find_section(const json& r, const std::string& key) {
  for (const json& s : r["sections"])
    if (s["key"] == key) return &s;
  return nullptr;
}

json graphs_table(const json& r) {  // a copy: callers pass a temporary report
  const json* s = find_section(r, "graphs");
  if (!s) throw std::runtime_error("no graphs section");
  return (*s)["tables"][0];
}

const json& row_of(const json& table, uint32_t graph) {
  for (const json& row : table["rows"])
    if (row["graph_id"] == graph) return row;
  throw std::runtime_error("no row for graph " + std::to_string(graph));
}

bool has_note(const json& table, const std::string& text) {
  for (const json& note : table["notes"])
    if (note.get<std::string>().find(text) != std::string::npos) return true;
  return false;
}

// Graph 5: three launches of two kernels and a copy, with a gap between the kernels; its launch
// calls take 3, 4 and 9 µs and its first nodes start 5, 6 and 20 µs after them. Graph 9: two
// launches of one 50 µs kernel through cuGraphLaunch. Nothing overlaps across launches.
TraceBuilder two_graphs() {
  TraceBuilder b;
  const TimeNs call_ns[] = {3'000, 4'000, 9'000};
  const TimeNs first[] = {5'000, 6'000, 20'000};
  for (int i = 0; i < 3; ++i) {
    const TimeNs f = first[i];
    launch(b, 5, kT0 + i * 100'000, call_ns[i],
           {{"gemm", f, f + 10'000}, {"relu", f + 12'000, f + 15'000}, {"", f + 15'000, f + 17'000}});
  }
  for (int i = 0; i < 2; ++i)
    launch(b, 9, kT0 + 1'000'000 + i * 100'000, 2'000, {{"attention", 8'000, 58'000}}, "cuGraphLaunch");
  return b;
}

TEST(GraphsReport, TwoGraphsSeveralLaunches) {
  const json r = report_json(two_graphs().trace());
  const json& t = graphs_table(r);
  ASSERT_EQ(t["rows"].size(), 2u);
  EXPECT_EQ(t["rows"][0]["graph_id"], 9);  // 100 µs of GPU time before graph 5's 45 µs
  EXPECT_EQ(t["rows"][1]["graph_id"], 5);
  EXPECT_FALSE(t["rows"][0].contains("pid"));  // one process: no PID column

  const json& g5 = row_of(t, 5);
  EXPECT_EQ(g5["launches"], 3);
  EXPECT_EQ(g5["nodes"], 3);
  EXPECT_EQ(g5["nodes_min"], 3);
  EXPECT_EQ(g5["nodes_max"], 3);
  EXPECT_EQ(g5["kernels"], 2);
  EXPECT_EQ(g5["busy"], 15'000);  // 10 µs gemm + relu and copy back to back (5 µs); the 2 µs gap is idle
  EXPECT_EQ(g5["span"], 17'000);
  EXPECT_EQ(g5["gpu_time"], 45'000);
  EXPECT_EQ(g5["launch_call"], "cudaGraphLaunch");
  EXPECT_EQ(g5["call_time"], 4'000);
  EXPECT_EQ(g5["latency"], 6'000);

  const json& g9 = row_of(t, 9);
  EXPECT_EQ(g9["launches"], 2);
  EXPECT_EQ(g9["nodes"], 1);
  EXPECT_EQ(g9["kernels"], 1);
  EXPECT_EQ(g9["busy"], 50'000);
  EXPECT_EQ(g9["span"], 50'000);
  EXPECT_EQ(g9["gpu_time"], 100'000);
  EXPECT_EQ(g9["launch_call"], "cuGraphLaunch");
  EXPECT_EQ(g9["call_time"], 2'000);
  EXPECT_EQ(g9["latency"], 8'000);
  EXPECT_NEAR(g9["gpu_percent"].get<double>(), 100'000.0 / 145'000 * 100, 1e-9);
  EXPECT_NEAR(g5["gpu_percent"].get<double>(), 45'000.0 / 145'000 * 100, 1e-9);
  EXPECT_FALSE(has_note(t, "vary"));
  EXPECT_TRUE(has_note(t, "no kernel was launched outside a graph"));

  // The section follows the launch configuration; the text report shows it.
  std::vector<std::string> keys;
  for (const json& s : r["sections"]) keys.push_back(s["key"]);
  const auto at = [&](const std::string& k) { return std::find(keys.begin(), keys.end(), k) - keys.begin(); };
  EXPECT_EQ(at("graphs"), at("launch_configuration") + 1);
  const std::string text = render_report(two_graphs().trace(), {}, parse_report_format("text"));
  EXPECT_NE(text.find("CUDA graphs\n"), std::string::npos) << text;
  EXPECT_NE(text.find("cuGraphLaunch"), std::string::npos);
}

TEST(GraphsReport, GapsBetweenReplays) {
  TraceBuilder b = two_graphs();
  const json& t = graphs_table(report_json(b.trace()));
  // Graph 5: launches end at 22 and 123 µs, the next first nodes start at 106 and 220 µs, their
  // calls return at 104 and 209 µs: gaps of 84 and 97 µs, 82 and 86 µs of them before the call returned.
  const json& g5 = row_of(t, 5);
  EXPECT_EQ(g5["span_min"], 17'000);
  EXPECT_EQ(g5["span_max"], 17'000);
  EXPECT_EQ(g5["gaps"], 2);
  EXPECT_EQ(g5["gap"], 90'500);
  EXPECT_EQ(g5["gap_total"], 181'000);
  EXPECT_EQ(g5["gap_host"], 168'000);
  EXPECT_EQ(g5["gap_idle"], 181'000);  // nothing else runs
  EXPECT_EQ(g5["host_wait"], 168'000);
  // Graph 9: the first launch ends at 1058 µs, the second's call returns at 1102 µs, its node starts at 1108 µs.
  EXPECT_EQ(row_of(t, 9)["gap"], 50'000);
  EXPECT_EQ(row_of(t, 9)["host_wait"], 44'000);
  EXPECT_TRUE(has_note(t, "Host wait, the part of that idle time before the next launch's call returned"));
  EXPECT_FALSE(has_note(t, "Span per launch varies"));
  EXPECT_TRUE(has_note(t, "their Gap idle and Host wait overlap and do not add up"));  // graphs 5 and 9

  // A plain kernel inside graph 9's gap, 1060..1080 µs: the host was as late, the GPU not idle then.
  b.kernel("plain", kT0 + 1'060'000, kT0 + 1'080'000, b.api("cudaLaunchKernel", kT0 + 1'050'000, kT0 + 1'052'000));
  const json after = graphs_table(report_json(b.trace()));
  const json& filled = row_of(after, 9);
  EXPECT_EQ(filled["gap_total"], 50'000);
  EXPECT_EQ(filled["gap_host"], 44'000);
  EXPECT_EQ(filled["gap_idle"], 30'000);
  EXPECT_EQ(filled["host_wait"], 24'000);
}

TEST(GraphsReport, ALaunchFarSlowerThanTheMedianIsNamed) {
  TraceBuilder b;
  launch(b, 3, kT0, 1'000, {{"a", 2'000, 7'000}, {"b", 7'000, 12'000}});
  launch(b, 3, kT0 + 100'000, 1'000, {{"a", 2'000, 7'000}, {"b", 7'000, 12'000}});
  launch(b, 3, kT0 + 200'000, 1'000, {{"a", 2'000, 7'000}, {"b", 22'000, 32'000}});
  launch(b, 4, kT0 + 300'000, 1'000, {{"c", 2'000, 7'000}});  // once: no gap
  const json& t = graphs_table(report_json(b.trace()));
  const json& g = row_of(t, 3);
  EXPECT_EQ(g["span"], 10'000);
  EXPECT_EQ(g["span_min"], 10'000);
  EXPECT_EQ(g["span_max"], 30'000);
  EXPECT_TRUE(has_note(t, "Span per launch varies (graph 3: 10.00 µs to 30.00 µs, median 10.00 µs)"));
  const json& once = row_of(t, 4);
  EXPECT_EQ(once["gaps"], 0);
  EXPECT_TRUE(once["gap"].is_null());
  EXPECT_TRUE(once["gap_idle"].is_null());
  EXPECT_TRUE(once["host_wait"].is_null());
  EXPECT_FALSE(has_note(t, "do not add up"));  // one graph with gaps
}

TEST(GraphsReport, NodesPerLaunchThatVaryAreNamed) {
  TraceBuilder b;
  launch(b, 3, kT0, 1'000, {{"a", 2'000, 3'000}, {"b", 3'000, 4'000}});
  launch(b, 3, kT0 + 100'000, 1'000, {{"a", 2'000, 3'000}, {"b", 3'000, 4'000}, {"c", 4'000, 5'000}});
  launch(b, 3, kT0 + 200'000, 1'000, {{"a", 2'000, 3'000}, {"b", 3'000, 4'000}, {"c", 4'000, 5'000}});
  const json& t = graphs_table(report_json(b.trace()));
  const json& g = row_of(t, 3);
  EXPECT_EQ(g["nodes"], 3);  // median of 2, 3, 3
  EXPECT_EQ(g["nodes_min"], 2);
  EXPECT_EQ(g["nodes_max"], 3);
  EXPECT_EQ(g["kernels"], 3);
  EXPECT_TRUE(has_note(t, "Nodes per launch vary (graph 3: 2 to 3)"));
}

TEST(GraphsReport, MixedProgramSaysTheKernelTimeOutsideGraphs) {
  TraceBuilder b = two_graphs();
  for (int i = 0; i < 3; ++i) {
    const TimeNs at = kT0 + 2'000'000 + i * 50'000;
    b.kernel("plain", at + 4'000, at + 11'000, b.api("cudaLaunchKernel", at, at + 3'000));
  }
  const json& t = graphs_table(report_json(b.trace()));
  ASSERT_EQ(t["rows"].size(), 2u);  // the plain launches are in no graph
  EXPECT_EQ(row_of(t, 5)["launches"], 3);
  // Graph kernels: 3 x (10 + 3) µs + 2 x 50 µs = 139 µs; outside: 3 x 7 µs = 21 µs.
  EXPECT_EQ(t["notes"][0],
            "Kernel time: 139.0 µs in graphs (86.9%), 21.00 µs outside graphs in 3 kernels launched one by one.");
  // The plain kernels' GPU time counts in the run's busy time the shares are of.
  EXPECT_NEAR(row_of(t, 9)["gpu_percent"].get<double>(), 100'000.0 / 166'000 * 100, 1e-9);
}

TEST(GraphsReport, LaunchWithoutItsApiCall) {
  TraceBuilder b;
  launch(b, 4, kT0, 5'000, {{"k", 7'000, 9'000}});
  launch(b, 4, kT0 + 100'000, 5'000, {{"k", 9'000, 11'000}}, "cudaGraphLaunch", false);
  launch(b, 8, kT0 + 200'000, 5'000, {{"m", 7'000, 8'000}}, "cudaGraphLaunch", false);
  const json& t = graphs_table(report_json(b.trace()));
  const json& g4 = row_of(t, 4);
  EXPECT_EQ(g4["launches"], 2);
  EXPECT_EQ(g4["launch_call"], "cudaGraphLaunch");
  EXPECT_EQ(g4["call_time"], 5'000);  // the one recorded call
  EXPECT_EQ(g4["latency"], 7'000);
  EXPECT_EQ(g4["busy"], 2'000);  // GPU times still count both launches
  EXPECT_EQ(g4["gpu_time"], 4'000);
  const json& g8 = row_of(t, 8);
  EXPECT_EQ(g8["launches"], 1);
  EXPECT_EQ(g8["launch_call"], "not recorded");
  EXPECT_TRUE(g8["call_time"].is_null());
  EXPECT_TRUE(g8["latency"].is_null());
  EXPECT_TRUE(has_note(t, "2 launches have no launch call in the trace"));

  // An imported trace whose source records no API calls says so.
  b.trace().source_gaps.push_back({kGapApiCalls, "no CUDA API table"});
  const json& imported = graphs_table(report_json(b.trace()));
  EXPECT_EQ(row_of(imported, 8)["launch_call"], "not in the source");
  EXPECT_TRUE(has_note(imported, "Not in the source: no CUDA API table"));
}

TEST(GraphsReport, NoSectionWithoutGraphWork) {
  TraceBuilder b;
  for (int i = 0; i < 3; ++i) {
    const TimeNs at = kT0 + i * 50'000;
    b.kernel("plain", at + 4'000, at + 11'000, b.api("cudaLaunchKernel", at, at + 3'000));
  }
  b.copy(CopyKind::HtoD, MemoryKind::Pinned, 1 << 20, kT0 + 200'000, kT0 + 210'000, b.api("cudaMemcpy", kT0, kT0));
  const json r = report_json(b.trace());
  EXPECT_EQ(find_section(r, "graphs"), nullptr);
  EXPECT_NE(find_section(r, "kernels"), nullptr);
  EXPECT_EQ(render_report(b.trace(), {}, parse_report_format("text")).find("CUDA graphs"), std::string::npos);

  // One copy node is graph work.
  b.trace().memcpys.back().graph_id = 2;
  const json& t = graphs_table(report_json(b.trace()));
  ASSERT_EQ(t["rows"].size(), 1u);
  EXPECT_EQ(t["rows"][0]["kernels"], 0);
  EXPECT_EQ(t["rows"][0]["gpu_time"], 10'000);
  EXPECT_EQ(t["notes"][0],
            "Kernel time: 0 ns in graphs (0.0%), 21.00 µs outside graphs in 3 kernels launched one by one.");
}

TEST(GraphsReport, RecordsWithoutValidTimesEnterNoTime) {
  TraceBuilder b;
  // Each launch: a timed 10 µs kernel, a kernel that never got times, one that ends before it starts.
  for (int i = 0; i < 2; ++i) {
    const TimeNs at = kT0 + i * 100'000;
    const uint32_t corr = launch(b, 6, at, 2'000, {{"k", 4'000, 14'000}});
    b.kernel("untimed", 0, 0, corr);
    b.trace().kernels.back().graph_id = 6;
    b.kernel("inverted", at + 30'000, at + 20'000, corr);
    b.trace().kernels.back().graph_id = 6;
  }
  // A launch of another graph with no valid time at all, and a valid call.
  const uint32_t corr = b.api("cudaGraphLaunch", kT0 + 500'000, kT0 + 503'000);
  b.kernel("untimed", 0, 0, corr);
  b.trace().kernels.back().graph_id = 7;
  const json& t = graphs_table(report_json(b.trace()));
  const json& g6 = row_of(t, 6);
  EXPECT_EQ(g6["nodes"], 3);  // counted as nodes
  EXPECT_EQ(g6["kernels"], 3);
  EXPECT_EQ(g6["busy"], 10'000);
  EXPECT_EQ(g6["span"], 10'000);
  EXPECT_EQ(g6["gpu_time"], 20'000);
  EXPECT_EQ(g6["latency"], 4'000);
  const json& g7 = row_of(t, 7);
  EXPECT_EQ(g7["launches"], 1);
  EXPECT_EQ(g7["gpu_time"], 0);
  EXPECT_TRUE(g7["busy"].is_null());
  EXPECT_TRUE(g7["span"].is_null());
  EXPECT_TRUE(g7["latency"].is_null());
  EXPECT_EQ(g7["call_time"], 3'000);
  EXPECT_EQ(t["rows"][1]["graph_id"], 7);  // no GPU time: last
  EXPECT_TRUE(has_note(t, "5 graph nodes have no valid times"));
  EXPECT_EQ(t["notes"][0], "Kernel time: 20.00 µs in graphs (100.0%); no kernel was launched outside a graph.");
}

TEST(GraphsReport, SeveralProcessesHaveOneRowPerGraphAndProcess) {
  TraceBuilder b = two_graphs();
  Trace& t = b.trace();
  const size_t kernels = t.kernels.size();
  for (size_t i = 0; i < kernels; ++i) {  // the same graphs and launches again in pid 2, later
    Kernel k = t.kernels[i];
    k.pid = 2, k.start += 10'000'000, k.end += 10'000'000;
    if (k.graph_id == 9) k.end = k.start + 10'000;
    t.kernels.push_back(k);
  }
  for (size_t i = 0, n = t.api_calls.size(); i < n; ++i) {
    ApiCall c = t.api_calls[i];
    c.pid = 2, c.start += 10'000'000, c.end += 10'000'000;
    t.api_calls.push_back(c);
  }
  const json& table = graphs_table(report_json(t));
  ASSERT_EQ(table["rows"].size(), 4u);
  EXPECT_EQ(table["rows"][0]["pid"], 1);  // graph 9, 100 µs
  EXPECT_EQ(table["rows"][1]["pid"], 1);  // graph 5, 45 µs
  EXPECT_EQ(table["rows"][1]["graph_id"], 5);
  EXPECT_EQ(table["rows"][2]["pid"], 2);  // graph 5, 39 µs: its copies stayed in pid 1
  EXPECT_EQ(table["rows"][2]["graph_id"], 5);
  EXPECT_EQ(table["rows"][2]["nodes"], 2);
  EXPECT_EQ(table["rows"][3]["pid"], 2);  // graph 9, 20 µs
  EXPECT_EQ(table["rows"][3]["graph_id"], 9);
  EXPECT_EQ(table["rows"][3]["busy"], 10'000);
  EXPECT_EQ(table["rows"][3]["launch_call"], "cuGraphLaunch");
}

}  // namespace
}  // namespace gpuscope

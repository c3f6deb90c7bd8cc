// The Chrome (Kineto) JSON export: parsed back with nlohmann and checked against the trace.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "common/utf8.h"
#include "export/lanes.h"
#include "export/text.h"
#include "export/writers.h"
#include "export_test_util.h"
#include "gpuscope/runs.h"

namespace gpuscope {
namespace {

using Json = nlohmann::json;

Json export_chrome(const Trace& trace, const tracks::LayoutOptions& options = {}) {
  const tracks::Layout layout = tracks::layout_tracks(trace, options);
  std::ostringstream out;
  exporting::write_chrome_trace(trace, layout, out);
  return Json::parse(out.str());  // throws (fails the test) on invalid JSON
}

// ts/dur as written ("12.345" µs) back to exact ns.
int64_t ns(const Json& v) { return std::llround(v.get<double>() * 1000); }

using Lane = std::pair<int64_t, int64_t>;  // (pid, tid)
Lane lane_of(const Json& e) { return {e["pid"].get<int64_t>(), e["tid"].get<int64_t>()}; }

void expect_valid_chrome_trace(const Trace& trace, const Json& doc, const std::string& what) {
  const tracks::Layout layout = tracks::layout_tracks(trace);
  EXPECT_EQ(doc["schemaVersion"], 1) << what;
  EXPECT_EQ(doc["baseTimeNanoseconds"].get<int64_t>(), layout.origin) << what;
  EXPECT_TRUE(doc["deviceProperties"].is_array()) << what;
  EXPECT_EQ(doc["distributedInfo"]["rank"], 0) << what;

  std::map<std::string, size_t> per_cat;
  std::set<int64_t> named_pids;
  std::set<Lane> named_lanes, used_lanes;
  std::map<Lane, std::vector<std::pair<int64_t, int64_t>>> slices;  // lane -> (start, end) ns
  std::map<int64_t, std::vector<const Json*>> flow_starts, flow_ends;
  for (const Json& e : doc["traceEvents"]) {
    const std::string ph = e["ph"];
    if (ph == "M" && e["name"] == "process_name") named_pids.insert(e["pid"].get<int64_t>());
    if (ph == "M" && e["name"] == "thread_name") named_lanes.insert(lane_of(e));
    if (ph == "X") {
      ASSERT_TRUE(e.contains("ts") && e.contains("dur") && e.contains("pid") && e.contains("tid")) << e.dump();
      ++per_cat[e["cat"]];
      slices[lane_of(e)].push_back({ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])});
    }
    if (ph == "s") flow_starts[e["id"].get<int64_t>()].push_back(&e);
    if (ph == "f") flow_ends[e["id"].get<int64_t>()].push_back(&e);
    if (ph == "X" || ph == "i" || ph == "s" || ph == "f") used_lanes.insert(lane_of(e));
  }
  EXPECT_EQ(per_cat, testing::expected_slices(trace)) << what;

  for (const Lane& lane : used_lanes) {
    EXPECT_TRUE(named_lanes.count(lane)) << what << ": pid " << lane.first << " tid " << lane.second << " has no name";
    EXPECT_TRUE(named_pids.count(lane.first)) << what << ": pid " << lane.first << " has no name";
  }

  // One lane's slices nest (a viewer would otherwise stack them wrongly).
  for (auto& [lane, list] : slices) {
    std::sort(list.begin(), list.end(),
              [](auto a, auto b) { return a.first < b.first || (a.first == b.first && a.second > b.second); });
    std::vector<int64_t> open;  // ends of enclosing slices
    for (const auto& [start, end] : list) {
      while (!open.empty() && open.back() <= start) open.pop_back();
      EXPECT_TRUE(open.empty() || end <= open.back()) << what << ": overlapping slices on tid " << lane.second;
      open.push_back(end);
    }
  }

  // Every flow: one "s" at the start of a slice on its lane, one "f" (bp e) at a slice's start.
  EXPECT_EQ(flow_starts.size(), layout.flows.size()) << what;
  const auto at_slice_start = [&](const Json& e) {
    for (const auto& [start, end] : slices[lane_of(e)])
      if (start == ns(e["ts"])) return true;
    return false;
  };
  for (const auto& [id, starts] : flow_starts) {
    ASSERT_EQ(starts.size(), 1u) << what << ": flow " << id;
    ASSERT_EQ(flow_ends[id].size(), 1u) << what << ": flow " << id;
    const Json& f = *flow_ends[id][0];
    EXPECT_EQ(f["bp"], "e") << what;
    EXPECT_EQ((*starts[0])["cat"], "ac2g") << what;
    EXPECT_TRUE(at_slice_start(*starts[0])) << what << ": " << starts[0]->dump();
    EXPECT_TRUE(at_slice_start(f)) << what << ": " << f.dump();
  }
  EXPECT_EQ(flow_ends.size(), flow_starts.size()) << what;
}

TEST(ExportChrome, RealCapturesGiveCompleteKinetoJson) {
  for (const char* name : testing::kExportCaptures) {
    const Trace trace = testing::load_for_export(name);
    const Json doc = export_chrome(trace);
    expect_valid_chrome_trace(trace, doc, name);
    EXPECT_FALSE(doc["deviceProperties"].empty()) << name;
  }
}

TEST(ExportChrome, SingleProcessUsesKinetoPidsAndArgs) {
  const Trace trace = testing::load_for_export("bsr_spmm_baseline.gpuscope");
  const Json doc = export_chrome(trace);
  const uint32_t pid = trace.processes[0].pid;
  bool kernel = false, copy = false, call = false;
  for (const Json& e : doc["traceEvents"]) {
    if (e["ph"] != "X") continue;
    if (e["cat"] == "kernel" && !kernel) {
      kernel = true;
      EXPECT_EQ(e["pid"], e["args"]["device"]);  // GPU work under pid = device ordinal
      EXPECT_EQ(e["tid"], e["args"]["stream"]);
      for (const char* key : {"context", "correlation", "registers per thread", "shared memory", "blocks per SM",
                              "warps per SM", "grid", "block"})
        EXPECT_TRUE(e["args"].contains(key)) << key;
      EXPECT_EQ(e["args"]["grid"].size(), 3u);
    }
    if (e["cat"] == "gpu_memcpy" && !copy) {
      copy = true;
      EXPECT_EQ(e["name"].get<std::string>().rfind("Memcpy ", 0), 0u) << e["name"];
      EXPECT_TRUE(e["args"].contains("bytes") && e["args"].contains("memory bandwidth (GB/s)"));
    }
    if (e["cat"] == "cuda_runtime" && !call) {
      call = true;
      EXPECT_EQ(e["pid"], pid);
      EXPECT_TRUE(e["args"].contains("cbid") && e["args"].contains("correlation"));
    }
  }
  EXPECT_TRUE(kernel && copy && call);
  const Json& device = doc["deviceProperties"][0];
  EXPECT_EQ(device["numSms"], 132);
  EXPECT_EQ(device["computeMajor"], 9);
}

// A graph replay is an X event over its nodes in their lane, written before them (a viewer
// nests by time and order), with what it is in its args and no "stream" (HTA's mark of GPU work).
TEST(ExportChrome, GraphReplaysAreSpansOverTheirNodes) {
  const Trace trace = testing::graph_replays();
  const Json doc = export_chrome(trace);
  expect_valid_chrome_trace(trace, doc, "graph replays");
  std::vector<const Json*> events;
  for (const Json& e : doc["traceEvents"])
    if (e["ph"] == "X" && (e["cat"] == "cuda_graph" || e["cat"] == "kernel" || e["cat"] == "gpu_memcpy"))
      events.push_back(&e);
  size_t replays = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    const Json& e = *events[i];
    if (e["cat"] != "cuda_graph") continue;
    ++replays;
    EXPECT_FALSE(e["args"].contains("stream"));
    EXPECT_EQ(e["args"]["replays"], e["args"]["graph id"] == 3 ? 2 : 1);
    EXPECT_EQ(e["name"], "graph " + std::to_string(e["args"]["graph id"].get<int>()));
    ASSERT_LT(i + 1, events.size());
    const Json& node = *events[i + 1];  // its first node follows it, in its lane
    EXPECT_EQ(lane_of(node), lane_of(e));
    EXPECT_EQ(ns(node["ts"]), ns(e["ts"]));
    EXPECT_EQ(node["args"]["correlation"], e["args"]["correlation"]);
  }
  EXPECT_EQ(replays, 5u);  // graph 3: 2 replays on 2 streams; graph 4: 1
}

TEST(ExportChrome, ProcessesSharingAGpuGetTheirOwnPids) {
  const Trace trace = testing::load_for_export("spawn.gpuscope");
  const tracks::Layout layout = tracks::layout_tracks(trace);
  const exporting::Lanes lanes(layout);
  std::set<int64_t> pids;
  uint32_t process = 0;
  for (uint32_t g = 0; g < layout.groups.size(); ++g) {
    EXPECT_TRUE(pids.insert(lanes.pid(g)).second) << layout.groups[g].name;
    if (layout.groups[g].kind == tracks::GroupKind::Process) process = g;
    EXPECT_EQ(layout.groups[g].pid, layout.groups[process].pid) << "a GPU follows the process that used it";
    if (layout.groups[g].kind == tracks::GroupKind::Device) EXPECT_GE(lanes.pid(g), exporting::kSyntheticId);
    else EXPECT_EQ(lanes.pid(g), layout.groups[g].pid);
  }
}

// Runs of a bench capture share pids and correlation ids; a flow never crosses runs.
TEST(ExportChrome, FlowsStayInTheirBenchRun) {
  Trace bench;
  for (uint32_t run = 1; run <= 2; ++run) append_run(bench, testing::launch_storm(3), run);
  const tracks::Layout layout = tracks::layout_tracks(bench);
  ASSERT_EQ(layout.flows.size(), 6u);
  const auto run_of = [&](const tracks::SliceRef& r) { return layout.groups[layout.tracks[r.track].group].run_id; };
  for (const tracks::Flow& f : layout.flows) EXPECT_EQ(run_of(f.from), run_of(f.to));
}

TEST(ExportChrome, OverlappingRangesGetOneLanePerRow) {
  testing::TraceBuilder b;
  const TimeNs t0 = 1'000'000'000;
  b.range("a", t0, t0 + 100).range("b", t0 + 50, t0 + 150);
  for (NvtxRange& r : b.trace().nvtx_ranges) r.kind = NvtxKind::StartEnd;  // they may overlap
  const Json doc = export_chrome(b.trace());
  expect_valid_chrome_trace(b.trace(), doc, "overlap");
  std::set<std::string> lane_names;
  for (const Json& e : doc["traceEvents"])
    if (e["ph"] == "M" && e["name"] == "thread_name") lane_names.insert(e["args"]["name"]);
  EXPECT_TRUE(lane_names.count("NVTX start/end ranges"));
  EXPECT_TRUE(lane_names.count("NVTX start/end ranges (row 2)"));
}

TEST(ExportChrome, HostileNamesStayDataInValidJson) {
  const Trace trace = testing::hostile_trace();
  const tracks::Layout layout = tracks::layout_tracks(trace);
  std::ostringstream text;
  exporting::write_chrome_trace(trace, layout, text);
  EXPECT_EQ(text.str().find("</script>"), std::string::npos);  // "<\/script>": safe inside HTML too
  const Json doc = Json::parse(text.str());
  expect_valid_chrome_trace(trace, doc, "hostile");
  const std::string expected = utf8::valid(testing::kHostileName);
  EXPECT_NE(expected.find("\xEF\xBF\xBD"), std::string::npos);  // the invalid bytes became U+FFFD
  std::set<std::string> seen;
  for (const Json& e : doc["traceEvents"])
    if (e["name"] == expected)
      seen.insert(e["ph"].get<std::string>() + (e.contains("cat") ? e["cat"].get<std::string>() : ""));
  EXPECT_EQ(seen, (std::set<std::string>{"Xkernel", "Xcuda_runtime", "Xuser_annotation", "icpu_instant_event"}));
  EXPECT_EQ(doc["deviceProperties"][0]["name"], expected);
}

TEST(ExportChrome, JsonStringsEscapeEveryByte) {
  std::string all;
  for (int c = 0; c < 256; ++c) all.push_back(static_cast<char>(c));
  all += "\xF0\x9F\x98\x80 \xE2\x82\xAC \xED\xA0\x80 \xF4\x90\x80\x80";  // emoji, euro; a surrogate, > U+10FFFF
  std::string literal;
  exporting::append_json_string(literal, all);
  EXPECT_EQ(Json::parse(literal).get<std::string>(), utf8::valid(all));
  EXPECT_EQ(utf8::valid("\xF0\x9F\x98\x80\xE2\x82\xAC"), "\xF0\x9F\x98\x80\xE2\x82\xAC");
  EXPECT_EQ(utf8::valid("a\xC0\xAF"
                        "b"),
            "a\xEF\xBF\xBD\xEF\xBF\xBD"
            "b");                                                                  // overlong '/'
  EXPECT_EQ(utf8::valid("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // surrogate
  EXPECT_EQ(utf8::valid("\xE2\x82"), "\xEF\xBF\xBD\xEF\xBF\xBD");                  // cut short
}

TEST(ExportChrome, TimesAreExactRelativeMicroseconds) {
  testing::TraceBuilder b;
  const TimeNs t0 = 1'764'000'000'123'456'789;  // an epoch time: as a double in µs it would lose ns
  const uint32_t corr = b.api("cudaLaunchKernel", t0 + 1, t0 + 1'000'001);
  b.kernel("k", t0 + 999'999, t0 + 2'000'998, corr);
  b.run(t0, t0 + 3'000'000);
  const std::string text = [&] {
    std::ostringstream out;
    exporting::write_chrome_trace(b.trace(), tracks::layout_tracks(b.trace()), out);
    return out.str();
  }();
  EXPECT_NE(text.find("\"baseTimeNanoseconds\": 1764000000123456789"), std::string::npos);
  EXPECT_NE(text.find("\"ts\": 0.001, \"dur\": 1000.000"), std::string::npos) << text;
  EXPECT_NE(text.find("\"ts\": 999.999, \"dur\": 1000.999"), std::string::npos) << text;
}

}  // namespace
}  // namespace gpuscope

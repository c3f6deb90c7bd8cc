// The HTML report as bytes (the browser tests, tests/browser/, check what it does): a page
// with every section, a payload that decodes to the capture's slices, and hostile names that
// stay data. The diff page carries the confidence intervals its forest plot draws.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>

#include "export_test_util.h"
#include "gpuscope/analysis_diff.h"
#include "gpuscope/analysis_profiler_time.h"
#include "gpuscope/analysis_steps.h"
#include "gpuscope/diff_report.h"
#include "gpuscope/report.h"
#include "gpuscope/store.h"
#include "gpuscope/tracks.h"
#include "trace_builder.h"

namespace gpuscope {
namespace {

std::string capture(const char* name) { return std::string(GPUSCOPE_TEST_DATA_DIR) + "/" + name + ".gpuscope"; }

// The payload element's text, base64-decoded and gunzipped.
std::string payload_bytes(const std::string& html) {
  const std::string open = "<script id=\"gs-payload\" type=\"application/octet-stream\">";
  const size_t from = html.find(open) + open.size(), to = html.find("</script>", from);
  const std::string text = html.substr(from, to - from);
  std::string packed;
  uint32_t bits = 0;
  int count = 0;
  for (char c : text) {
    const char* digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const char* at = std::strchr(digits, c);
    if (c == '=' || !at || !c) continue;
    bits = bits << 6 | uint32_t(at - digits);
    if ((count += 6) >= 8) packed.push_back(char((bits >> (count -= 8)) & 0xff));
  }
  return testing::gunzip(packed);
}

nlohmann::json payload_header(const std::string& html) {
  const std::string raw = payload_bytes(html);
  EXPECT_EQ(raw.substr(0, 4), "GSPL");
  uint32_t length = 0;
  std::memcpy(&length, raw.data() + 8, 4);
  return nlohmann::json::parse(raw.substr(12, length));
}

size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(HtmlReport, PageHasEverySectionAndATimelineOfEveryTimedSlice) {
  for (const char* name : {"bsr_spmm_baseline", "bsr_spmm_metrics", "spawn", "crash_segv"}) {
    const Trace trace = read_trace(capture(name));
    const std::string html = render_report(trace, {}, parse_report_format("html"));
    EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u) << name;
    EXPECT_NE(html.find("Content-Security-Policy\" content=\"default-src 'none'; script-src 'nonce-"),
              std::string::npos);
    EXPECT_EQ(count_of(html, "<script"), 2u) << name;  // the payload and our one script
    const nlohmann::json header = payload_header(html);
    for (const auto& section : header["report"]["sections"])
      EXPECT_NE(html.find("id=\"sec-" + section["key"].get<std::string>() + "\""), std::string::npos) << name;
    const nlohmann::json& timeline = header["timeline"];
    size_t slices = 0;
    for (const auto& t : timeline["tracks"]) slices += t["count"].get<size_t>();
    // The page draws the program's timeline: without the metric collection time (AnalysisView).
    const analysis::AnalysisView view(trace);
    const tracks::Layout layout = tracks::layout_tracks(view.trace());
    EXPECT_EQ(slices, layout.slices) << name;
    EXPECT_EQ(timeline["origin"], std::to_string(layout.origin)) << name;
    EXPECT_EQ(timeline["groups"].size(), layout.groups.size()) << name;
  }
}

// A run with steps carries the steady-state window the report judges (the page opens on it), as
// ns from the timeline's origin; the help names the key that comes back to it.
TEST(HtmlReport, PayloadCarriesTheSteadyStateSteps) {
  const Trace trace = read_trace(std::string(GPUSCOPE_TEST_DATA_DIR) + "/pytorch/mlp_train_modules.gpuscope");
  const std::string html = render_report(trace, {}, parse_report_format("html"));
  EXPECT_NE(html.find("0: whole run · 1: steady-state steps"), std::string::npos);
  const nlohmann::json timeline = payload_header(html)["timeline"];
  ASSERT_TRUE(timeline.contains("steady"));
  const analysis::AnalysisView view(trace);
  const std::optional<analysis::SteadyState> steady = analysis::detect_steady_state(view.trace());
  ASSERT_TRUE(steady.has_value());
  const TimeNs origin = std::stoll(timeline["origin"].get<std::string>());
  EXPECT_EQ(timeline["steady"]["start"].get<TimeNs>(), steady->start - origin);
  EXPECT_EQ(timeline["steady"]["end"].get<TimeNs>(), steady->end - origin);
  EXPECT_EQ(timeline["steady"]["range"], steady->range);
  EXPECT_EQ(timeline["steady"]["steps"].get<size_t>(), steady->steps);
  EXPECT_LT(steady->end - steady->start, timeline["end"].get<TimeNs>() / 2);  // the steps are a short part of the run
  // Without steps: no window (the page opens on the GPU's activity) and the help says so.
  const std::string plain = render_report(read_trace(capture("spawn")), {}, parse_report_format("html"));
  EXPECT_FALSE(payload_header(plain)["timeline"].contains("steady"));
  EXPECT_NE(plain.find("0: whole run · 1: GPU activity"), std::string::npos);
}

TEST(HtmlReport, HostileNamesStayData) {
  testing::TraceBuilder b;
  b.run(1000, 100000);
  const std::string hostile =
      "</script><script>window.__gpuscope_pwned=1</script><img src=x onerror=alert(1)>\"'\\\n\x01\xff\xfe";
  const uint32_t c = b.api(hostile, 2000, 2500);
  b.kernel(hostile, 3000, 9000, c).range(hostile, 1500, 9500);
  b.trace().processes[0].command_line = hostile;
  const std::string html = render_report(b.trace(), {}, parse_report_format("html"));
  EXPECT_EQ(count_of(html, "<script"), 2u);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find("window.__gpuscope_pwned=1</script>"), std::string::npos);
  EXPECT_NE(html.find("&lt;/script&gt;&lt;script&gt;window.__gpuscope_pwned=1"), std::string::npos);
  EXPECT_EQ(html.find('\x01'), std::string::npos);
  EXPECT_EQ(html.find('\xff'), std::string::npos);
  // In the payload the names are intact JSON strings (invalid bytes replaced).
  const nlohmann::json header = payload_header(html);
  bool found = false;
  for (const auto& n : header["timeline"]["names"]) found |= n.get<std::string>().rfind("</script><script>", 0) == 0;
  EXPECT_TRUE(found);
}

TEST(HtmlReport, DiffPageCarriesConfidenceIntervalsForTheForestPlot) {
  const Trace base = read_trace(capture("bsr_spmm_baseline")), next = read_trace(capture("bsr_spmm_fixed"));
  const analysis::DiffResult diff = analysis::diff_traces(base, next, {}, {}, {});
  const std::string html = render_diff(diff, {"base", "new", std::nullopt, 0}, parse_report_format("html"));
  const nlohmann::json header = payload_header(html);
  EXPECT_TRUE(header["timeline"].is_null());
  size_t intervals = 0;
  for (const auto& s : header["report"]["sections"])
    for (const auto& t : s["tables"])
      for (const auto& r : t["rows"])
        if (r.contains("ci_low") && r["ci_low"].is_number()) {
          EXPECT_LE(r["ci_low"].get<double>(), r["ci_high"].get<double>());
          ++intervals;
        }
  EXPECT_GT(intervals, 10u);
  // People's formats do not show the bounds as columns of their own.
  const std::string text = render_diff(diff, {"base", "new", std::nullopt, 0}, parse_report_format("text"));
  EXPECT_EQ(text.find("95% CI low"), std::string::npos);
}

}  // namespace
}  // namespace gpuscope

// Renderer behaviour beyond the golden files: empty traces, width limits,
// escaping, --top, JSON numbers, format names.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "common/error.h"
#include "common/utf8.h"
#include "gpuscope/report.h"
#include "report/text_util.h"

namespace gpuscope {
namespace {

using nlohmann::json;

Trace trace_with_kernels(const std::vector<std::string>& names) {
  Trace t;
  TimeNs now = 1'000;
  for (size_t i = 0; i < names.size(); ++i) {
    Kernel k;
    k.name = t.strings.intern(names[i]);
    k.start = now;
    k.end = now + 1'000 * static_cast<TimeNs>(i + 1);
    now = k.end + 10;
    t.kernels.push_back(k);
  }
  return t;
}

const json& find_section(const json& report, const std::string& key) {
  for (const json& s : report["sections"])
    if (s["key"] == key) return s;
  throw std::runtime_error("no section " + key);
}

TEST(ReportFormatName, ParsesKnownNames) {
  EXPECT_EQ(parse_report_format("text").name, "text");
  EXPECT_EQ(parse_report_format("txt").name, "text");
  EXPECT_EQ(parse_report_format("markdown").name, "markdown");
  EXPECT_EQ(parse_report_format("md").name, "markdown");
  EXPECT_EQ(parse_report_format("JSON").name, "json");
  EXPECT_THROW(parse_report_format("pdf"), Error);
  EXPECT_THROW(parse_report_format(""), Error);
  // One registry: every name it lists parses to itself.
  for (const std::string& name : report_format_names()) EXPECT_EQ(parse_report_format(name).name, name);
}

TEST(ReportEmpty, EveryFormatRendersAndSaysNoneCaptured) {
  const Trace empty;
  const std::string text = render_report(empty, {}, parse_report_format("text"));
  EXPECT_NE(text.find("Kernel time: none captured"), std::string::npos);
  EXPECT_NE(text.find("CUDA runtime API: none captured"), std::string::npos);
  const std::string md = render_report(empty, {}, parse_report_format("markdown"));
  EXPECT_NE(md.find("_none captured_"), std::string::npos);
  const json j = json::parse(render_report(empty, {}, parse_report_format("json")));
  EXPECT_EQ(j["format"], "gpuscope-report");
  EXPECT_EQ(j["sections"].size(), 11u);  // + bottleneck, recommendations, launch configuration
  EXPECT_TRUE(find_section(j, "summary")["lines"][0]["value"].is_null());  // wall time undefined
  EXPECT_EQ(find_section(j, "summary")["lines"][0]["unit"], "ns");
}

TEST(ReportApi, SaysWhenOnlyTheCoreCallsWereRecorded) {
  for (const std::string trace_kind : {"core", "full", ""}) {
    Trace t = trace_with_kernels({"k"});
    Process p;
    p.pid = 1;
    p.api_trace = trace_kind;
    t.processes.push_back(p);
    ApiCall call;
    call.pid = 1;
    call.name = t.strings.intern("cudaLaunchKernel");
    call.start = 500;
    call.end = 900;
    t.api_calls.push_back(call);
    const json j = json::parse(render_report(t, {}, parse_report_format("json")));
    std::string notes;
    for (const json& table : find_section(j, "api")["tables"])
      if (table["key"] == "runtime_api")
        for (const json& note : table["notes"]) notes += note.get<std::string>();
    EXPECT_EQ(notes.find("core API trace") != std::string::npos, trace_kind == "core") << trace_kind << ": " << notes;
  }
}

TEST(ReportText, FitsInto120ColumnsWithLongNames) {
  std::string long_name = "void cutlass::Kernel2<cutlass::gemm::kernel::GemmUniversal<";
  for (int i = 0; i < 20; ++i) long_name += "cutlass::gemm::collective::CollectiveMma<" + std::to_string(i) + ">, ";
  long_name += "void>>(Params)";
  const std::string text = render_report(trace_with_kernels({long_name, "short"}), {}, parse_report_format("text"));
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    EXPECT_LE(report::display_width(line), 120u) << line;
    EXPECT_TRUE(line.empty() || line.back() != ' ') << "trailing space: " << line;
  }
  EXPECT_NE(text.find("void cutlass::Kernel2<"), std::string::npos);  // the start survives
  EXPECT_NE(text.find("void>>(Params)"), std::string::npos);          // and the end
  EXPECT_NE(text.find("\u2026"), std::string::npos);
}

TEST(ReportText, ShortenMiddleKeepsUtf8Intact) {
  EXPECT_EQ(report::shorten_middle("abcdef", 10), "abcdef");
  EXPECT_EQ(report::shorten_middle("abcdefghij", 5), "ab\u2026ij");
  const std::string greek = "\u03b1\u03b2\u03b3\u03b4\u03b5\u03b6\u03b7";  // 7 code points, 14 bytes
  const std::string cut = report::shorten_middle(greek, 4);
  EXPECT_EQ(report::display_width(cut), 4u);
  EXPECT_EQ(cut, "\u03b1\u03b2\u2026\u03b7");
}

TEST(ReportMarkdown, EscapesPipesAndBackticksInNames) {
  const std::string md = render_report(trace_with_kernels({"op<a|b>", "tick`name"}), {},
                                       parse_report_format("markdown"));
  EXPECT_NE(md.find("`op<a\\|b>`"), std::string::npos) << md;
  EXPECT_NE(md.find("``tick`name``"), std::string::npos) << md;
}

// Cells in one markdown table row as cmark-gfm splits it: at every "|" that no backslash directly
// precedes, whatever precedes that backslash.
size_t gfm_cells(const std::string& row) {
  size_t pipes = 0;
  for (size_t i = 0; i < row.size(); ++i) pipes += row[i] == '|' && (i == 0 || row[i - 1] != '\\');
  return pipes - 1;
}

TEST(ReportMarkdown, NamesWithPipesAndBackslashesStayInTheirCell) {
  const std::string md = render_report(trace_with_kernels({"a\\|b", "p|q", "end\\", "\\\\|", "`x|`"}), {},
                                       parse_report_format("markdown"));
  std::vector<std::string> lines;
  std::istringstream in(md);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  size_t rows = 0;
  for (size_t i = 1; i < lines.size(); ++i) {
    if (lines[i].rfind("| :---", 0) != 0 && lines[i].rfind("| ---:", 0) != 0) continue;  // a delimiter row
    for (size_t j = i + 1; j < lines.size() && lines[j].rfind("|", 0) == 0; ++j, ++rows)
      EXPECT_EQ(gfm_cells(lines[j]), gfm_cells(lines[i - 1])) << lines[j];
  }
  EXPECT_GT(rows, 5u) << md;
  EXPECT_NE(md.find("`a\\\\|b`"), std::string::npos) << md;  // after GFM drops the "\" before "|": a\|b
}

TEST(ReportJson, NumbersAreRawBaseUnits) {
  Trace t = trace_with_kernels({"k"});
  t.kernels[0].end = t.kernels[0].start + 615'837;
  Memcpy m;
  m.kind = CopyKind::HtoD;
  m.src_kind = MemoryKind::Pinned;
  m.bytes = 41'967'624;
  m.start = 0;
  m.end = 2'000'000;
  t.memcpys.push_back(m);
  const json j = json::parse(render_report(t, {}, parse_report_format("json")));

  const json& kernel_table = find_section(j, "kernels")["tables"][0];
  EXPECT_EQ(kernel_table["rows"][0]["total"], 615'837);
  EXPECT_EQ(kernel_table["rows"][0]["name"], "k");
  EXPECT_EQ(kernel_table["columns"][2]["key"], "total");
  EXPECT_EQ(kernel_table["columns"][2]["unit"], "ns");

  const json& memory_row = find_section(j, "memory")["tables"][0]["rows"][0];
  EXPECT_EQ(memory_row["operation"], "HtoD (pinned)");
  EXPECT_EQ(memory_row["bytes"], 41'967'624);
  EXPECT_DOUBLE_EQ(memory_row["bandwidth"].get<double>(), 41'967'624 / 2e-3);
}

TEST(ReportJson, InvalidUtf8NameDoesNotThrow) {
  const std::string bad = std::string("kernel_\xff\xfe");
  EXPECT_NO_THROW(json::parse(render_report(trace_with_kernels({bad}), {}, parse_report_format("json"))));
}

// JSON escapes bytes; text and markdown are read as UTF-8, so invalid bytes become U+FFFD there.
TEST(ReportTextAndMarkdown, InvalidUtf8BecomesReplacementCharacters) {
  const Trace t = trace_with_kernels({std::string("kernel_\xff\xfe_\xc3"), "line\nbreak"});
  for (const char* format : {"text", "markdown"}) {
    const std::string out = render_report(t, {}, parse_report_format(format));
    EXPECT_EQ(utf8::valid(out), out) << format;
    EXPECT_NE(out.find("kernel_\uFFFD\uFFFD_\uFFFD"), std::string::npos) << format << "\n" << out;
    EXPECT_NE(out.find("line break"), std::string::npos) << format;
  }
}

// A name of megabytes (a fuzzed or generated kernel) is shown shortened in the middle: the
// report stays small and fast to lay out.
TEST(ReportTextAndMarkdown, HugeNamesAreShortenedForDisplay) {
  const std::string huge = "head_" + std::string(8 << 20, 'x') + "_tail";
  const Trace t = trace_with_kernels({huge, "short"});
  for (const char* format : {"text", "markdown"}) {
    const std::string out = render_report(t, {}, parse_report_format(format));
    EXPECT_LT(out.size(), 200'000u) << format;
    EXPECT_NE(out.find("head_xxx"), std::string::npos) << format;
    EXPECT_NE(out.find("\u2026"), std::string::npos) << format;
  }
  EXPECT_NE(render_report(t, {}, parse_report_format("json")).find(huge), std::string::npos)
      << "JSON keeps names whole";
}

TEST(ReportTop, LimitsRowsAndZeroMeansAll) {
  std::vector<std::string> names;
  for (int i = 0; i < 30; ++i) names.push_back("kernel_" + std::to_string(100 + i));
  const Trace t = trace_with_kernels(names);

  const json limited = json::parse(render_report(t, {}, parse_report_format("json")));
  const json& table = find_section(limited, "kernels")["tables"][0];
  EXPECT_EQ(table["rows"].size(), 15u);
  EXPECT_EQ(table["rows_omitted"], 15);
  EXPECT_EQ(table["rows"][0]["name"], "kernel_129");  // longest first

  ReportOptions all;
  all.top = 0;
  const json full = json::parse(render_report(t, all, parse_report_format("json")));
  EXPECT_EQ(find_section(full, "kernels")["tables"][0]["rows"].size(), 30u);
  EXPECT_NE(render_report(t, {}, parse_report_format("text")).find("15 more rows not shown"), std::string::npos);
}

TEST(ReportRun, SignalAndTruncationAreShown) {
  Trace t;
  t.run.exit_code = -1;
  t.run.term_signal = 11;
  Process p;
  p.pid = 99;
  p.clean_shutdown = false;
  p.capture_status = "ok";
  t.processes.push_back(p);
  t.data_loss.push_back({99, "spool_truncated", 1, "last chunk incomplete"});
  const std::string text = render_report(t, {}, parse_report_format("text"));
  EXPECT_NE(text.find("killed by signal 11 (SIGSEGV)"), std::string::npos);
  EXPECT_NE(text.find("Truncated processes  1"), std::string::npos) << text;
  EXPECT_NE(text.find("spool_truncated"), std::string::npos);
  EXPECT_NE(text.find("Data quality        incomplete"), std::string::npos);
}

TEST(ReportSummary, EventSpanFallbackIsLabelled) {
  Trace t = trace_with_kernels({"k"});
  const std::string text = render_report(t, {}, parse_report_format("text"));
  EXPECT_NE(text.find("first to last captured event"), std::string::npos);
}

}  // namespace
}  // namespace gpuscope

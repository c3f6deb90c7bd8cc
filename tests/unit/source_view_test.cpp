// The source view (`profile --source`): which lines of which files and which SASS instructions a
// kernel's view holds, within its bounds, and the report's machine-only tables that carry them
// to JSON and the HTML page (and not to text or markdown).
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "analysis/source_view.h"
#include "gpuscope/analysis_diff.h"
#include "gpuscope/analysis_rules.h"
#include "gpuscope/analysis_source.h"
#include "gpuscope/diff_report.h"
#include "gpuscope/report.h"

namespace gpuscope {
namespace {

constexpr uint64_t kCrc = 0x5EED;

// A kernel `_Z4flashPf` with samples at PCs 0x20 (line 40 of /src/a.cu: 300 short_scoreboard),
// 0x30 (line 41: 100 selected) and 0x50 (line 7 of /src/b.cuh: 50 long_scoreboard).
Trace sampled_trace() {
  Trace t;
  t.cubins.push_back({1, kCrc, "ELF", 0});
  const auto sample = [&](uint64_t pc, const char* reason, uint64_t n) {
    PcSample s;
    s.pid = 1, s.cubin_crc = kCrc, s.function = t.strings.intern("_Z4flashPf"), s.pc_offset = pc;
    s.stall_reason = t.strings.intern(reason), s.samples = n;
    t.pc_samples.push_back(s);
  };
  sample(0x20, "short_scoreboard", 300);
  sample(0x30, "selected", 100);
  sample(0x50, "long_scoreboard", 50);
  return t;
}

// Six instructions 0x00..0x50, a loop back from 0x40 to 0x10; a.cu has 100 lines, b.cuh 10 ("a N" / "b N").
class ViewResolver final : public analysis::SourceResolver {
 public:
  std::vector<analysis::SourceLocation> lines(const std::string&, const std::string&,
                                              const std::vector<uint64_t>& pcs) const override {
    std::vector<analysis::SourceLocation> out;
    for (uint64_t pc : pcs)
      out.push_back(pc == 0x50 ? analysis::SourceLocation{"/src/b.cuh", 7}
                               : analysis::SourceLocation{"/src/a.cu", uint32_t(38 + pc / 16)});
    return out;
  }
  std::map<uint64_t, std::string> sass(const std::string&, const std::string&) const override {
    std::map<uint64_t, std::string> out;
    for (uint64_t pc = 0; pc <= 0x50; pc += 0x10) out[pc] = "OP" + std::to_string(pc / 16);
    out[0x40] = "@P0 BRA 0x0010";  // a loop over 0x10..0x40
    return out;
  }
  std::string source_file(const std::string& path) const override {
    const bool a = path == "/src/a.cu";
    if (!a && path != "/src/b.cuh") return "";
    std::string text;
    for (int n = 1; n <= (a ? 100 : 10); ++n) text += (a ? "a " : "b ") + std::to_string(n) + "\n";
    return text;
  }
};

TEST(SourceView, FilesHoldTheSampledLinesWithTheirNeighboursHottestFileFirst) {
  const ViewResolver resolver;
  const analysis::KernelSource k = analysis::profile_source(sampled_trace(), &resolver, 1).kernels.at(0);
  ASSERT_EQ(k.files.size(), 2u);
  const analysis::SourceFileText& a = k.files[0];
  EXPECT_EQ(a.file, "/src/a.cu");
  EXPECT_EQ(a.samples, 400u);
  ASSERT_EQ(a.lines.size(), 14u);  // 34..47: 40 and 41, kViewContext around each
  EXPECT_EQ(a.lines.front().line, 40 - analysis::kViewContext);
  EXPECT_EQ(a.lines.back().line, 41 + analysis::kViewContext);
  const analysis::SourceLineText& hot = a.lines[analysis::kViewContext];
  EXPECT_EQ(hot.line, 40u);
  EXPECT_EQ(hot.code, "a 40");
  EXPECT_EQ(hot.samples, 300u);
  EXPECT_NEAR(hot.share_percent, 100.0 * 300 / 450, 1e-9);
  EXPECT_EQ(hot.stalls.at(0).reason, "short_scoreboard");
  // b.cuh: its one line, clipped to the file (1..10).
  EXPECT_EQ(k.files[1].file, "/src/b.cuh");
  EXPECT_EQ(k.files[1].lines.size(), 10u);
  // The excerpt is the hottest line's neighbours from the same view.
  EXPECT_EQ(k.excerpt_file, "/src/a.cu");
  EXPECT_EQ(k.excerpt.size(), 2 * analysis::kExcerptLines + 1);  // 34..46
}

TEST(SourceView, TheListingIsEveryInstructionWithItsLineAndSamples) {
  const ViewResolver resolver;
  const analysis::KernelSource k = analysis::profile_source(sampled_trace(), &resolver, 1).kernels.at(0);
  ASSERT_EQ(k.listing.size(), 6u);
  EXPECT_EQ(k.listing[0].pc, 0u);
  EXPECT_EQ(k.listing[0].samples, 0u);
  EXPECT_EQ(k.listing[0].location.line, 38u);
  EXPECT_EQ(k.listing[2].instruction, "OP2");
  EXPECT_EQ(k.listing[2].samples, 300u);
  EXPECT_EQ(k.listing[2].stalls.at(0).reason, "short_scoreboard");
  EXPECT_EQ(k.listing[5].location.file, "/src/b.cuh");
  // Not disassembled (beyond `disassembled`): no view at all.
  const analysis::KernelSource plain = analysis::profile_source(sampled_trace(), &resolver, 1, 0).kernels.at(0);
  EXPECT_TRUE(plain.listing.empty());
  EXPECT_TRUE(plain.files.empty());
}

TEST(SourceView, ALoopIsABackwardBranchWithTheSamplesAndLinesUpToIt) {
  const ViewResolver resolver;
  const analysis::KernelSource k = analysis::profile_source(sampled_trace(), &resolver, 1).kernels.at(0);
  ASSERT_EQ(k.loops.size(), 1u);
  const analysis::HotLoop& loop = k.loops[0];
  EXPECT_EQ(loop.first_pc, 0x10u);
  EXPECT_EQ(loop.branch_pc, 0x40u);
  EXPECT_EQ(loop.instructions, 4u);
  EXPECT_EQ(loop.samples, 400u);  // 0x20 and 0x30
  EXPECT_NEAR(loop.share_percent, 100.0 * 400 / 450, 1e-9);
  EXPECT_EQ(loop.file, "/src/a.cu");
  EXPECT_EQ(loop.first_line, 39u);
  EXPECT_EQ(loop.last_line, 42u);
  EXPECT_EQ(loop.stalls.at(0).reason, "short_scoreboard");
}

TEST(SourceView, ALongFunctionsListingIsCutAroundItsHottestInstruction) {
  std::map<uint64_t, std::string> sass;
  for (uint64_t i = 0; i < 5000; ++i) sass[i * 16] = "NOP";
  const std::vector<uint64_t> late = analysis::listing_pcs(sass, 4900 * 16);
  ASSERT_EQ(late.size(), analysis::kViewInstructions);
  EXPECT_EQ(late.back(), 4999u * 16);  // clipped at the end
  const std::vector<uint64_t> middle = analysis::listing_pcs(sass, 2500 * 16);
  EXPECT_EQ(middle.front(), (2500u - analysis::kViewInstructions / 2) * 16);
  EXPECT_EQ(analysis::listing_pcs(sass, 0).front(), 0u);
}

// A file sampled everywhere: its view stops at kViewLines, the hottest lines first.
class WideResolver final : public analysis::SourceResolver {
 public:
  std::vector<analysis::SourceLocation> lines(const std::string&, const std::string&,
                                              const std::vector<uint64_t>& pcs) const override {
    std::vector<analysis::SourceLocation> out;
    for (uint64_t pc : pcs) out.push_back({"/src/wide.cu", uint32_t(1 + pc / 16 * 20)});
    return out;
  }
  std::map<uint64_t, std::string> sass(const std::string&, const std::string&) const override { return {}; }
  std::string source_file(const std::string&) const override { return std::string(20000, '\n'); }
};

TEST(SourceView, AFilesViewStaysWithinItsBound) {
  Trace t;
  t.cubins.push_back({1, kCrc, "ELF", 0});
  for (uint64_t i = 0; i < 900; ++i) {
    PcSample s;
    s.pid = 1, s.cubin_crc = kCrc, s.function = t.strings.intern("_Z1kv"), s.pc_offset = i * 16;
    s.stall_reason = t.strings.intern("wait"), s.samples = 1000 - i;  // line 1 hottest
    t.pc_samples.push_back(s);
  }
  const WideResolver resolver;
  const analysis::KernelSource k = analysis::profile_source(t, &resolver, 1).kernels.at(0);
  ASSERT_EQ(k.files.size(), 1u);
  EXPECT_LE(k.files[0].lines.size(), analysis::kViewLines);
  EXPECT_EQ(k.files[0].lines.front().line, 1u);  // the hottest line kept
  EXPECT_EQ(k.files[0].lines.front().samples, 1000u);
}

// The report carries the view to JSON (source_view, sass_view: the kernel's row, its stalls by
// reason) and leaves it out of text.
TEST(SourceView, TheReportsViewTablesAreForMachinesOnly) {
  Trace t = sampled_trace();
  ReportOptions options;
  options.source = std::make_shared<const ViewResolver>();
  const nlohmann::json report = nlohmann::json::parse(render_report(t, options, parse_report_format("json")));
  std::map<std::string, nlohmann::json> tables;
  for (const auto& s : report["sections"])
    if (s["key"] == "source")
      for (const auto& table : s["tables"]) tables[table["key"]] = table;
  ASSERT_EQ(tables.count("source_view"), 1u);
  ASSERT_EQ(tables.count("sass_view"), 1u);
  const nlohmann::json& lines = tables["source_view"]["rows"];
  EXPECT_EQ(lines.size(), 14u + 10u);
  const auto hot = std::find_if(lines.begin(), lines.end(), [](const auto& r) { return r["line"] == 40; });
  ASSERT_NE(hot, lines.end());
  EXPECT_EQ((*hot)["kernel"], 1);
  EXPECT_EQ((*hot)["file"], "/src/a.cu");
  EXPECT_EQ((*hot)["code"], "a 40");
  EXPECT_EQ((*hot)["samples"], 300);
  EXPECT_EQ((*hot)["stall_short_scoreboard"], 300);
  EXPECT_TRUE((*hot)["stall_selected"].is_null());
  const nlohmann::json& sass = tables["sass_view"]["rows"];
  ASSERT_EQ(sass.size(), 6u);
  EXPECT_EQ(sass[2]["pc"], 32);
  EXPECT_EQ(sass[2]["sass"], "OP2");
  EXPECT_EQ(sass[2]["line"], 40);
  const std::string text = render_report(t, options, parse_report_format("text"));
  EXPECT_EQ(text.find("Source view"), std::string::npos);
  EXPECT_NE(text.find("Hottest lines of"), std::string::npos);
  const std::string markdown = render_report(t, options, parse_report_format("markdown"));
  EXPECT_EQ(markdown.find("Source view"), std::string::npos);
}

// The kernel launched twice, each launch `launch_ns` long.
Trace launched(Trace t, TimeNs launch_ns) {
  for (TimeNs start : {TimeNs{1'000'000}, TimeNs{5'000'000}}) {
    Kernel k;
    k.pid = 1, k.start = start, k.end = start + launch_ns;
    k.name = k.mangled_name = t.strings.intern("_Z4flashPf");
    t.kernels.push_back(k);
  }
  return t;
}

// The fix: line 40's 300 short_scoreboard samples become 30 and the launches 1 ms -> 0.4 ms.
TEST(SourceView, TheDiffGivesEachLinesTimeInBothCapturesLargestChangeFirst) {
  const Trace base = launched(sampled_trace(), 1'000'000);
  Trace fixed = sampled_trace();
  for (PcSample& s : fixed.pc_samples)
    if (s.pc_offset == 0x20) s.samples = 30;
  const Trace next = launched(fixed, 400'000);
  const ViewResolver resolver;
  const std::vector<analysis::SourceLineDiff> lines = analysis::diff_source_lines(base, next, &resolver);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].kernel, "_Z4flashPf");
  EXPECT_EQ(lines[0].place, "a.cu:40");
  EXPECT_NEAR(lines[0].base_ns, 2e6 * 300 / 450, 1e-6);
  EXPECT_NEAR(lines[0].new_ns, 0.8e6 * 30 / 180, 1e-6);
  EXPECT_NEAR(lines[0].base_share, 100.0 * 300 / 450, 1e-9);
  EXPECT_EQ(lines[0].base_stall, "short_scoreboard");
  EXPECT_DOUBLE_EQ(lines[0].base_stall_percent, 100);
  EXPECT_EQ(lines[1].place, "a.cu:41");  // 0.44 ms in both: no change; then b.cuh:7
  // The same kernel in a second process, with 50 samples on a line (a.cu:38) only it sampled: a
  // line's share is of the kernel's samples in every process.
  Trace two = sampled_trace();
  two.cubins.push_back({2, kCrc, "ELF", 0});
  PcSample other = two.pc_samples.back();
  other.pid = 2, other.pc_offset = 0x00;
  two.pc_samples.push_back(other);
  const std::vector<analysis::SourceLineDiff> both = analysis::diff_source_lines(launched(two, 1'000'000), next,
                                                                                 &resolver);
  const auto only = std::find_if(both.begin(), both.end(), [](const auto& l) { return l.place == "a.cu:38"; });
  ASSERT_NE(only, both.end());
  EXPECT_NEAR(only->base_share, 100.0 * 50 / 500, 1e-9);
  // Without a resolver, or a capture without samples: nothing to compare.
  EXPECT_TRUE(analysis::diff_source_lines(base, next, nullptr).empty());
  EXPECT_TRUE(analysis::diff_source_lines(base, launched(Trace{}, 1000), &resolver).empty());

  analysis::DiffResult diff = analysis::diff_traces(base, next, analysis::CompareOptions{});
  EXPECT_TRUE(diff.base_has_pc_samples && diff.new_has_pc_samples);
  diff.source_lines = lines;
  const nlohmann::json report = nlohmann::json::parse(render_diff(diff, DiffReportInfo{}, parse_report_format("json")));
  const auto section = std::find_if(report["sections"].begin(), report["sections"].end(),
                                    [](const auto& s) { return s["key"] == "source_lines"; });
  ASSERT_NE(section, report["sections"].end());
  const nlohmann::json& row = (*section)["tables"][0]["rows"][0];
  EXPECT_EQ(row["line"], "a.cu:40");
  EXPECT_NEAR(row["change"].get<double>(), 0.8e6 * 30 / 180 - 2e6 * 300 / 450, 1e-3);
  EXPECT_EQ(row["base_stall"], "short_scoreboard 100.0%");
}

// hot_source_line on the same kernel, launched twice for 1 ms each: line 40 holds 2/3 of the
// samples, all short_scoreboard (the shared-memory pipe): ~2/3 of the kernel's 2 ms.
TEST(SourceView, TheHotLineRuleEstimatesTheSharedPipesWaits) {
  const auto finding = [](const char* reason) {
    Trace sampled = sampled_trace();
    for (PcSample& s : sampled.pc_samples)
      if (s.pc_offset == 0x20) s.stall_reason = sampled.strings.intern(reason);
    const Trace t = launched(sampled, 1'000'000);
    analysis::RuleInputs inputs = analysis::rule_inputs(t);
    const ViewResolver resolver;
    inputs.source = std::make_shared<const analysis::SourceProfile>(analysis::profile_source(t, &resolver, 10));
    for (const analysis::Finding& f : analysis::run_rules(t, inputs))
      if (f.rule == "hot_source_line") return std::optional<analysis::Finding>(f);
    return std::optional<analysis::Finding>();
  };
  const std::optional<analysis::Finding> bank = finding("short_scoreboard");
  ASSERT_TRUE(bank);
  ASSERT_EQ(bank->evidence.size(), 1u);  // line 41 holds 22%: below the 25% a named line needs
  ASSERT_TRUE(bank->saving_ns);
  EXPECT_NEAR(static_cast<double>(*bank->saving_ns), 2e6 * 300 / 450, 1.0);
  EXPECT_NE(bank->evidence[0].find("a.cu:40"), std::string::npos) << bank->evidence[0];
  // A barrier's waiters wait for other warps' work: named, not estimated.
  const std::optional<analysis::Finding> barrier = finding("barrier");
  ASSERT_TRUE(barrier);
  EXPECT_FALSE(barrier->saving_ns);
  EXPECT_NE(barrier->estimate.find("not estimated"), std::string::npos);
}

}  // namespace
}  // namespace gpuscope

// PC samples (`profile --source`) from the spool to the report: the import sums a PC's records and
// keeps only the cubins sampled PCs point into; the capture file keeps them (cubins as BLOBs); the
// analysis ranks lines and instructions with their stall reasons; the Source section shows them.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "export_test_util.h"
#include "gpuscope/analysis_rules.h"
#include "gpuscope/analysis_source.h"
#include "gpuscope/report.h"
#include "gpuscope/store.h"
#include "importers/sass/cubin_elf.h"
#include "importers/sass/nvdisasm_text.h"
#include "importers/spool/pc_samples.h"
#include "importers/spool/spool_importer.h"
#include "spool_builder.h"
#include "test_files.h"

namespace gpuscope {
namespace {

using spool::RecordKind;

constexpr uint64_t kCrc = 0xA16D47A6;
constexpr uint64_t kUnsampledCrc = 0xBEEF;

spool::PcSampleRecord pc(uint64_t offset, uint32_t reason, uint64_t samples, uint64_t not_issued, uint64_t crc = kCrc) {
  spool::PcSampleRecord r{};
  r.cubin_crc = crc, r.pc_offset = offset, r.samples = samples, r.not_issued = not_issued;
  r.function = 1, r.stall_reason = reason, r.device = 0;
  return r;
}

std::string cubin_text(uint64_t crc, const std::string& image) {
  std::string text(sizeof crc, '\0');
  std::memcpy(text.data(), &crc, sizeof crc);
  return text + image;
}

// Two drains of the same PCs, a cubin with a NUL inside, one nobody sampled, and totals.
Trace imported() {
  const std::string dir = testing::scratch_dir("pc_samples");
  testing::SpoolBuilder b(7);
  b.string(1, "_Z7hotspotPf").string(2, "long_scoreboard").string(3, "selected");
  b.string(static_cast<uint32_t>(spool::TextKey::Cubin), cubin_text(kCrc, std::string("ELF\0image", 9)), true);
  b.string(static_cast<uint32_t>(spool::TextKey::Cubin), cubin_text(kUnsampledCrc, "other"), true);
  b.record(RecordKind::PcSample, pc(0x10, 2, 100, 90))
      .record(RecordKind::PcSample, pc(0x10, 3, 5, 0))
      .record(RecordKind::PcSample, pc(0x20, 2, 40, 30))
      .record(RecordKind::PcSampling, spool::PcSamplingRecord{200, 3, 10, 0, 11, 0, 0});
  b.flush();
  b.string(1, "_Z7hotspotPf").string(2, "long_scoreboard");
  b.record(RecordKind::PcSample, pc(0x10, 2, 50, 45))
      .record(RecordKind::PcSampling, spool::PcSamplingRecord{60, 2, 0, 0, 11, 1, 0});
  b.flush().end(5000);
  b.write(dir + "/a.7.spool");
  return import_spool(dir + "/a.7.spool");
}

TEST(PcSamples, TheImportSumsDrainsAndKeepsOnlySampledCubins) {
  const Trace t = imported();
  ASSERT_EQ(t.pc_samples.size(), 3u);
  std::map<std::pair<uint64_t, std::string>, std::pair<uint64_t, uint64_t>> by_pc;
  for (const PcSample& s : t.pc_samples) {
    EXPECT_EQ(s.pid, 7u);
    EXPECT_EQ(s.cubin_crc, kCrc);
    EXPECT_EQ(t.strings.get(s.function), "_Z7hotspotPf");
    by_pc[{s.pc_offset, t.strings.get(s.stall_reason)}] = {s.samples, s.not_issued};
  }
  EXPECT_EQ((by_pc[{0x10, "long_scoreboard"}]), (std::pair<uint64_t, uint64_t>{150, 135}));
  EXPECT_EQ((by_pc[{0x10, "selected"}]), (std::pair<uint64_t, uint64_t>{5, 0}));
  EXPECT_EQ((by_pc[{0x20, "long_scoreboard"}]), (std::pair<uint64_t, uint64_t>{40, 30}));
  ASSERT_EQ(t.cubins.size(), 1u);
  EXPECT_EQ(t.cubins[0].crc, kCrc);
  EXPECT_EQ(t.cubins[0].image, std::string("ELF\0image", 9));
  ASSERT_EQ(t.pc_sampling.size(), 1u);
  EXPECT_EQ(t.pc_sampling[0].total_samples, 260u);
  EXPECT_EQ(t.pc_sampling[0].dropped_samples, 5u);
  EXPECT_EQ(t.pc_sampling[0].non_user_samples, 10u);
  EXPECT_EQ(t.pc_sampling[0].period_log2, 11u);
  EXPECT_EQ(t.pc_sampling[0].buffer_full, 1u);
  const auto loss = std::find_if(t.data_loss.begin(), t.data_loss.end(),
                                 [](const DataLoss& d) { return d.what == "pc_samples_dropped"; });
  ASSERT_NE(loss, t.data_loss.end());
  EXPECT_EQ(loss->count, 5u);
}

TEST(PcSamples, ACubinTextShorterThanItsCrcDamagesTheChunk) {
  const std::string dir = testing::scratch_dir("pc_samples_short_cubin");
  testing::SpoolBuilder b(7);
  b.string(static_cast<uint32_t>(spool::TextKey::Cubin), "abc", true);
  b.flush().end(5000);
  b.write(dir + "/a.7.spool");
  const Trace t = import_spool(dir + "/a.7.spool");
  EXPECT_TRUE(t.cubins.empty());
  EXPECT_TRUE(std::any_of(t.data_loss.begin(), t.data_loss.end(), [](const DataLoss& d) {
    return d.what == "spool_truncated" && d.detail.find("damaged bytes skipped") != std::string::npos;
  }));
}

// Cubins are held within a bound while a spool is read; the ones past it are counted.
TEST(PcSamples, TheImportHoldsCubinsWithinItsBound) {
  spool::PcSampleCollector collector(10);
  EXPECT_TRUE(collector.add_cubin(cubin_text(1, "0123456")));  // 7 bytes: kept
  EXPECT_TRUE(collector.add_cubin(cubin_text(2, "0123")));     // 11 in all: left out
  EXPECT_TRUE(collector.add_cubin(cubin_text(1, "0123456")));  // again: no loss
  EXPECT_TRUE(collector.add_cubin(cubin_text(3, "012")));      // 10 in all: kept
  EXPECT_FALSE(collector.add_cubin("short"));
  for (uint64_t crc : {1, 2, 3}) collector.add(pc(0x10, 1, 5, 0, crc), 1, 2);
  Trace t;
  collector.finish(t, 7);
  ASSERT_EQ(t.cubins.size(), 2u);
  EXPECT_EQ(t.cubins[0].crc, 1u);
  EXPECT_EQ(t.cubins[1].crc, 3u);
  ASSERT_EQ(t.data_loss.size(), 1u);
  EXPECT_EQ(t.data_loss[0].what, "cubins_not_imported");
  EXPECT_EQ(t.data_loss[0].count, 1u);
}

TEST(PcSamples, TheCaptureFileKeepsSamplesCubinsAndTotals) {
  const Trace t = imported();
  const std::string path = testing::scratch_dir("pc_samples_store") + "/c.gpuscope";
  write_trace(path, t);
  const Trace back = read_trace(path);
  ASSERT_EQ(back.pc_samples.size(), t.pc_samples.size());
  for (size_t i = 0; i < t.pc_samples.size(); ++i) {
    EXPECT_EQ(back.pc_samples[i].pc_offset, t.pc_samples[i].pc_offset);
    EXPECT_EQ(back.pc_samples[i].samples, t.pc_samples[i].samples);
    EXPECT_EQ(back.pc_samples[i].not_issued, t.pc_samples[i].not_issued);
    EXPECT_EQ(back.strings.get(back.pc_samples[i].stall_reason), t.strings.get(t.pc_samples[i].stall_reason));
  }
  ASSERT_EQ(back.cubins.size(), 1u);
  EXPECT_EQ(back.cubins[0].image, t.cubins[0].image);
  EXPECT_EQ(back.cubins[0].crc, kCrc);
  ASSERT_EQ(back.pc_sampling.size(), 1u);
  EXPECT_EQ(back.pc_sampling[0].dropped_samples, 5u);
}

// PCs 0x10 and 0x30 on line 87, 0x20 on line 12; SASS for 0x10 and 0x20 only.
class FakeResolver final : public analysis::SourceResolver {
 public:
  mutable int line_calls = 0;
  std::vector<analysis::SourceLocation> lines(const std::string& cubin, const std::string& function,
                                              const std::vector<uint64_t>& pcs) const override {
    ++line_calls;
    EXPECT_EQ(cubin, std::string("ELF\0image", 9));
    EXPECT_EQ(function, "_Z7hotspotPf");
    std::vector<analysis::SourceLocation> out;
    for (uint64_t p : pcs) out.push_back({"/src/k.cu", p == 0x20 ? 12u : 87u});
    return out;
  }
  std::map<uint64_t, std::string> sass(const std::string&, const std::string&) const override {
    return {{0x10, "LDG.E R4, desc[UR4][R2.64]"}, {0x20, "BAR.SYNC.DEFER_BLOCKING 0x0"}};
  }
  // /src/k.cu: 100 lines, "line N" each.
  std::string source_file(const std::string& path) const override {
    if (path != "/src/k.cu") return "";
    std::string text;
    for (int n = 1; n <= 100; ++n) text += "line " + std::to_string(n) + "\n";
    return text;
  }
};

Trace with_third_pc() {
  Trace t = imported();
  PcSample extra = t.pc_samples.front();
  extra.pc_offset = 0x30;
  extra.stall_reason = t.strings.intern("selected");
  extra.samples = 10, extra.not_issued = 0;
  t.pc_samples.push_back(extra);
  return t;
}

TEST(PcSamples, LinesSumTheirPcsAndRankWithTheirStalls) {
  const Trace t = with_third_pc();
  const FakeResolver resolver;
  const analysis::SourceProfile p = analysis::profile_source(t, &resolver, 10);
  ASSERT_EQ(p.kernels.size(), 1u);
  const analysis::KernelSource& k = p.kernels[0];
  EXPECT_EQ(k.samples, 205u);
  EXPECT_EQ(k.pcs, 3u);
  EXPECT_TRUE(k.has_cubin && k.has_lines && k.has_sass);
  EXPECT_EQ(resolver.line_calls, 1);
  ASSERT_EQ(k.lines.size(), 2u);
  EXPECT_EQ(k.lines[0].location.line, 87u);
  EXPECT_EQ(k.lines[0].samples, 165u);  // 0x10 (155) + 0x30 (10)
  EXPECT_EQ(k.lines[0].pc, 0x10u);      // its hottest PC
  EXPECT_NEAR(k.lines[0].share_percent, 100.0 * 165 / 205, 1e-9);
  ASSERT_EQ(k.lines[0].stalls.size(), 2u);
  EXPECT_EQ(k.lines[0].stalls[0].reason, "long_scoreboard");
  EXPECT_EQ(k.lines[0].stalls[0].samples, 150u);
  EXPECT_EQ(k.lines[0].stalls[0].not_issued, 135u);
  EXPECT_EQ(k.lines[0].stalls[1].samples, 15u);  // selected: 5 + 10
  EXPECT_EQ(k.lines[1].location.line, 12u);
  ASSERT_EQ(k.instructions.size(), 3u);
  EXPECT_EQ(k.instructions[0].pc, 0x10u);
  EXPECT_EQ(k.instructions[0].instruction, "LDG.E R4, desc[UR4][R2.64]");
  EXPECT_EQ(k.instructions[2].instruction, "");  // 0x30: not in the SASS
  EXPECT_EQ(k.stalls[0].reason, "long_scoreboard");
  EXPECT_EQ(k.stalls[0].samples, 190u);
  EXPECT_EQ(p.dropped_samples, 5u);
  EXPECT_EQ(p.period_log2, 11u);
}

// The H200's pattern: BAR.SYNC.DEFER_BLOCKING at 0x20 (line 32), an independent ISETP at 0x30
// (line 28), and the waiting warps sampled at the LDS at 0x40 (line 33).
class BarrierResolver final : public analysis::SourceResolver {
 public:
  std::vector<analysis::SourceLocation> lines(const std::string&, const std::string&,
                                              const std::vector<uint64_t>& pcs) const override {
    std::vector<analysis::SourceLocation> out;
    for (uint64_t p : pcs) out.push_back({"/src/k.cu", p == 0x20 ? 32u : p == 0x30 ? 28u : 33u});
    return out;
  }
  std::map<uint64_t, std::string> sass(const std::string&, const std::string&) const override {
    return {
        {0x20, "BAR.SYNC.DEFER_BLOCKING 0x0"}, {0x30, "ISETP.LE.AND P1, PT, R7, UR4, PT"}, {0x40, "LDS R4, [R2+UR5]"}};
  }
};

TEST(PcSamples, ABarrierBoundLineNamesTheBarrierItsWarpsWaitAt) {
  Trace t = imported();
  for (PcSample& s : t.pc_samples) s.pc_offset = 0x40, s.stall_reason = t.strings.intern("barrier");
  const BarrierResolver resolver;
  const analysis::SourceProfile p = analysis::profile_source(t, &resolver, 10);
  ASSERT_EQ(p.kernels.size(), 1u);
  ASSERT_FALSE(p.kernels[0].lines.empty());
  EXPECT_EQ(p.kernels[0].lines[0].location.line, 33u);
  EXPECT_EQ(p.kernels[0].lines[0].waits_at.line, 32u);
  EXPECT_EQ(p.kernels[0].instructions[0].waits_at.line, 32u);
  // Not barrier-bound: no barrier named.
  const FakeResolver other;
  const analysis::SourceProfile plain = analysis::profile_source(with_third_pc(), &other, 10);
  for (const auto& h : plain.kernels.at(0).lines) EXPECT_EQ(h.waits_at.line, 0u);
}

const analysis::Finding* hot_line_finding(const std::vector<analysis::Finding>& findings) {
  for (const analysis::Finding& f : findings)
    if (f.rule == "hot_source_line") return &f;
  return nullptr;
}

TEST(PcSamples, TheHotLineRuleNamesTheLineAndItsStall) {
  const Trace t = with_third_pc();
  // Without lines (no resolver): the hottest instruction.
  const std::vector<analysis::Finding> without_lines = analysis::run_rules(t);
  const analysis::Finding* pcs = hot_line_finding(without_lines);
  ASSERT_NE(pcs, nullptr);
  ASSERT_EQ(pcs->evidence.size(), 1u);
  EXPECT_NE(pcs->evidence[0].find("`0x0010`"), std::string::npos) << pcs->evidence[0];
  EXPECT_NE(pcs->evidence[0].find("long_scoreboard"), std::string::npos);
  EXPECT_FALSE(pcs->saving_ns);
  // With the report's profile: the line and its hottest instruction's SASS.
  analysis::RuleInputs inputs = analysis::rule_inputs(t);
  const FakeResolver resolver;
  inputs.source = std::make_shared<const analysis::SourceProfile>(analysis::profile_source(t, &resolver, 10));
  const std::vector<analysis::Finding> with_lines = analysis::run_rules(t, inputs);
  const analysis::Finding* lines = hot_line_finding(with_lines);
  ASSERT_NE(lines, nullptr);
  EXPECT_NE(lines->evidence[0].find("`k.cu:87, `LDG.E R4, desc[UR4][R2.64]``"), std::string::npos)
      << lines->evidence[0];
  EXPECT_EQ(lines->title, "One source line holds a kernel's long_scoreboard stalls");
  EXPECT_NE(lines->advice.find("long_scoreboard means"), std::string::npos);
  // Issuing, not stalling: no finding.
  Trace issuing = t;
  for (PcSample& p : issuing.pc_samples) p.stall_reason = issuing.strings.intern("selected");
  EXPECT_EQ(hot_line_finding(analysis::run_rules(issuing)), nullptr);
}

TEST(PcSamples, TheHottestLinesFileIsShownAroundIt) {
  const FakeResolver resolver;
  const analysis::SourceProfile p = analysis::profile_source(with_third_pc(), &resolver, 1);
  const analysis::KernelSource& k = p.kernels.at(0);
  EXPECT_EQ(k.excerpt_file, "/src/k.cu");
  ASSERT_EQ(k.excerpt.size(), 2 * analysis::kExcerptLines + 1);  // lines 81 to 93
  EXPECT_EQ(k.excerpt.front().line, 87 - analysis::kExcerptLines);
  const analysis::SourceLineText& hot = k.excerpt[analysis::kExcerptLines];
  EXPECT_EQ(hot.line, 87u);
  EXPECT_EQ(hot.code, "line 87");
  EXPECT_EQ(hot.samples, 165u);  // every line's samples, not only the top one's (top = 1)
  EXPECT_EQ(hot.stalls.front().reason, "long_scoreboard");
  EXPECT_EQ(k.excerpt.front().samples, 0u);
  // Line 12 is the other sampled line, outside the window; not disassembled: no file read.
  EXPECT_TRUE(analysis::profile_source(with_third_pc(), &resolver, 1, 0).kernels.at(0).excerpt.empty());
}

TEST(PcSamples, WithoutAResolverPcsAreRankedAlone) {
  const analysis::SourceProfile p = analysis::profile_source(with_third_pc(), nullptr, 2);
  ASSERT_EQ(p.kernels.size(), 1u);
  EXPECT_TRUE(p.kernels[0].lines.empty());
  EXPECT_FALSE(p.kernels[0].has_lines);
  ASSERT_EQ(p.kernels[0].instructions.size(), 2u);  // top 2
  EXPECT_EQ(p.kernels[0].instructions[0].samples, 155u);
}

TEST(PcSamples, TheSourceSectionNamesTheHotLineAndItsStall) {
  ReportOptions options;
  options.source = std::make_shared<FakeResolver>();
  const std::string json = render_report(with_third_pc(), options, parse_report_format("json"));
  EXPECT_NE(json.find("\"key\": \"source\""), std::string::npos) << json.substr(0, 200);
  EXPECT_NE(json.find("k.cu:87"), std::string::npos);
  EXPECT_NE(json.find("BAR.SYNC.DEFER_BLOCKING 0x0"), std::string::npos);
  EXPECT_NE(json.find("\"top_stall\": \"long_scoreboard\""), std::string::npos);
  const std::string text = render_report(with_third_pc(), options, parse_report_format("text"));
  EXPECT_NE(text.find("long_scoreboard"), std::string::npos);
  const std::string none = render_report(Trace{}, ReportOptions{}, parse_report_format("text"));
  EXPECT_EQ(none.find("Source: where"), std::string::npos);
}

TEST(PcSamples, NvdisasmTextGivesEachFunctionsInstructionsByPc) {
  const char* text =
      "\t.section\t.text._Z7hotspotPf,\"ax\",@progbits\n"
      "        /*0000*/  LDC R9, c[0x0][0x0] ;  // before any function: left out\n"
      "_Z7hotspotPf:\n"
      ".text._Z7hotspotPf:\n"
      "\t//## File \"/src/k.cu\", line 19\n"
      "        /*0000*/                   LDC R1, c[0x0][0x28] ;                        /* 0x00000a00ff017b82 */\n"
      "                                                                                 /* 0x000fe40000000800 */\n"
      "        /*0a30*/               @P0 BRA `(.L_x_3) ;                                /* 0x0000000000000947 */\n"
      ".L_x_3:\n"
      "        /*zz*/ NOT AN INSTRUCTION ;\n"
      "        /*0a50*/   no semicolon\n"
      ".text._Z5otherv:\n"
      "        /*0000*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;\n";
  const std::map<std::string, sass::FunctionSass> functions = sass::parse_nvdisasm(text);
  ASSERT_EQ(functions.size(), 2u);
  const sass::FunctionSass& hot = functions.at("_Z7hotspotPf");
  ASSERT_EQ(hot.size(), 2u);
  EXPECT_EQ(hot.at(0), "LDC R1, c[0x0][0x28]");
  EXPECT_EQ(hot.at(0xa30), "@P0 BRA `(.L_x_3)");
  EXPECT_EQ(functions.at("_Z5otherv").at(0), "BAR.SYNC.DEFER_BLOCKING 0x0");
  EXPECT_TRUE(sass::parse_nvdisasm(std::string(100, '\0')).empty());
  EXPECT_TRUE(sass::parse_nvdisasm("/*").empty());
  EXPECT_TRUE(sass::parse_nvdisasm(".text.:").empty());
  // A branch to a label of the function reads as the label's PC.
  const auto loop = sass::parse_nvdisasm(
      ".text._Z1kv:\n.L_x_4:\n        /*0380*/  IADD3 R1, R1, 0x1, RZ ;\n        /*0390*/  @P1 BRA `(.L_x_4) ;\n"
      "        /*03a0*/  BRA `(.L_x_9) ;\n");
  EXPECT_EQ(loop.at("_Z1kv").at(0x390), "@P1 BRA 0x0380");
  EXPECT_EQ(loop.at("_Z1kv").at(0x3a0), "BRA `(.L_x_9)");  // an unknown label stays
}

// The cubin of samples/source_hotspots (sm_90, -lineinfo) as the H200 capture kept it.
TEST(PcSamples, ACubinsElfGivesItsFunctionsSymbolsAndLineTable) {
  const std::string cubin = testing::read_text_file(std::string(GPUSCOPE_SOURCE_DIR) +
                                                    "/tests/fuzz/seeds/sass/hotspots.cubin");
  const std::optional<sass::CubinInfo> info = sass::read_cubin(cubin);
  ASSERT_TRUE(info);
  EXPECT_TRUE(info->has_line_table);
  for (const char* kernel : {"_Z15barrier_hotspotPfi", "_Z12bank_hotspotPfi", "_Z12load_hotspotPKjPji"})
    EXPECT_EQ(info->functions.count(kernel), 1u) << kernel;
  EXPECT_FALSE(sass::read_cubin("not an ELF"));
  // Cut anywhere: never a crash, never a read outside the bytes.
  for (size_t cut = 0; cut < cubin.size(); cut += 97) sass::read_cubin(std::string_view(cubin).substr(0, cut));
}

// A real capture: samples/source_hotspots under `profile --source` on an H200 (2026-11-29), with
// its cubin. `gpuscope report` reads its line table through libgpuscope_cupti_host.so and
// libcupti, no GPU needed: the planted lines of samples/source_hotspots.cu as it was then (bank
// on line 46, the load on 53, the barrier on 32) with their stall reasons.
TEST(PcSamples, TheReportOfARealCaptureNamesThePlantedLines) {
  const std::string dir = testing::scratch_dir("pc_samples_real");
  std::ofstream(dir + "/hot.gpuscope", std::ios::binary)
      << testing::gunzip(testing::read_text_file(std::string(GPUSCOPE_TEST_DATA_DIR) + "/source/hotspots.gpuscope.gz"));
  const testing::CliResult r = testing::run_gpuscope(dir, "report hot.gpuscope --format json --top 3",
                                                     "GPUSCOPE_NVDISASM=/nonexistent");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json report = nlohmann::json::parse(r.out);
  const nlohmann::json* source = nullptr;
  for (const auto& s : report["sections"])
    if (s["key"] == "source") source = &s;
  ASSERT_NE(source, nullptr);
  std::map<std::string, nlohmann::json> hottest;  // kernel -> its hottest line's row
  for (const auto& t : (*source)["tables"])
    if (t["key"] == "source_lines" && !t["rows"].empty())
      hottest[t["title"].get<std::string>().substr(std::string("Hottest lines of ").size())] = t["rows"][0];
  bool lines_read = false;
  for (const auto& [kernel, row] : hottest) lines_read = lines_read || !row["line"].get<std::string>().empty();
  if (!lines_read) GTEST_SKIP() << "CUPTI's host API is not usable here (no libcupti): " << r.err;
  const nlohmann::json& load = hottest.at("load_hotspot(unsigned int const*, unsigned int*, int)");
  EXPECT_EQ(load["line"], "source_hotspots.cu:53");
  EXPECT_EQ(load["top_stall"], "long_scoreboard");
  EXPECT_GT(load["share"].get<double>(), 99.0);
  const nlohmann::json& bank = hottest.at("bank_hotspot(float*, int)");
  EXPECT_EQ(bank["line"], "source_hotspots.cu:46");
  EXPECT_TRUE(bank["top_stall"] == "short_scoreboard" || bank["top_stall"] == "mio_throttle") << bank.dump();
  // Sampled at the line after the barrier; without SASS the barrier it waits at is not named.
  const nlohmann::json& barrier = hottest.at("barrier_hotspot(float*, int)");
  EXPECT_EQ(barrier["line"], "source_hotspots.cu:33");
  EXPECT_EQ(barrier["top_stall"], "barrier");
  EXPECT_EQ(barrier["waits_at"], "");
  EXPECT_NE(std::string(r.out).find("nvdisasm not found"), std::string::npos);
}

}  // namespace
}  // namespace gpuscope

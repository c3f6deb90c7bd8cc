// The ncu CSV importer's parts and the real files of tests/data/ncu (made by its make_csvs.sh on
// an H100 with ncu 2025.3.1): CSV quoting, units, kernel-name matching, and values read from
// the raw and details pages against what the files say.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include "common/error.h"
#include "importers/importer.h"
#include "importers/ncu_csv/csv_reader.h"
#include "importers/ncu_csv/kernel_names.h"
#include "importers/ncu_csv/ncu_file.h"
#include "importers/ncu_csv/units.h"
#include "test_files.h"

namespace gpuscope {
namespace {

// Lines of `path` after ncu's header that are launch rows: quoted, with a non-empty first field
// (the raw page's units row has an empty "ID"); for the details page, distinct IDs.
size_t launches_in(const std::string& path) {
  const std::string text = testing::read_text_file(path);
  size_t pos = text.find("\n\"ID\",");
  std::vector<std::string> ids;
  while ((pos = text.find('\n', pos + 1)) != std::string::npos && pos + 1 < text.size()) {
    if (text[pos + 1] != '"' || text[pos + 2] == '"') continue;
    const std::string id = text.substr(pos + 2, text.find('"', pos + 2) - pos - 2);
    if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
  }
  return ids.size();
}

double value_of(const ncu::File& file, size_t launch, const std::string& metric) {
  for (const auto& [index, value] : file.launches.at(launch).metrics)
    if (file.metric_names[index] == metric) return value;
  ADD_FAILURE() << metric << " not in launch " << launch;
  return NAN;
}

TEST(NcuUnits, ValuesWithSeparatorsAndNa) {
  EXPECT_EQ(ncu::parse_value("1,234.5").number, 1234.5);
  EXPECT_EQ(ncu::parse_value("1,980,000").number, 1980000);
  EXPECT_EQ(ncu::parse_value("0").kind, ncu::ValueKind::Number);
  EXPECT_EQ(ncu::parse_value("-2.5e3").number, -2500);
  EXPECT_EQ(ncu::parse_value("n/a").kind, ncu::ValueKind::Missing);
  EXPECT_EQ(ncu::parse_value("").kind, ncu::ValueKind::Missing);
  EXPECT_EQ(ncu::parse_value("abc").kind, ncu::ValueKind::Text);
  EXPECT_EQ(ncu::parse_value("12abc").kind, ncu::ValueKind::Text);
  EXPECT_EQ(ncu::parse_value("PolicySpread").kind, ncu::ValueKind::Text);
}

TEST(NcuUnits, ScaledUnitsToBaseUnits) {
  // Times to ns, sizes to bytes, rates and clocks to per second; K = 1000 as ncu's prefixes.
  EXPECT_EQ(ncu::unit_scale("ns"), 1);
  EXPECT_EQ(ncu::unit_scale("nsecond"), 1);
  EXPECT_EQ(ncu::unit_scale("usecond"), 1e3);
  EXPECT_EQ(ncu::unit_scale("msecond"), 1e6);
  EXPECT_EQ(ncu::unit_scale("second"), 1e9);
  EXPECT_EQ(ncu::unit_scale("byte"), 1);
  EXPECT_EQ(ncu::unit_scale("Kbyte"), 1e3);
  EXPECT_EQ(ncu::unit_scale("Mbyte"), 1e6);
  EXPECT_EQ(ncu::unit_scale("Gbyte"), 1e9);
  EXPECT_EQ(ncu::unit_scale("Kibyte"), 1024);
  EXPECT_EQ(ncu::unit_scale("byte/s"), 1);
  EXPECT_EQ(ncu::unit_scale("Gbyte/second"), 1e9);
  EXPECT_EQ(ncu::unit_scale("Mbyte/second"), 1e6);
  EXPECT_EQ(ncu::unit_scale("cycle/nsecond"), 1e9);
  EXPECT_EQ(ncu::unit_scale("cycle/usecond"), 1e6);
  EXPECT_EQ(ncu::unit_scale("hz"), 1);
  EXPECT_EQ(ncu::unit_scale("Ghz"), 1e9);
  EXPECT_EQ(ncu::unit_scale("MHz"), 1e6);
  EXPECT_EQ(ncu::unit_scale("Kbyte/block"), 1e3);
  EXPECT_EQ(ncu::unit_scale("Minst"), 1e6);
  for (const char* base : {"", "%", "inst/cycle", "register/thread", "cycle", "sector", "warp", "SM", "block"})
    EXPECT_EQ(ncu::unit_scale(base), 1) << base;
}

TEST(NcuCsvReader, QuotesCommasLineBreaksAndCrlf) {
  ncu::CsvReader reader(
      "==PROF== hello\r\n\"a,b\",\"say \"\"hi\"\"\",plain\r\n\"two\nlines\",,\"\"\r\n==WARNING== x\n\"last\"");
  std::vector<std::string> f;
  ASSERT_TRUE(reader.next(f));
  EXPECT_EQ(f, (std::vector<std::string>{"a,b", "say \"hi\"", "plain"}));
  ASSERT_TRUE(reader.next(f));
  EXPECT_EQ(f, (std::vector<std::string>{"two\nlines", "", ""}));
  ASSERT_TRUE(reader.next(f));
  EXPECT_EQ(f, (std::vector<std::string>{"last"}));
  EXPECT_FALSE(reader.next(f));
  EXPECT_EQ(reader.tool_lines().size(), 2u);
}

TEST(NcuCsvReader, OpenQuoteAtTheEndIsAnError) {
  ncu::CsvReader reader("\"a\",\"b\n\"c\",\"cut he");
  std::vector<std::string> f;
  EXPECT_THROW(
      {
        while (reader.next(f)) {
        }
      },
      Error);
}

TEST(NcuCsvReader, HeaderDetectionIsLenientForACutLine) {
  EXPECT_TRUE(ncu::is_ncu_header(
      "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"dram__by"));
  EXPECT_TRUE(ncu::is_ncu_header("\"ID\",\"Kernel Name\",\"Section Name\",\"Metric Name\",\"Metric Value\""));
  EXPECT_FALSE(ncu::is_ncu_header("\"ID\",\"Name\",\"Value\""));
  EXPECT_FALSE(ncu::is_ncu_header("ID,Kernel Name,Process ID"));  // ncu quotes every field
  EXPECT_FALSE(ncu::is_ncu_header("\"Time (%)\",\"Total Time (ns)\",\"Instances\",\"Name\""));
}

TEST(NcuCsvReader, ToolLinesGiveProgramAndPasses) {
  // ncu's stdout and stderr in one file (2>&1): the progress lines carry the passes.
  const ncu::File f = ncu::parse_text(
      "==PROF== Connected to process 77 (/opt/app --n 3)\n"
      "app output, not CSV\n"
      "==PROF== Profiling \"k\" - 0: 0%....50%....100% - 9 passes\n"
      "\"ID\",\"Process ID\",\"Kernel Name\",\"gpu__time_duration.sum\"\n"
      "\"\",\"\",\"\",\"usecond\"\n"
      "\"0\",\"77\",\"k(int)\",\"1.5\"\n"
      "==PROF== Disconnected from process 77\n");
  EXPECT_EQ(f.passes, 9u);
  EXPECT_EQ(f.command_lines.at(77), "/opt/app --n 3");
  ASSERT_EQ(f.launches.size(), 1u);
  EXPECT_EQ(f.launches[0].metrics.at(0).second, 1500);
}

TEST(NcuNames, FunctionPartsOfDemangledNames) {
  EXPECT_EQ(ncu::function_part("void ns::k<32, float>(const float *, int)", true), "ns::k<32,float>");
  EXPECT_EQ(ncu::function_part("void ns::k<32, float>(const float *, int)", false), "ns::k");
  EXPECT_EQ(ncu::function_part("void ns::k<32, float>(const float *, int)", true, false), "k<32,float>");
  EXPECT_EQ(ncu::function_part("triad_kernel(float *, const float *)", false), "triad_kernel");
  EXPECT_EQ(ncu::function_part("ampere_sgemm_128x64_nn", false), "ampere_sgemm_128x64_nn");
  EXPECT_EQ(ncu::function_part("void at::native::f<at::native::Op<(int)1>>(int)", false, false), "f");
}

TEST(NcuNames, MatchesAtTheStrictestLevelThatFits) {
  const std::vector<std::string> demangled = {"void bsr::bsr_spmm_kernel<128, 128, 32>(__half const*, int)",
                                              "void gemm<64>(float const*)", "void gemm<128>(float const*)",
                                              "triad_kernel(float*, float const*)"};
  const std::vector<std::string> mangled = {"_Z3bsrv", "_Z4gemmILi64EEvPKf", "_Z4gemmILi128EEvPKf", "_Z5triadPfPKf"};
  const ncu::NameMatcher m(demangled, mangled);
  EXPECT_EQ(m.match("void bsr_spmm_kernel<128, 128, 32>(const __half *, const int *)"), 0);  // ncu 2025.3's print
  EXPECT_EQ(m.match("void gemm<128>(const float *)"), 2);
  EXPECT_EQ(m.match("_Z4gemmILi64EEvPKf"), 1);  // --print-kernel-base mangled
  EXPECT_EQ(m.match("triad_kernel"), 3);        // --print-kernel-base function
  EXPECT_EQ(m.match("gemm"), -2);               // two instantiations: ambiguous, never guessed
  EXPECT_EQ(m.match("other_kernel(int)"), -1);
}

TEST(NcuRealFiles, RawPageLaunchesAndValues) {
  const ncu::File f = ncu::read_file(testing::test_data("ncu/bsr_spmm_full_raw.csv"));
  EXPECT_EQ(f.page, "raw");
  ASSERT_EQ(f.launches.size(), launches_in(testing::test_data("ncu/bsr_spmm_full_raw.csv")));
  ASSERT_EQ(f.launches.size(), 3u);
  const ncu::Launch& l = f.launches[0];
  EXPECT_EQ(l.pid, 556u);
  EXPECT_EQ(l.kernel_name.rfind("void bsr_spmm_kernel<128, 128, 32>(", 0), 0u);
  EXPECT_EQ(l.grid[0], 16);
  EXPECT_EQ(l.grid[1], 16);
  EXPECT_EQ(l.block[0], 128);
  EXPECT_EQ(l.compute_capability, "9.0");
  // The file's first launch row, as printed: "89,024" ns, "16,797,184" byte, "2,618,619,698.06" hz.
  EXPECT_EQ(value_of(f, 0, "gpu__time_duration.sum"), 89024);
  EXPECT_EQ(value_of(f, 0, "dram__bytes_read.sum"), 16797184);
  EXPECT_EQ(value_of(f, 0, "dram__sectors_read.sum"), 524912);
  EXPECT_DOUBLE_EQ(value_of(f, 0, "dram__cycles_elapsed.avg.per_second"), 2618619698.06);
  EXPECT_DOUBLE_EQ(value_of(f, 0, "sm__warps_active.avg.pct_of_peak_sustained_active"), 12.12);
  EXPECT_EQ(value_of(f, 0, "launch__shared_mem_per_block_static"), 18944);
  EXPECT_EQ(f.device_names.at(0), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(f.device_attributes.at(0).at("multiprocessor_count"), 132);
  EXPECT_EQ(f.command_lines.at(556), "/work/main/.device/build/samples/bsr_spmm");
  // Text values of text metrics (launch__func_cache_config) are no loss; "no data" in a metric with a unit is.
  EXPECT_GT(f.skipped.not_numeric, 0u);
}

TEST(NcuRealFiles, ScaledUnitsGiveTheSameValues) {
  // The raw page in ncu's scaled units, as --print-units auto prints larger values: the same
  // launch must read back to the same base-unit values.
  std::string text = testing::read_text_file(testing::test_data("ncu/metrics_kernels_raw.csv"));
  const ncu::File base = ncu::parse_text(text);
  std::vector<std::string> rows;
  ncu::CsvReader reader(text);
  std::string_view line;
  while (reader.next_line(line))
    if (ncu::is_ncu_header(line)) break;
  std::vector<std::string> header;
  ncu::CsvReader(line).next(header);
  const size_t dur = std::find(header.begin(), header.end(), "gpu__time_duration.sum") - header.begin();
  const size_t bytes = std::find(header.begin(), header.end(), "dram__bytes_read.sum") - header.begin();
  ASSERT_LT(dur, header.size());
  ASSERT_LT(bytes, header.size());
  std::string out = "==PROF== scaled\n" + std::string(line) + "\n";
  std::vector<std::string> f;
  bool units = true;
  while (reader.next(f)) {
    if (units) {
      f[dur] = "usecond";
      f[bytes] = "Kbyte";
    } else {
      char buffer[64];
      std::snprintf(buffer, sizeof buffer, "%.3f", ncu::parse_value(f[dur]).number / 1e3);
      f[dur] = buffer;
      std::snprintf(buffer, sizeof buffer, "%.3f", ncu::parse_value(f[bytes]).number / 1e3);
      f[bytes] = buffer;
    }
    units = false;
    for (size_t i = 0; i < f.size(); ++i) out += (i ? ",\"" : "\"") + f[i] + "\"";
    out += "\r\n";
  }
  const ncu::File scaled = ncu::parse_text(out);
  ASSERT_EQ(scaled.launches.size(), base.launches.size());
  for (size_t i = 0; i < base.launches.size(); ++i) {
    EXPECT_NEAR(value_of(scaled, i, "gpu__time_duration.sum"), value_of(base, i, "gpu__time_duration.sum"), 1) << i;
    EXPECT_NEAR(value_of(scaled, i, "dram__bytes_read.sum"), value_of(base, i, "dram__bytes_read.sum"), 1) << i;
  }
}

TEST(NcuRealFiles, DetailsPageLaunchesAndMappedLabels) {
  const ncu::File f = ncu::read_file(testing::test_data("ncu/bsr_spmm_full_details.csv"));
  EXPECT_EQ(f.page, "details");
  ASSERT_EQ(f.launches.size(), launches_in(testing::test_data("ncu/bsr_spmm_full_details.csv")));
  ASSERT_EQ(f.launches.size(), 3u);
  // Launch 0 as the file prints it: Duration "89,088" ns, Registers Per Thread 236, Achieved
  // Occupancy 12.12 %, Static Shared Memory Per Block "18,944" byte/block.
  EXPECT_EQ(value_of(f, 0, "gpu__time_duration.sum"), 89088);
  EXPECT_EQ(value_of(f, 0, "launch__registers_per_thread"), 236);
  EXPECT_DOUBLE_EQ(value_of(f, 0, "sm__warps_active.avg.pct_of_peak_sustained_active"), 12.12);
  EXPECT_EQ(value_of(f, 0, "launch__shared_mem_per_block_static"), 18944);
  EXPECT_EQ(value_of(f, 0, "smsp__inst_executed.sum"), 15840256);
  // Labels computed from several metrics are counted, not guessed.
  EXPECT_GT(f.skipped.unmapped, 0u);
  EXPECT_TRUE(f.skipped.unmapped_labels.count("Memory Workload Analysis: Mem Busy"));
}

// Raw and details page of the same command (two ncu runs of it, tests/data/ncu/README.md): the
// metrics both have agree. Exact for what does not vary between runs (launch configuration,
// occupancy limits, instruction counts); within 3 % (or 1 point of a percentage) for measured
// times and throughputs, after the first, cold launch.
TEST(NcuRealFiles, RawAndDetailsPagesAgree) {
  const ncu::File raw = ncu::read_file(testing::test_data("ncu/bsr_spmm_full_raw.csv"));
  const ncu::File details = ncu::read_file(testing::test_data("ncu/bsr_spmm_full_details.csv"));
  ASSERT_EQ(raw.launches.size(), details.launches.size());
  size_t compared = 0;
  for (size_t i = 1; i < raw.launches.size(); ++i) {
    std::map<std::string, double> in_raw;
    for (const auto& [index, value] : raw.launches[i].metrics) in_raw[raw.metric_names[index]] = value;
    for (const auto& [index, value] : details.launches[i].metrics) {
      const std::string& name = details.metric_names[index];
      auto it = in_raw.find(name);
      if (it == in_raw.end()) continue;
      ++compared;
      const bool exact = name.rfind("launch__", 0) == 0 || name == "smsp__inst_executed.sum" ||
                         name == "sm__maximum_warps_per_active_cycle_pct";
      if (exact) EXPECT_EQ(value, it->second) << name << " launch " << i;
      else
        EXPECT_NEAR(value, it->second,
                    std::max(0.03 * std::abs(it->second), name.find("pct") != std::string::npos ? 1.0 : 0.0))
            << name << " launch " << i;
    }
  }
  EXPECT_GE(compared, 2u * 30);
}

TEST(NcuRealFiles, MetricsOnlyCaptureFromTheRawPage) {
  const Trace t = load_trace(testing::test_data("ncu/bsr_spmm_full_raw.csv"));
  EXPECT_EQ(t.run.source_tool, "ncu");
  EXPECT_EQ(t.run.source_schema, "CSV raw page");
  ASSERT_EQ(t.kernels.size(), 3u);
  // Back to back, each lasting its gpu__time_duration.sum.
  EXPECT_EQ(t.kernels[0].start, 0);
  EXPECT_EQ(t.kernels[0].end, 89024);
  EXPECT_EQ(t.kernels[1].start, t.kernels[0].end);
  EXPECT_EQ(t.kernels[0].registers_per_thread, 236u);
  EXPECT_EQ(t.kernels[0].static_shared_bytes, 18944u);
  EXPECT_EQ(t.kernels[0].grid[1], 16);
  EXPECT_TRUE(t.lacks(kGapTimeline));
  EXPECT_TRUE(t.lacks(kGapApiCalls));
  EXPECT_FALSE(t.lacks(kGapDevices));
  ASSERT_EQ(t.devices.size(), 1u);
  EXPECT_EQ(t.devices[0].sm_count, 132u);
  EXPECT_EQ(t.devices[0].core_clock_khz, 1980000u);
  EXPECT_EQ(t.devices[0].global_memory_bandwidth_kbps, 3352320000u);  // what CUPTI recorded for this H100
  EXPECT_EQ(t.devices[0].max_warps_per_sm, 64u);
  ASSERT_EQ(t.metric_collections.size(), 1u);
  EXPECT_EQ(t.metric_collections[0].chip, "GH100");
  EXPECT_EQ(t.metric_collections[0].kernels_profiled, 3u);
  EXPECT_EQ(t.processes.size(), 1u);
  EXPECT_TRUE(t.processes[0].clean_shutdown);
}

TEST(NcuRealFiles, AttachedToTheCaptureOfTheSameProgram) {
  Trace t = load_trace(testing::test_data("ncu/metrics_kernels.gpuscope"),
                       {testing::test_data("ncu/metrics_kernels_raw.csv")});
  const ncu::File f = ncu::read_file(testing::test_data("ncu/metrics_kernels_raw.csv"));
  // Every ncu launch found its kernel: each of the 8 launches' values are attached.
  size_t values = 0;
  for (const ncu::Launch& l : f.launches) values += l.metrics.size();
  EXPECT_EQ(t.kernel_metrics.size(), values);
  ASSERT_EQ(t.metric_collections.size(), 1u);
  EXPECT_EQ(t.metric_collections[0].kernels_profiled, 8u);
  EXPECT_EQ(t.metric_collections[0].source, "ncu CSV " + testing::test_data("ncu/metrics_kernels_raw.csv"));
  for (const DataLoss& loss : t.data_loss) EXPECT_NE(loss.what, "ncu_launches_unmatched") << loss.detail;
  // The i-th ncu launch of a kernel is the i-th launch of it in the capture: the second triad.
  std::vector<const Kernel*> triads;
  for (const Kernel& k : t.kernels)
    if (t.strings.get(k.name).rfind("triad_kernel", 0) == 0) triads.push_back(&k);
  ASSERT_EQ(triads.size(), 2u);
  const StringId duration = t.strings.intern("gpu__time_duration.sum");
  double second = 0;
  for (const KernelMetric& m : t.kernel_metrics)
    if (m.correlation_id == triads[1]->correlation_id && m.metric == duration) second = m.value;
  EXPECT_EQ(second, value_of(f, 1, "gpu__time_duration.sum"));
}

}  // namespace
}  // namespace gpuscope

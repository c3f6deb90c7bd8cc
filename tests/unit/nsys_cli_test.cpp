// nsys exports through the CLI as users run it: report (text and JSON) with counts that match
// the file, import then report, diff with statistics, and every bad file as one line, exit 2.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "nsys_test_util.h"
#include "spool_builder.h"
#include "test_files.h"

namespace gpuscope {
namespace {

using testing::CliResult;
using testing::edited_copy;
using testing::nsys_fixture;
using testing::sql_integer;
using Json = nlohmann::json;

const Json& section(const Json& report, const std::string& key) {
  for (const Json& s : report["sections"])
    if (s["key"] == key) return s;
  static const Json none;
  ADD_FAILURE() << "no section " << key;
  return none;
}

const Json& table(const Json& s, const std::string& key) {
  for (const Json& t : s["tables"])
    if (t["key"] == key) return t;
  static const Json none = Json::object({{"rows", Json::array()}});
  return none;
}

// A line's number in a section the report may not have (0 when either is missing).
double optional_line(const Json& report, const std::string& section_key, const std::string& line_key) {
  for (const Json& s : report["sections"])
    if (s["key"] == section_key)
      for (const Json& line : s["lines"])
        if (line["key"] == line_key) return line["value"].get<double>();
  return 0;
}

double column_sum(const Json& t, const std::string& column) {
  double sum = 0;
  for (const Json& row : t["rows"]) sum += row.value(column, 0.0);
  return sum;
}

class NsysReport : public ::testing::TestWithParam<const char*> {};

TEST_P(NsysReport, SectionsAndCountsMatchTheFile) {
  const std::string path = nsys_fixture(GetParam());
  GPUSCOPE_NEED_NSYS_FIXTURE(path);
  const std::string dir = testing::scratch_dir(std::string("nsys_report_") + GetParam());
  const CliResult text = testing::run_gpuscope(dir, "report " + path);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  for (const char* heading : {"Captured by         nsys", "Kernels", "CUDA API", "Memory operations", "NVTX",
                              "Bottleneck", "Recommendations", "Data quality"})
    EXPECT_NE(text.out.find(heading), std::string::npos) << heading;

  const CliResult json = testing::run_gpuscope(dir, "report " + path + " --format json --top 0");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const Json report = Json::parse(json.out);
  EXPECT_EQ(column_sum(table(section(report, "kernels"), "kernel_time"), "count"),
            sql_integer(path, "SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"));
  const Json& api = section(report, "api");
  EXPECT_EQ(column_sum(table(api, "runtime_api"), "calls") + column_sum(table(api, "driver_api"), "calls"),
            sql_integer(path, "SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME"));
  const Json& memory = table(section(report, "memory"), "memory_ops");
  EXPECT_EQ(column_sum(memory, "count"), sql_integer(path, "SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY") +
                                             sql_integer(path, "SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_MEMSET"));
  EXPECT_EQ(column_sum(memory, "bytes"), sql_integer(path, "SELECT TOTAL(bytes) FROM CUPTI_ACTIVITY_KIND_MEMCPY") +
                                             sql_integer(path, "SELECT TOTAL(bytes) FROM CUPTI_ACTIVITY_KIND_MEMSET"));
  // emit_nvtx's op ranges became ops (src/importers/torch_nvtx/); the other ranges stay NVTX.
  EXPECT_EQ(column_sum(table(section(report, "nvtx"), "nvtx_ranges"), "count") +
                optional_line(report, "ops", "op_instances"),
            sql_integer(path, "SELECT COUNT(*) FROM NVTX_EVENTS WHERE eventType IN (59, 60) AND end IS NOT NULL"));
  EXPECT_FALSE(section(report, "bottleneck")["lines"].empty());
  EXPECT_FALSE(table(section(report, "bottleneck"), "time_attribution")["rows"].empty());
  const Json& run = section(report, "run");
  bool source = false;
  for (const Json& line : run["lines"])
    source = source || (line["key"] == "source" && line["value"].get<std::string>().rfind("nsys ", 0) == 0);
  EXPECT_TRUE(source);
}

INSTANTIATE_TEST_SUITE_P(Nsys, NsysReport, ::testing::Values("h100_2gpu_1s", "mock", "healthy_1pct"));

TEST(NsysCli, ReportRanksRecommendationsOnTheRealJob) {
  const std::string path = nsys_fixture("h100_2gpu_1s");
  GPUSCOPE_NEED_NSYS_FIXTURE(path);
  const std::string dir = testing::scratch_dir("nsys_recommendations");
  const CliResult r = testing::run_gpuscope(dir, "report " + path + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json report = Json::parse(r.out);
  const Json& ranked = table(section(report, "recommendations"), "recommendations");
  ASSERT_GE(ranked["rows"].size(), 2u);
  double previous = 1e300;
  for (const Json& row : ranked["rows"]) {  // ranked by estimated saving
    EXPECT_LE(row.value("saving", 0.0), previous);
    previous = row.value("saving", 0.0);
  }
}

TEST(NsysCli, ImportThenReportEqualsTheDirectReport) {
  const std::string path = nsys_fixture("h100_2gpu_1s");
  GPUSCOPE_NEED_NSYS_FIXTURE(path);
  const std::string dir = testing::scratch_dir("nsys_import");
  const CliResult imported = testing::run_gpuscope(dir, "import -o job " + path);
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  EXPECT_NE(imported.err.find("2 processes, 3442 kernels"), std::string::npos) << imported.err;
  const CliResult direct = testing::run_gpuscope(dir, "report " + path + " --format json --top 0");
  const CliResult stored = testing::run_gpuscope(dir, "report job.gpuscope --format json --top 0");
  ASSERT_EQ(stored.exit_code, 0) << stored.err;
  EXPECT_EQ(Json::parse(stored.out), Json::parse(direct.out));
}

int64_t comparison_count(const std::string& json, const std::string& key) {
  const Json report = Json::parse(json);
  for (const Json& line : section(report, "comparison")["lines"])
    if (line["key"] == key) return line["value"].get<int64_t>();
  ADD_FAILURE() << "no line " << key;
  return -1;
}

TEST(NsysCli, DiffOfTwoExportsJudgesWithStatistics) {
  const std::string path = nsys_fixture("h100_2gpu_1s");
  GPUSCOPE_NEED_NSYS_FIXTURE(path);
  const std::string dir = testing::scratch_dir("nsys_diff");
  const std::string slower = edited_copy(path, dir, "slower.sqlite",
                                         "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET end = start + (end - start) * 3 / 2");
  const CliResult diff = testing::run_gpuscope(dir, "diff " + path + " slower.sqlite --format json");
  ASSERT_EQ(diff.exit_code, 0) << diff.err;
  EXPECT_GT(comparison_count(diff.out, "verdict_slower"), 10);
  EXPECT_EQ(comparison_count(diff.out, "verdict_faster"), 0);

  const CliResult same = testing::run_gpuscope(dir, "diff " + path + " " + path + " --format json");
  ASSERT_EQ(same.exit_code, 0) << same.err;
  EXPECT_EQ(comparison_count(same.out, "verdict_slower"), 0);
  EXPECT_EQ(comparison_count(same.out, "verdict_faster"), 0);
  EXPECT_GT(comparison_count(same.out, "verdict_no significant change"), 0);
}

TEST(NsysCli, BadExportsAreOneLineAndExitTwo) {
  const std::string path = nsys_fixture("mock");
  GPUSCOPE_NEED_NSYS_FIXTURE(path);
  const std::string dir = testing::scratch_dir("nsys_bad");
  const std::string bytes = testing::read_text_file(path);
  std::ofstream(dir + "/truncated.sqlite", std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  testing::expect_one_line_error(testing::run_gpuscope(dir, "report truncated.sqlite"), "truncated", "truncated");

  edited_copy(path, dir, "text.sqlite", "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = 'soon' WHERE rowid = 1");
  testing::expect_one_line_error(testing::run_gpuscope(dir, "report text.sqlite"),
                                 "CUPTI_ACTIVITY_KIND_KERNEL.start holds text in row 1", "text in a numeric column");

  edited_copy(path, dir, "no_tables.sqlite",
              "DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL; DROP TABLE CUPTI_ACTIVITY_KIND_RUNTIME; "
              "DROP TABLE CUPTI_ACTIVITY_KIND_MEMCPY;");
  testing::expect_one_line_error(testing::run_gpuscope(dir, "report no_tables.sqlite"),
                                 "an nsys export without CUDA records", "missing tables");

  // (the fixture carries indexes on start, added by the project it comes from: dropped first)
  edited_copy(path, dir, "no_column.sqlite",
              "DROP INDEX IF EXISTS _nsysai_kernel_start; DROP INDEX IF EXISTS _nsysai_kernel_stream; "
              "ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL DROP COLUMN start");
  testing::expect_one_line_error(testing::run_gpuscope(dir, "report no_column.sqlite"),
                                 "table CUPTI_ACTIVITY_KIND_KERNEL has no column start", "missing column");

  edited_copy(path, dir, "empty.sqlite",
              "DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL; DELETE FROM CUPTI_ACTIVITY_KIND_RUNTIME; "
              "DELETE FROM CUPTI_ACTIVITY_KIND_MEMCPY;");
  testing::expect_one_line_error(testing::run_gpuscope(dir, "report empty.sqlite"), "holds no CUDA kernels",
                                 "empty tables");

  {
    store::Database other(dir + "/other.sqlite", store::Database::Mode::Create);
    other.exec("CREATE TABLE notes (id INTEGER, body TEXT); INSERT INTO notes VALUES (1, 'x');");
  }
  testing::expect_one_line_error(testing::run_gpuscope(dir, "report other.sqlite"),
                                 "an SQLite database, but neither a gpuscope capture nor an nsys export",
                                 "other database");
  for (const char* command : {"import -o x", "diff other.sqlite"})
    EXPECT_EQ(testing::run_gpuscope(dir, std::string(command) + " text.sqlite").exit_code, 2) << command;
}

// A newer export schema is read by column name, not refused: what it adds is listed as skipped.
TEST(NsysCli, NewerSchemaImportsAndSaysSo) {
  const std::string path = nsys_fixture("mock");
  GPUSCOPE_NEED_NSYS_FIXTURE(path);
  const std::string dir = testing::scratch_dir("nsys_newer");
  edited_copy(path, dir, "v9.sqlite",
              "UPDATE META_DATA_EXPORT SET value = '9' WHERE name = 'EXPORT_SCHEMA_VERSION_MAJOR';"
              "UPDATE META_DATA_EXPORT SET value = '9.0.0' WHERE name = 'EXPORT_SCHEMA_VERSION';"
              "CREATE TABLE CUDA_FUTURE_EVENTS (start INTEGER); INSERT INTO CUDA_FUTURE_EVENTS VALUES (1);");
  const CliResult r = testing::run_gpuscope(dir, "report v9.sqlite");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("nsys_schema_newer"), std::string::npos);
  EXPECT_NE(r.out.find("export schema 9.0.0"), std::string::npos);
  EXPECT_NE(r.out.find("CUDA_FUTURE_EVENTS"), std::string::npos);
}

}  // namespace
}  // namespace gpuscope

// The importer registry (src/importers/registry.cpp): formats are told by content, not by name;
// every command that reads a capture reads the other formats too; files gpuscope cannot read get
// one line and exit 2. The per-format tests live beside each importer's (nsys_*, kineto_*, ncu_*).
#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "importers/importer.h"
#include "spool_builder.h"
#include "store/sqlite_db.h"
#include "test_files.h"

namespace gpuscope {
namespace {

using testing::expect_one_line_error;
using testing::run_gpuscope;

const std::string kData = GPUSCOPE_TEST_DATA_DIR;
const std::string kCapture = kData + "/bsr_spmm_baseline.gpuscope";

void write_file(const std::string& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }

void write_gzip(const std::string& path, const std::string& text) {
  gzFile f = gzopen(path.c_str(), "wb");
  gzwrite(f, text.data(), static_cast<unsigned>(text.size()));
  gzclose(f);
}

TEST(ImporterRegistry, EveryFormatHasOneEntryWithNameAndDescription) {
  std::set<std::string> names;
  for (const Importer& importer : importers()) {
    EXPECT_FALSE(importer.description.empty()) << importer.name;
    EXPECT_TRUE(names.insert(std::string(importer.name)).second) << "two entries named " << importer.name;
    EXPECT_NE(importer.detect, nullptr);
    EXPECT_NE(importer.read, nullptr);
  }
  EXPECT_TRUE(names.count("gpuscope") && names.count("spool") && names.count("nsys"));
}

TEST(ImporterRegistry, FormatIsToldByContentNotName) {
  const std::string dir = testing::scratch_dir("registry_content");
  std::filesystem::copy_file(kCapture, dir + "/looks_like.json", std::filesystem::copy_options::overwrite_existing);
  EXPECT_EQ(detect_format(dir + "/looks_like.json").name, "gpuscope");
  const Trace trace = load_trace(dir + "/looks_like.json");
  EXPECT_GT(trace.kernels.size(), 0u);
  EXPECT_TRUE(trace.run.source_tool.empty());  // gpuscope's own capture
}

TEST(ImporterRegistry, UnknownFilesAreRefusedWithOneLine) {
  const std::string dir = testing::scratch_dir("registry_unknown");
  write_file(dir + "/notes.txt", "just some notes\n");
  write_file(dir + "/empty.json", "");
  write_gzip(dir + "/notes.txt.gz", "gzipped notes, not a trace\n");
  write_file(dir + "/binary.bin", std::string("\x7f"
                                              "ELF\x02\x01\x01\0\0\0",
                                              10));
  for (const std::string file : {"notes.txt", "empty.json", "notes.txt.gz", "binary.bin"})
    expect_one_line_error(run_gpuscope(dir, "report " + file), "not a format gpuscope reads (it reads ", file);
  expect_one_line_error(run_gpuscope(dir, "report missing.sqlite"), "missing.sqlite: no such file", "missing");
  expect_one_line_error(run_gpuscope(dir, "report ."), "not a regular file", "a directory");
}

TEST(ImporterRegistry, ForeignSqliteIsNamedForWhatItIsNot) {
  const std::string dir = testing::scratch_dir("registry_sqlite");
  std::filesystem::copy_file(kCapture, dir + "/other.db", std::filesystem::copy_options::overwrite_existing);
  store::Database(dir + "/other.db", store::Database::Mode::Create).exec("DROP TABLE meta");
  expect_one_line_error(run_gpuscope(dir, "report other.db"), "neither a gpuscope capture nor an nsys export");
}

TEST(ImporterRegistry, ImportCombinesOnlySpoolsOfOneRun) {
  const std::string dir = testing::scratch_dir("registry_import");
  expect_one_line_error(run_gpuscope(dir, "import -o both " + kCapture + " " + kCapture),
                        "only spools of one run import together");
  expect_one_line_error(run_gpuscope(dir, "import -o x --metrics-from " + kCapture + " " + kCapture),
                        "a gpuscope capture has no per-kernel metrics to attach");
}

TEST(ImporterRegistry, QueryAsksForAnImportFirst) {
  const std::string nsys = std::string(GPUSCOPE_SHARED_FIXTURES_DIR) + "/nsys/mock.sqlite";
  if (!std::filesystem::exists(nsys)) GTEST_SKIP() << "no shared/ fixtures beside the checkout: " << nsys;
  const std::string dir = testing::scratch_dir("registry_query");
  expect_one_line_error(run_gpuscope(dir, "query " + nsys + " 'SELECT 1'"),
                        "is an Nsight Systems SQLite export; SQL runs on captures: 'gpuscope import -o NAME");
}

TEST(ImporterRegistry, ImportBytesNeverThrows) {
  Trace trace;
  EXPECT_NE(import_bytes("", trace), "");
  EXPECT_NE(import_bytes("{\"traceEvents\": [", trace), "");
  EXPECT_NE(import_bytes(std::string("SQLite format 3\0garbage", 23), trace), "");
  std::ifstream in(kCapture, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(import_bytes(bytes, trace), "");
  EXPECT_GT(trace.kernels.size(), 0u);
}

}  // namespace
}  // namespace gpuscope

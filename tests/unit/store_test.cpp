#include "gpuscope/store.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>

#include "common/error.h"
#include "common/older_formats.h"
#include "spool_builder.h"
#include "sql_rows.h"

namespace gpuscope {
namespace {

Trace sample_trace() {
  Trace t;
  t.run = {
      "./bsr_spmm --iters 2", "gpu-host",   "0.1.0",         1000, 90000, 0, 0, "driver_api=0", "nsys", "2026.2.1.210",
      "export schema 3.25.0", "run.sqlite", kHostOpsFromNvtx};
  Process p;
  p.pid = 100;
  p.command_line = "./bsr_spmm --iters 2";
  p.start = 1100;
  p.end = 89000;
  p.clean_shutdown = true;
  p.capture_status = "ok";
  t.processes.push_back(p);
  Device d;
  d.name = "NVIDIA H100 80GB HBM3";
  d.sm_count = 132;
  d.compute_major = 9;
  d.global_memory_bytes = 85'000'000'000ull;
  t.devices.push_back(d);
  const StringId kname = t.strings.intern("bsr_spmm_kernel<128, 128, 32>");
  const StringId malloc_name = t.strings.intern("cudaMalloc");
  t.api_calls.push_back({100, 7, ApiDomain::Runtime, 20, malloc_name, 1200, 5200, 0, 1});
  Kernel k;
  k.pid = 100;
  k.name = k.mangled_name = kname;
  k.start = 6000;
  k.end = 7000;
  k.grid[0] = 64;
  k.block[0] = 128;
  k.cluster[2] = 1;
  k.registers_per_thread = 197;
  k.graph_node_id = 1ull << 40;
  t.kernels.push_back(k);
  Memcpy m;
  m.kind = CopyKind::DtoH;
  m.src_kind = MemoryKind::Device;
  m.dst_kind = MemoryKind::Pageable;
  m.bytes = 268'435'456;
  m.start = 8000;
  m.end = 9000;
  t.memcpys.push_back(m);
  t.memsets.push_back({100, 0, 1, 7, MemoryKind::Device, true, 4096, 0, 100, 200, 3, 0});
  t.memory_events.push_back({100, 0, 1, 0, MemoryOp::Free, MemoryKind::Device, 0xdead0000, 4096, 300, 4});
  t.synchronizations.push_back({100, 7, 1, 7, SyncKind::ContextSynchronize, 400, 500, 5});
  t.nvtx_ranges.push_back({100, 7, NvtxKind::PushPop, 0, t.strings.intern("iteration"), 1000, 9000, 0});
  t.nvtx_marks.push_back({100, 7, 0, t.strings.intern("mark"), 5000});
  t.overheads.push_back({100, t.strings.intern("cupti_buffer_flush"), 10, 20});
  t.data_loss.push_back({100, "cupti_dropped_records", 12, "buffers full"});
  t.streams.push_back({100, 1, 13, StreamFlag::NonBlocking, -3, 40});
  t.source_gaps.push_back({kGapSynchronization, "not traced"});
  t.host_ops.push_back({100, 7, t.strings.intern("aten::addmm"), t.strings.intern("cpu_op"), 5500, 6500, 42, 17,
                        t.strings.intern("[[64, 512], [512, 512]]"), 1, 0});
  t.external_correlations.push_back({100, 3, 42, 0});
  return t;
}

TEST(Store, RoundTripKeepsEveryField) {
  const std::string path = testing::scratch_dir("roundtrip") + "/a.gpuscope";
  const Trace original = sample_trace();
  write_trace(path, original);
  const Trace back = read_trace(path);

  EXPECT_EQ(back.run.command_line, original.run.command_line);
  EXPECT_EQ(back.run.end, 90000);
  EXPECT_EQ(back.run.source_tool, "nsys");
  EXPECT_EQ(back.run.source_version, "2026.2.1.210");
  EXPECT_EQ(back.run.source_schema, "export schema 3.25.0");
  EXPECT_EQ(back.run.source_file, "run.sqlite");
  EXPECT_EQ(back.run.host_ops_source, kHostOpsFromNvtx);
  ASSERT_EQ(back.source_gaps.size(), 1u);
  EXPECT_TRUE(back.lacks(kGapSynchronization));
  EXPECT_FALSE(back.lacks(kGapNvtx));
  ASSERT_EQ(back.host_ops.size(), 1u);
  EXPECT_EQ(back.strings.get(back.host_ops[0].name), "aten::addmm");
  EXPECT_EQ(back.strings.get(back.host_ops[0].input_shapes), "[[64, 512], [512, 512]]");
  EXPECT_EQ(back.host_ops[0].external_id, 42u);
  EXPECT_EQ(back.host_ops[0].sequence_number, 17);
  EXPECT_EQ(back.host_ops[0].depth, 1u);
  ASSERT_EQ(back.external_correlations.size(), 1u);
  EXPECT_EQ(back.external_correlations[0].correlation_id, 3u);
  EXPECT_EQ(back.external_correlations[0].external_id, 42u);
  EXPECT_EQ(back.strings.all(), original.strings.all());
  ASSERT_EQ(back.processes.size(), 1u);
  EXPECT_TRUE(back.processes[0].clean_shutdown);
  ASSERT_EQ(back.devices.size(), 1u);
  EXPECT_EQ(back.devices[0].name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(back.devices[0].global_memory_bytes, 85'000'000'000ull);
  ASSERT_EQ(back.kernels.size(), 1u);
  EXPECT_EQ(back.kernels[0].registers_per_thread, 197u);
  EXPECT_EQ(back.kernels[0].grid[0], 64);
  EXPECT_EQ(back.kernels[0].cluster[2], 1);
  EXPECT_EQ(back.kernels[0].graph_node_id, 1ull << 40);
  ASSERT_EQ(back.memcpys.size(), 1u);
  EXPECT_EQ(back.memcpys[0].kind, CopyKind::DtoH);
  EXPECT_EQ(back.memcpys[0].dst_kind, MemoryKind::Pageable);
  EXPECT_EQ(back.memcpys[0].bytes, 268'435'456u);
  ASSERT_EQ(back.memsets.size(), 1u);
  EXPECT_TRUE(back.memsets[0].async);
  ASSERT_EQ(back.memory_events.size(), 1u);
  EXPECT_EQ(back.memory_events[0].op, MemoryOp::Free);
  EXPECT_EQ(back.memory_events[0].address, 0xdead0000u);
  EXPECT_EQ(back.synchronizations[0].kind, SyncKind::ContextSynchronize);
  EXPECT_EQ(back.nvtx_ranges[0].kind, NvtxKind::PushPop);
  EXPECT_EQ(back.nvtx_marks.size(), 1u);
  EXPECT_EQ(back.overheads.size(), 1u);
  ASSERT_EQ(back.data_loss.size(), 1u);
  EXPECT_EQ(back.data_loss[0].count, 12u);
  ASSERT_EQ(back.streams.size(), 1u);
  EXPECT_EQ(back.streams[0].flag, StreamFlag::NonBlocking);
  EXPECT_EQ(back.streams[0].priority, -3);
  EXPECT_EQ(back.streams[0].stream, 13u);
  EXPECT_EQ(back.streams[0].correlation_id, 40u);
}

TEST(Store, FileIsPlainSqliteWithNamedViews) {
  const std::string path = testing::scratch_dir("views") + "/a.gpuscope";
  write_trace(path, sample_trace());
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT name, registers_per_thread FROM kernels_named", -1, &stmt, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0)), "bsr_spmm_kernel<128, 128, 32>");
  EXPECT_EQ(sqlite3_column_int(stmt, 1), 197);
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
}

std::string error_of(const std::string& path) {
  try {
    read_trace(path);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(Store, BadFilesGetClearErrors) {
  const std::string dir = testing::scratch_dir("bad");
  EXPECT_TRUE(contains(error_of(dir + "/missing.gpuscope"), "no such capture")) << error_of(dir + "/missing.gpuscope");

  std::ofstream(dir + "/text.gpuscope") << "kernel,duration\nfoo,1\n";
  EXPECT_TRUE(contains(error_of(dir + "/text.gpuscope"), "not an SQLite database"));

  testing::SpoolBuilder(1).write(dir + "/raw.spool");
  EXPECT_TRUE(contains(error_of(dir + "/raw.spool"), "gpuscope import"));

  sqlite3* db = nullptr;
  sqlite3_open((dir + "/foreign.db").c_str(), &db);
  sqlite3_exec(db, "CREATE TABLE x (a); INSERT INTO x VALUES (1);", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  EXPECT_TRUE(contains(error_of(dir + "/foreign.db"), "not a gpuscope capture"));
}

TEST(Store, NewerSchemaIsRefused) {
  const std::string path = testing::scratch_dir("newer") + "/a.gpuscope";
  write_trace(path, sample_trace());
  sqlite3* db = nullptr;
  sqlite3_open(path.c_str(), &db);
  sqlite3_exec(db, "UPDATE meta SET value = '99' WHERE key = 'schema_version'", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  const std::string message = error_of(path);
  EXPECT_TRUE(contains(message, "newer gpuscope")) << message;
  EXPECT_TRUE(contains(message, "v99")) << message;
}

// This build reads its own schema only: an older capture gets one line naming the gpuscope that
// reads it, whatever its tables hold (the version is checked before them).
TEST(Store, OlderSchemasAreRefusedWithTheReaderToUse) {
  const std::string path = testing::scratch_dir("older") + "/a.gpuscope";
  for (int version = 1; version < kSchemaVersion; ++version) {
    write_trace(path, sample_trace());
    testing::exec(path, "UPDATE meta SET value = '" + std::to_string(version) + "' WHERE key = 'schema_version'");
    const std::string message = error_of(path);
    EXPECT_TRUE(contains(message, "written by an older gpuscope (schema v" + std::to_string(version) +
                                      "; this one reads only v" + std::to_string(kSchemaVersion) + "): open it with " +
                                      older_reader_of(version, false)))
        << message;
    EXPECT_EQ(message.find('\n'), std::string::npos);
  }
  // The newest build that reads the file is named, with what it reads.
  EXPECT_EQ(older_reader_of(11, false), "gpuscope 0.1.0 built from commit 7491957, which reads schemas v11");
  EXPECT_EQ(older_reader_of(10, false), "gpuscope 0.1.0 built from commit 4ceb3eb, which reads schemas v10");
  EXPECT_EQ(older_reader_of(3, false), "gpuscope 0.1.0 built from commit f998382, which reads schemas v1 to v10");
  EXPECT_EQ(older_reader_of(5, true), "gpuscope 0.1.0 built from commit 4ceb3eb, which reads spool formats v5");
}

// A capture written by other means lacks a column: the message names the table as well.
TEST(Store, AMissingColumnIsNamedWithItsTable) {
  const std::string path = testing::scratch_dir("column") + "/a.gpuscope";
  write_trace(path, sample_trace());
  sqlite3* db = nullptr;
  sqlite3_open(path.c_str(), &db);
  ASSERT_EQ(sqlite3_exec(db,
                         "DROP VIEW kernel_metrics_named; DROP VIEW kernels_named; DROP VIEW kernels; "
                         "ALTER TABLE kernels_packed DROP COLUMN graph_id",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  const std::string message = error_of(path);
  EXPECT_TRUE(contains(message, "table kernels_packed has no column graph_id")) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos);
}

TEST(Store, TruncatedAndCorruptFilesAreRefused) {
  const std::string dir = testing::scratch_dir("damaged");
  Trace big = sample_trace();
  for (int i = 0; i < 20000; ++i) big.kernels.push_back(big.kernels[0]);
  write_trace(dir + "/a.gpuscope", big);
  const auto size = std::filesystem::file_size(dir + "/a.gpuscope");

  std::filesystem::copy_file(dir + "/a.gpuscope", dir + "/cut.gpuscope");
  std::filesystem::resize_file(dir + "/cut.gpuscope", size / 2);
  EXPECT_TRUE(contains(error_of(dir + "/cut.gpuscope"), "truncated")) << error_of(dir + "/cut.gpuscope");

  std::filesystem::copy_file(dir + "/a.gpuscope", dir + "/corrupt.gpuscope");
  {
    std::fstream f(dir + "/corrupt.gpuscope", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(size / 2));
    const std::string garbage(8192, '\x5A');
    f.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
  }
  EXPECT_TRUE(contains(error_of(dir + "/corrupt.gpuscope"), "corrupt")) << error_of(dir + "/corrupt.gpuscope");
}

}  // namespace
}  // namespace gpuscope

// The nsys SQLite importer on real exports: every count equals what plain SQL finds in the
// file, names and ids decode, and schema drift (trimmed files, _V2 tables, unknown tables,
// graph launches) imports what is known and says what is not.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "common/error.h"
#include "importers/importer.h"
#include "nsys_test_util.h"
#include "spool_builder.h"
#include "test_files.h"

namespace gpuscope {
namespace {

using testing::edited_copy;
using testing::nsys_fixture;
using testing::sql_integer;

const DataLoss* find_loss(const Trace& t, const std::string& what) {
  for (const DataLoss& d : t.data_loss)
    if (d.what == what) return &d;
  return nullptr;
}

// The pids of every table whose records become processes, by plain SQL.
std::set<uint32_t> sql_pids(const std::string& path) {
  std::set<uint32_t> pids;
  store::Database db(path, store::Database::Mode::ReadOnly);
  const std::pair<const char*, const char*> sources[] = {{"CUPTI_ACTIVITY_KIND_RUNTIME", "globalTid"},
                                                         {"CUPTI_ACTIVITY_KIND_KERNEL", "globalPid"},
                                                         {"CUPTI_ACTIVITY_KIND_MEMCPY", "globalPid"},
                                                         {"CUPTI_ACTIVITY_KIND_MEMSET", "globalPid"},
                                                         {"CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "globalPid"},
                                                         {"NVTX_EVENTS", "globalTid"},
                                                         {"PROFILER_OVERHEAD", "globalTid"},
                                                         {"CUPTI_ACTIVITY_KIND_OVERHEAD", "globalTid"}};
  for (const auto& [table, column] : sources) {
    if (!db.has_table(table)) continue;
    auto has_column = db.prepare(std::string("SELECT 1 FROM pragma_table_info('") + table + "') WHERE name = '" +
                                 column + "'");
    if (!has_column.next()) continue;
    auto q = db.prepare(std::string("SELECT DISTINCT ") + column + " / 16777216 % 16777216 FROM " + table);
    while (q.next()) pids.insert(static_cast<uint32_t>(q.integer(0)));
  }
  return pids;
}

struct Expected {
  int64_t kernels, api_calls, memcpys, memcpy_bytes, memsets, syncs, nvtx_ranges, nvtx_marks;
};

Expected sql_counts(const std::string& path) {
  return {sql_integer(path, "SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"),
          sql_integer(path, "SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME"),
          sql_integer(path, "SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY"),
          sql_integer(path, "SELECT TOTAL(bytes) FROM CUPTI_ACTIVITY_KIND_MEMCPY"),
          sql_integer(path, "SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_MEMSET"),
          sql_integer(path, "SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"),
          sql_integer(path, "SELECT COUNT(*) FROM NVTX_EVENTS WHERE eventType IN (59, 60) AND end IS NOT NULL"),
          sql_integer(path, "SELECT COUNT(*) FROM NVTX_EVENTS WHERE eventType = 34")};
}

class NsysFixtures : public ::testing::TestWithParam<const char*> {};

TEST_P(NsysFixtures, CountsEqualWhatTheFileHolds) {
  const std::string path = nsys_fixture(GetParam());
  GPUSCOPE_NEED_NSYS_FIXTURE(path);
  const Trace t = load_trace(path);
  const Expected e = sql_counts(path);
  EXPECT_EQ(static_cast<int64_t>(t.kernels.size()), e.kernels);
  EXPECT_EQ(static_cast<int64_t>(t.api_calls.size()), e.api_calls);
  EXPECT_EQ(static_cast<int64_t>(t.memcpys.size()), e.memcpys);
  uint64_t bytes = 0;
  for (const Memcpy& m : t.memcpys) bytes += m.bytes;
  EXPECT_EQ(static_cast<int64_t>(bytes), e.memcpy_bytes);
  EXPECT_EQ(static_cast<int64_t>(t.memsets.size()), e.memsets);
  EXPECT_EQ(static_cast<int64_t>(t.synchronizations.size()), e.syncs);
  // emit_nvtx's op ranges became host ops (src/importers/torch_nvtx/); the other ranges stay NVTX.
  EXPECT_EQ(static_cast<int64_t>(t.nvtx_ranges.size() + t.host_ops.size()), e.nvtx_ranges);
  EXPECT_EQ(t.run.host_ops_source, t.host_ops.empty() ? "" : kHostOpsFromNvtx);
  EXPECT_EQ(static_cast<int64_t>(t.nvtx_marks.size()), e.nvtx_marks);

  std::set<uint32_t> pids;
  for (const Process& p : t.processes) pids.insert(p.pid);
  EXPECT_EQ(pids, sql_pids(path));
  EXPECT_EQ(t.run.source_tool, "nsys");
  EXPECT_EQ(t.run.source_file, path);
  EXPECT_EQ(t.run.source_schema.rfind("export schema 3.2", 0), 0u) << t.run.source_schema;
  EXPECT_EQ(t.run.exit_code, -1);
  EXPECT_LE(t.run.start, t.run.end);
}

TEST_P(NsysFixtures, NamesResolveThroughStringIds) {
  const std::string path = nsys_fixture(GetParam());
  GPUSCOPE_NEED_NSYS_FIXTURE(path);
  const Trace t = load_trace(path);
  // The kernel that starts first, by SQL, and its demangled name.
  store::Database db(path, store::Database::Mode::ReadOnly);
  auto first = db.prepare(
      "SELECT s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.demangledName "
      "ORDER BY k.start LIMIT 1");
  ASSERT_TRUE(first.next());
  ASSERT_FALSE(t.kernels.empty());
  EXPECT_EQ(t.strings.get(t.kernels.front().name), first.text(0));
  for (const Kernel& k : t.kernels) EXPECT_EQ(t.strings.get(k.name).find("<nsys string"), std::string::npos);
  // API names lose nsys's _vNNNN suffix: analyses match "cudaLaunchKernel".
  bool launch = false;
  for (const ApiCall& c : t.api_calls) {
    const std::string& name = t.strings.get(c.name);
    EXPECT_EQ(name.find("_v7000"), std::string::npos) << name;
    launch = launch || name == "cudaLaunchKernel";
  }
  EXPECT_TRUE(launch);
  EXPECT_EQ(find_loss(t, "nsys_unresolved_names"), nullptr);
}

INSTANTIATE_TEST_SUITE_P(Nsys, NsysFixtures, ::testing::Values("h100_2gpu_1s", "mock", "healthy_1pct"));

TEST(NsysImport, MultiProcessExportGivesProcessesWithTheirDevices) {
  const std::string path = nsys_fixture("h100_2gpu_1s");
  GPUSCOPE_NEED_NSYS_FIXTURE(path);
  const Trace t = load_trace(path);
  ASSERT_EQ(t.processes.size(), 2u);
  EXPECT_EQ(t.processes[0].pid, 111u);
  EXPECT_EQ(t.processes[1].pid, 112u);
  EXPECT_EQ(t.processes[0].command_line, "python3");
  ASSERT_EQ(t.devices.size(), 2u);
  EXPECT_EQ(std::make_pair(t.devices[0].pid, t.devices[0].id), std::make_pair(111u, 0u));
  EXPECT_EQ(std::make_pair(t.devices[1].pid, t.devices[1].id), std::make_pair(112u, 1u));
  EXPECT_TRUE(t.lacks(kGapDevices));  // no TARGET_INFO_GPU in this file
  EXPECT_FALSE(t.lacks(kGapApiCalls));
  EXPECT_TRUE(t.lacks(kGapMemoryEvents));
  // pid and tid come from globalTid: the same pairs plain SQL decodes.
  std::set<std::pair<uint32_t, uint32_t>> threads, sql_threads;
  for (const ApiCall& c : t.api_calls) threads.emplace(c.pid, c.tid);
  store::Database db(path, store::Database::Mode::ReadOnly);
  auto q = db.prepare(
      "SELECT DISTINCT globalTid / 16777216 % 16777216, globalTid % 16777216 FROM CUPTI_ACTIVITY_KIND_RUNTIME");
  while (q.next()) sql_threads.emplace(static_cast<uint32_t>(q.integer(0)), static_cast<uint32_t>(q.integer(1)));
  EXPECT_EQ(threads, sql_threads);
  // Memory kinds through ENUM_CUDA_MEM_KIND: pinned host-to-device copies as the file says.
  const int64_t pinned = sql_integer(
      path, "SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE copyKind = 1 AND srcKind = 1");
  EXPECT_EQ(std::count_if(t.memcpys.begin(), t.memcpys.end(),
                          [](const Memcpy& m) { return m.kind == CopyKind::HtoD && m.src_kind == MemoryKind::Pinned; }),
            pinned);
  // Copies issued by cudaMemcpyAsync are async (nsys has no flag; the API name tells).
  const int64_t async = sql_integer(
      path,
      "SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY m WHERE EXISTS (SELECT 1 FROM CUPTI_ACTIVITY_KIND_RUNTIME r "
      "JOIN StringIds s ON s.id = r.nameId WHERE r.correlationId = m.correlationId AND "
      "r.globalTid / 16777216 = m.globalPid / 16777216 AND s.value LIKE '%Async%')");
  EXPECT_GT(async, 0);
  EXPECT_EQ(std::count_if(t.memcpys.begin(), t.memcpys.end(), [](const Memcpy& m) { return m.async; }), async);
}

// TARGET_INFO_CUDA_STREAM: every stream with its process, flag and signed priority (the file
// stores CUPTI's unsigned field: 4294967293 is -3).
TEST(NsysImport, StreamsComeWithTheirFlagAndPriority) {
  const std::string path = nsys_fixture("h100_2gpu_1s");
  GPUSCOPE_NEED_NSYS_FIXTURE(path);
  const Trace t = load_trace(path);
  EXPECT_EQ(static_cast<int64_t>(t.streams.size()), sql_integer(path, "SELECT COUNT(*) FROM TARGET_INFO_CUDA_STREAM"));
  const auto count = [&](StreamFlag flag, int32_t priority) {
    return std::count_if(t.streams.begin(), t.streams.end(),
                         [&](const Stream& s) { return s.flag == flag && s.priority == priority; });
  };
  EXPECT_EQ(count(StreamFlag::NonBlocking, -3),
            sql_integer(path, "SELECT COUNT(*) FROM TARGET_INFO_CUDA_STREAM WHERE flag = 2 AND priority = 4294967293"));
  EXPECT_GT(count(StreamFlag::NonBlocking, -3), 0);
  EXPECT_EQ(count(StreamFlag::Blocking, 0),
            sql_integer(path, "SELECT COUNT(*) FROM TARGET_INFO_CUDA_STREAM WHERE flag = 1"));
  for (const Stream& s : t.streams) EXPECT_TRUE(s.pid == 111u || s.pid == 112u) << s.pid;
}

TEST(NsysImport, DevicePropertiesAndWallClockTimes) {
  const std::string path = nsys_fixture("mock");
  GPUSCOPE_NEED_NSYS_FIXTURE(path);
  const Trace t = load_trace(path);
  ASSERT_EQ(t.devices.size(), 1u);
  const Device& d = t.devices[0];
  EXPECT_EQ(d.name, "NVIDIA GeForce RTX 3080");
  EXPECT_EQ(d.sm_count, 68u);
  EXPECT_EQ(d.compute_major, 8u);
  EXPECT_EQ(d.compute_minor, 6u);
  EXPECT_EQ(d.max_warps_per_sm, 48u);
  EXPECT_EQ(d.pid, 91186u);
  EXPECT_FALSE(t.lacks(kGapDevices));
  // Times: session-relative ns + TARGET_INFO_SESSION_START_TIME.utcEpochNs.
  const int64_t epoch = sql_integer(path, "SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME");
  const int64_t first = sql_integer(path, "SELECT MIN(start) FROM CUPTI_ACTIVITY_KIND_KERNEL");
  ASSERT_FALSE(t.kernels.empty());
  EXPECT_EQ(t.kernels.front().start, epoch + first);
  EXPECT_EQ(t.run.host, "DESKTOP-KBEMEQS");
  EXPECT_NE(t.run.command_line.find("import torch"), std::string::npos);
  EXPECT_EQ(t.run.source_version, "2026.1.1.204");
  // Driver calls share the RUNTIME table, told apart by eventClass.
  EXPECT_EQ(std::count_if(t.api_calls.begin(), t.api_calls.end(),
                          [](const ApiCall& c) { return c.domain == ApiDomain::Driver; }),
            sql_integer(path, "SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE eventClass = 1"));
  EXPECT_EQ(
      static_cast<int64_t>(t.overheads.size()),
      sql_integer(
          path,
          "SELECT (SELECT COUNT(*) FROM PROFILER_OVERHEAD) + (SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_OVERHEAD)"));
  EXPECT_NE(find_loss(t, "nsys_diagnostic"), nullptr);  // nsys's own warning about unified memory
}

TEST(NsysImport, TrimmedExportListsWhatItLacks) {
  const std::string path = nsys_fixture("healthy_1pct");
  GPUSCOPE_NEED_NSYS_FIXTURE(path);
  const Trace t = load_trace(path);
  for (const char* gap :
       {kGapLaunchConfig, kGapCopyMemoryKinds, kGapSynchronization, kGapNvtx, kGapMemoryEvents, kGapDevices})
    EXPECT_TRUE(t.lacks(gap)) << gap;
  EXPECT_FALSE(t.lacks(kGapApiCalls));
  EXPECT_EQ(t.devices.size(), 1u);
  EXPECT_EQ(t.devices[0].name, "NVIDIA H100 80GB HBM3");
  EXPECT_NE(find_loss(t, "nsys_relative_times"), nullptr);  // no session start: times stay relative
  EXPECT_EQ(t.kernels[0].block[0], 256);
}

TEST(NsysImport, GraphLaunchesBecomeGpuWorkAndSaySoInDataQuality) {
  const std::string path = nsys_fixture("mock");
  GPUSCOPE_NEED_NSYS_FIXTURE(path);
  const std::string dir = testing::scratch_dir("nsys_graphs");
  const std::string copy = edited_copy(
      path, dir, "graphs.sqlite",
      "CREATE TABLE CUPTI_ACTIVITY_KIND_GRAPH_TRACE (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER, "
      "contextId INTEGER, greenContextId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER, "
      "graphId INTEGER, graphExecId INTEGER);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_GRAPH_TRACE VALUES (1600000000, 1600100000, 0, 1, NULL, 7, 900, "
      "283004823928832, 7, 1),"
      " (1600200000, 1600300000, 0, 1, NULL, 7, 901, 283004823928832, 7, 1),"
      " (1600400000, 1600450000, 0, 1, NULL, 7, 902, 283004823928832, 8, 2);");
  const Trace t = load_trace(copy);
  EXPECT_EQ(t.kernels.size(), 2u + 3u);
  EXPECT_EQ(std::count_if(t.kernels.begin(), t.kernels.end(),
                          [&](const Kernel& k) { return t.strings.get(k.name) == "CUDA graph 7" && k.graph_id == 7; }),
            2);
  const DataLoss* loss = find_loss(t, "nsys_graph_launches");
  ASSERT_NE(loss, nullptr);
  EXPECT_EQ(loss->count, 3u);
  EXPECT_NE(loss->detail.find("--cuda-graph-trace=node"), std::string::npos);
}

TEST(NsysImport, NvtxTypesDomainsAndMemoryUsage) {
  const std::string path = nsys_fixture("mock");
  GPUSCOPE_NEED_NSYS_FIXTURE(path);
  const std::string dir = testing::scratch_dir("nsys_nvtx");
  // Rows out of order on purpose (nsys 2025.6+): the domain is created after its first use.
  const std::string copy = edited_copy(
      path, dir, "nvtx.sqlite",
      "CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, text TEXT, "
      "globalTid INTEGER, textId INTEGER, domainId INTEGER);"
      "INSERT INTO NVTX_EVENTS VALUES (1500000000, 1500500000, 59, 'step', 283004824020018, NULL, 5),"
      " (1400000000, NULL, 75, 'trainer', 283004824020018, NULL, 5),"
      " (1500100000, 1500200000, 59, NULL, 283004824020018, 142, 0),"
      " (1500300000, 1500400000, 60, 'async', 283004824020018, NULL, 0),"
      " (1500350000, NULL, 34, 'here', 283004824020018, NULL, 0),"
      " (1500360000, NULL, 59, 'open', 283004824020018, NULL, 0),"
      " (1500370000, NULL, 33, 'category', 283004824020018, NULL, 0);"
      "CREATE TABLE CUDA_GPU_MEMORY_USAGE_EVENTS (start INTEGER NOT NULL, globalPid INTEGER, deviceId INTEGER, "
      "contextId INTEGER, address INTEGER, bytes INTEGER, memKind INTEGER, memoryOperationType INTEGER, "
      "correlationId INTEGER, streamId INTEGER);"
      "INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS VALUES (1499000000, 283004823928832, 0, 1, 4096, 1048576, 2, 0, 135, "
      "0),"
      " (1541000000, 283004823928832, 0, 1, 4096, 1048576, 2, 1, 0, 0);");
  const Trace t = load_trace(copy);
  ASSERT_EQ(t.nvtx_ranges.size(), 3u);
  EXPECT_EQ(t.strings.get(t.nvtx_ranges[0].name), "step");
  EXPECT_EQ(t.strings.get(t.nvtx_ranges[0].domain), "trainer");
  EXPECT_EQ(t.nvtx_ranges[1].depth, 1u);  // nested in "step" on the same thread
  EXPECT_EQ(t.strings.get(t.nvtx_ranges[1].name), [&] {
    store::Database db(copy, store::Database::Mode::ReadOnly);
    auto q = db.prepare("SELECT value FROM StringIds WHERE id = 142");
    q.next();
    return q.text(0);
  }());
  EXPECT_EQ(t.nvtx_ranges[2].kind, NvtxKind::StartEnd);
  EXPECT_EQ(t.nvtx_ranges[0].tid, 91186u);
  ASSERT_EQ(t.nvtx_marks.size(), 1u);
  EXPECT_EQ(t.strings.get(t.nvtx_marks[0].name), "here");
  ASSERT_NE(find_loss(t, "nvtx_unclosed"), nullptr);
  EXPECT_EQ(find_loss(t, "nvtx_unclosed")->count, 1u);
  ASSERT_NE(find_loss(t, "nsys_skipped"), nullptr);
  EXPECT_NE(find_loss(t, "nsys_skipped")->detail.find("NvtxCategory (1)"), std::string::npos);

  ASSERT_EQ(t.memory_events.size(), 2u);
  EXPECT_EQ(t.memory_events[0].op, MemoryOp::Alloc);
  EXPECT_EQ(t.memory_events[1].op, MemoryOp::Free);
  EXPECT_EQ(t.memory_events[0].memory_kind, MemoryKind::Device);
  EXPECT_FALSE(t.lacks(kGapMemoryEvents));
  EXPECT_FALSE(t.lacks(kGapNvtx));
}

TEST(NsysImport, NewestTableVersionWinsAndUnknownTablesAreListed) {
  const std::string path = nsys_fixture("mock");
  GPUSCOPE_NEED_NSYS_FIXTURE(path);
  const std::string dir = testing::scratch_dir("nsys_drift");
  // A later schema's _V2 kernel table with a column this importer does not know, and a record
  // table it does not read.
  const std::string copy = edited_copy(
      path, dir, "drift.sqlite",
      "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL_V2 AS SELECT 42 AS futureColumn, * FROM CUPTI_ACTIVITY_KIND_KERNEL "
      "LIMIT 1;"
      "CREATE TABLE OSRT_API (start INTEGER, end INTEGER, globalTid INTEGER, nameId INTEGER);"
      "INSERT INTO OSRT_API VALUES (1, 2, 3, 4), (5, 6, 7, 8);");
  const Trace t = load_trace(copy);
  EXPECT_EQ(t.kernels.size(), 1u);
  bool listed = false;
  for (const DataLoss& d : t.data_loss)
    listed = listed || (d.what == "nsys_skipped" && d.count == 2 && d.detail.rfind("OSRT_API", 0) == 0);
  EXPECT_TRUE(listed);
}

// Times near INT64_MAX (a hostile export): one line naming the time, not a wrapped one.
TEST(NsysImport, ATimePastTheRangeOfATimeIsAnError) {
  const std::string path = nsys_fixture("mock");
  GPUSCOPE_NEED_NSYS_FIXTURE(path);
  const std::string dir = testing::scratch_dir("nsys_time_range");
  const std::string copy = edited_copy(path, dir, "late.sqlite",
                                       "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET end = 9223372036854775807;");
  try {
    (void)load_trace(copy);
    ADD_FAILURE() << "imported";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("late.sqlite: a time out of range: 9223372036854775807 ns after a session "
                                         "start of "),
              std::string::npos)
        << e.what();
  }
}

// A kernel "table" that is a recursive view (a hostile export): never queried, so the import
// ends at once, without those kernels, and says the view was not read.
TEST(NsysImport, AViewIsListedNotRun) {
  const std::string path = nsys_fixture("mock");
  GPUSCOPE_NEED_NSYS_FIXTURE(path);
  const std::string dir = testing::scratch_dir("nsys_view");
  const std::string copy = edited_copy(
      path, dir, "view.sqlite",
      "DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL;"
      "CREATE VIEW CUPTI_ACTIVITY_KIND_KERNEL AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) "
      "SELECT i AS start, i + 1 AS end, 0 AS deviceId, 0 AS streamId, 0 AS correlationId FROM n;");
  const Trace t = load_trace(copy);
  EXPECT_TRUE(t.kernels.empty());
  EXPECT_TRUE(std::any_of(t.data_loss.begin(), t.data_loss.end(), [](const DataLoss& d) {
    return d.what == "nsys_skipped" && d.detail.starts_with("CUPTI_ACTIVITY_KIND_KERNEL: a view, not read");
  }));
}

TEST(NsysImport, ThroughImportBytes) {
  const std::string path = nsys_fixture("mock");
  GPUSCOPE_NEED_NSYS_FIXTURE(path);
  const std::string bytes = testing::read_text_file(path);
  Trace t;
  EXPECT_EQ(import_bytes(bytes, t), "");
  EXPECT_EQ(t.kernels.size(), 2u);
  EXPECT_EQ(t.run.source_tool, "nsys");

  for (const std::string& bad :
       {bytes.substr(0, bytes.size() / 2), std::string("SQLite format 3") + std::string(200, '\x7f'),
        std::string(4096, '\0'), bytes.substr(0, 100)}) {
    Trace junk;
    EXPECT_NE(import_bytes(bad, junk), "");
  }
  // Damage inside the database pages, past the header: one line, never a crash.
  std::string damaged = bytes;
  for (size_t at = 8192; at < damaged.size(); at += 4096) damaged[at + 100] = '\xff';
  Trace broken;
  const std::string error = import_bytes(damaged, broken);
  EXPECT_EQ(error.find('\n'), std::string::npos);
}

}  // namespace
}  // namespace gpuscope

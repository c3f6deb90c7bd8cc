// The packed event tables: times as offsets and durations, enums as codes, launch
// configurations once each, and views that give back the documented columns.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdint>
#include <limits>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/error.h"
#include "gpuscope/store.h"
#include "spool_builder.h"
#include "sql_rows.h"
#include "test_files.h"

namespace gpuscope {
namespace {

constexpr TimeNs kRunStart = 1'795'800'000'000'000'000;

using testing::exec;
using testing::query;

Kernel kernel(StringId name, int32_t grid_x, TimeNs start, TimeNs end) {
  Kernel k;
  k.pid = 100;
  k.name = k.mangled_name = name;
  k.grid[0] = grid_x;
  k.block[0] = 256;
  k.registers_per_thread = 40;
  k.start = start;
  k.end = end;
  return k;
}

Trace coded_trace() {
  Trace t;
  t.run.start = kRunStart;
  t.run.end = kRunStart + 1'000'000;
  const StringId launch = t.strings.intern("cuLaunchKernel");
  t.api_calls.push_back({100, 7, ApiDomain::Driver, 307, launch, kRunStart + 10, kRunStart + 20, 0, 1});
  Memcpy m;
  m.kind = CopyKind::PtoP;
  m.src_kind = MemoryKind::Pinned;
  m.dst_kind = MemoryKind::ManagedStatic;
  m.start = kRunStart + 30;
  m.end = kRunStart + 40;
  t.memcpys.push_back(m);
  t.synchronizations.push_back({100, 7, 1, 7, SyncKind::ContextSynchronize, kRunStart + 50, kRunStart + 60, 5});
  t.memory_events.push_back({100, 0, 1, 0, MemoryOp::Free, MemoryKind::Device, 0xdead0000, 4096, kRunStart + 70, 4});
  t.nvtx_ranges.push_back({100, 7, NvtxKind::StartEnd, 0, t.strings.intern("step"), kRunStart, kRunStart + 90, 0});
  return t;
}

// The codes are the file format: each enum's values are pinned here, as docs/schema.md lists them.
TEST(PackedStore, CodesKeepTheirMeaning) {
  const std::string path = testing::scratch_dir("packed_codes") + "/a.gpuscope";
  write_trace(path, coded_trace());
  EXPECT_EQ(query(path, "SELECT domain FROM api_calls_packed"), std::vector<std::string>{"1"});
  EXPECT_EQ(query(path, "SELECT domain FROM api_calls"), std::vector<std::string>{"driver"});
  EXPECT_EQ(query(path, "SELECT copy_kind, src_kind, dst_kind FROM memcpys_packed"),
            std::vector<std::string>{"10\t2\t7"});
  EXPECT_EQ(query(path, "SELECT copy_kind, src_kind, dst_kind FROM memcpys"),
            std::vector<std::string>{"PtoP\tpinned\tmanaged_static"});
  EXPECT_EQ(query(path, "SELECT sync_kind FROM synchronizations_packed"), std::vector<std::string>{"4"});
  EXPECT_EQ(query(path, "SELECT sync_kind FROM synchronizations"), std::vector<std::string>{"context_synchronize"});
  EXPECT_EQ(query(path, "SELECT op, memory_kind FROM memory_events_packed"), std::vector<std::string>{"1\t3"});
  EXPECT_EQ(query(path, "SELECT op, memory_kind FROM memory_events"), std::vector<std::string>{"free\tdevice"});
  EXPECT_EQ(query(path, "SELECT kind FROM nvtx_ranges_packed"), std::vector<std::string>{"1"});
  EXPECT_EQ(query(path, "SELECT kind FROM nvtx_ranges"), std::vector<std::string>{"start_end"});

  const Trace back = read_trace(path);
  EXPECT_EQ(back.api_calls[0].domain, ApiDomain::Driver);
  EXPECT_EQ(back.memcpys[0].kind, CopyKind::PtoP);
  EXPECT_EQ(back.memcpys[0].dst_kind, MemoryKind::ManagedStatic);
  EXPECT_EQ(back.synchronizations[0].kind, SyncKind::ContextSynchronize);
  EXPECT_EQ(back.memory_events[0].op, MemoryOp::Free);
  EXPECT_EQ(back.nvtx_ranges[0].kind, NvtxKind::StartEnd);
}

TEST(PackedStore, TimesAreOffsetsAndDurationsThatTheViewsMakeAbsolute) {
  const std::string path = testing::scratch_dir("packed_times") + "/a.gpuscope";
  write_trace(path, coded_trace());
  EXPECT_EQ(query(path, "SELECT start_offset_ns, duration_ns FROM api_calls_packed"),
            std::vector<std::string>{"10\t10"});
  EXPECT_EQ(query(path, "SELECT start_ns, end_ns, duration_ns FROM api_calls"),
            std::vector<std::string>{std::to_string(kRunStart + 10) + "\t" + std::to_string(kRunStart + 20) + "\t10"});
  EXPECT_EQ(query(path, "SELECT timestamp_ns FROM memory_events"),
            std::vector<std::string>{std::to_string(kRunStart + 70)});
}

// Imported files carry whatever times they carry; the wrapping offsets give each back exactly.
TEST(PackedStore, ExtremeTimesReadBackExactly) {
  constexpr TimeNs kMin = std::numeric_limits<TimeNs>::min(), kMax = std::numeric_limits<TimeNs>::max();
  Trace t = coded_trace();
  const StringId name = t.strings.intern("k");
  t.kernels = {kernel(name, 1, kMin, kMax), kernel(name, 1, kMax, kMin), kernel(name, 1, 0, 0)};
  t.nvtx_marks.push_back({100, 7, 0, name, kMin});
  const std::string path = testing::scratch_dir("packed_extremes") + "/a.gpuscope";
  write_trace(path, t);
  const Trace back = read_trace(path);
  ASSERT_EQ(back.kernels.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(back.kernels[i].start, t.kernels[i].start) << i;
    EXPECT_EQ(back.kernels[i].end, t.kernels[i].end) << i;
  }
  EXPECT_EQ(back.nvtx_marks.at(0).timestamp, kMin);
}

TEST(PackedStore, EachLaunchConfigurationIsStoredOnce) {
  Trace t = coded_trace();
  const StringId gemm = t.strings.intern("gemm"), relu = t.strings.intern("relu");
  for (int i = 0; i < 300; ++i)
    t.kernels.push_back(
        kernel(i % 3 == 2 ? relu : gemm, i % 3 == 1 ? 128 : 64, kRunStart + i * 100, kRunStart + i * 100 + 50));
  t.kernels[7].cluster[1] = 2;  // one launch of its own
  const std::string path = testing::scratch_dir("packed_launches") + "/a.gpuscope";
  write_trace(path, t);
  EXPECT_EQ(query(path, "SELECT COUNT(*) FROM kernel_launches"), std::vector<std::string>{"4"});
  EXPECT_EQ(query(path, "SELECT grid_x, COUNT(*) FROM kernels GROUP BY grid_x ORDER BY grid_x"),
            (std::vector<std::string>{"64\t200", "128\t100"}));
  const Trace back = read_trace(path);
  ASSERT_EQ(back.kernels.size(), t.kernels.size());
  for (size_t i = 0; i < t.kernels.size(); ++i) {
    EXPECT_EQ(back.kernels[i].name, t.kernels[i].name) << i;
    EXPECT_EQ(back.kernels[i].grid[0], t.kernels[i].grid[0]) << i;
    EXPECT_EQ(back.kernels[i].cluster[1], t.kernels[i].cluster[1]) << i;
    EXPECT_EQ(back.kernels[i].registers_per_thread, 40u) << i;
    EXPECT_EQ(back.kernels[i].end, t.kernels[i].end) << i;
  }
}

TEST(PackedStore, AKernelWithAnUnknownLaunchIsACorruptCapture) {
  Trace t = coded_trace();
  t.kernels.push_back(kernel(t.strings.intern("k"), 1, kRunStart, kRunStart + 5));
  const std::string path = testing::scratch_dir("packed_bad_launch") + "/a.gpuscope";
  write_trace(path, t);
  exec(path, "UPDATE kernels_packed SET launch_id = 9");
  try {
    read_trace(path);
    FAIL() << "read a kernel whose launch configuration is missing";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("corrupt capture"), std::string::npos) << message;
    EXPECT_NE(message.find("kernel_launches"), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos);
  }
}

// A view rewritten in the file (here a recursive one, which would never end) is a corrupt
// capture for every reader of the file, `query` included, before any SQL of the user runs; a view
// of the user's own beside gpuscope's is left alone.
TEST(PackedStore, ARewrittenViewIsACorruptCaptureAndQueryNeverRunsIt) {
  const std::string dir = testing::scratch_dir("packed_rewritten_view");
  const std::string path = dir + "/a.gpuscope";
  write_trace(path, coded_trace());
  exec(path, "CREATE VIEW mine AS SELECT count(*) FROM kernels");
  EXPECT_NO_THROW(read_trace(path));
  exec(path,
       "DROP VIEW kernels_named; DROP VIEW kernel_metrics_named; DROP VIEW mine; DROP VIEW kernels; "
       "CREATE VIEW kernels AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) "
       "SELECT i AS pid FROM n");
  try {
    read_trace(path);
    FAIL() << "read a capture whose kernels view was rewritten";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("corrupt capture (its view 'kernels' is not the one gpuscope writes"),
              std::string::npos)
        << e.what();
  }
  const testing::CliResult r = testing::run_gpuscope(dir, "query a.gpuscope 'SELECT count(*) FROM kernels'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("its view 'kernels' is not the one gpuscope writes"), std::string::npos) << r.err;
  exec(path, "DROP VIEW kernels");
  EXPECT_THROW(read_trace(path), Error);  // missing views
}

// The views are the tables' public face (docs/schema.md): SQL reads these columns, whatever the
// packed storage underneath, plus duration_ns beside every end_ns.
TEST(PackedStore, ViewsShowTheDocumentedColumns) {
  const std::string path = testing::scratch_dir("packed_views") + "/a.gpuscope";
  write_trace(path, coded_trace());
  const std::pair<std::string, std::string> documented[] = {
      {"api_calls", "pid tid domain cbid name_id start_ns end_ns duration_ns return_code correlation_id run_id"},
      {"kernels",
       "pid device context stream mangled_name_id name_id start_ns end_ns duration_ns grid_x grid_y grid_z block_x "
       "block_y block_z cluster_x cluster_y cluster_z registers_per_thread static_shared_bytes dynamic_shared_bytes "
       "local_bytes_per_thread correlation_id graph_id graph_node_id run_id"},
      {"memcpys",
       "pid device context stream copy_kind src_kind dst_kind async bytes start_ns end_ns duration_ns correlation_id "
       "graph_id run_id"},
      {"memsets",
       "pid device context stream memory_kind async bytes value start_ns end_ns duration_ns correlation_id graph_id "
       "run_id"},
      {"memory_events", "pid device context stream op memory_kind address bytes timestamp_ns correlation_id run_id"},
      {"synchronizations", "pid tid context stream sync_kind start_ns end_ns duration_ns correlation_id run_id"},
      {"nvtx_ranges", "pid tid kind domain_id name_id start_ns end_ns duration_ns depth run_id"},
      {"nvtx_marks", "pid tid domain_id name_id timestamp_ns run_id"},
      {"gpu_metric_samples", "pid device start_ns end_ns duration_ns metric_id value run_id"},
      {"host_ops",
       "pid tid name_id category_id start_ns end_ns duration_ns external_id sequence_number input_shapes_id depth "
       "run_id"},
  };
  for (const auto& [view, columns] : documented) {
    std::set<std::string> expected, shown;
    std::istringstream words(columns);
    for (std::string word; words >> word;) expected.insert(word);
    for (const std::string& row : query(path, "SELECT name FROM pragma_table_info('" + view + "')")) shown.insert(row);
    EXPECT_EQ(shown, expected) << view;
  }
}

}  // namespace
}  // namespace gpuscope

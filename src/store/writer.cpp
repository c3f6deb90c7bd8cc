// Writes a Trace into a new SQLite file. The file appears under its final name
// only when complete (written to PATH.tmp, then renamed), so a reader never sees
// a half-written capture.
#include <cstdio>
#include <filesystem>

#include "common/error.h"
#include "gpuscope/store.h"
#include "store/table_io.h"

namespace gpuscope {

namespace {

template <class Row>
void write_table(store::Database& db, const store::TableSpec<Row>& spec, const std::vector<Row>& rows,
                 store::RowCodec& codec) {
  store::create_table(db, spec);
  store::insert_rows(db, spec, rows, codec);
}

void write_all(store::Database& db, const Trace& trace) {
  // A fresh file that is renamed into place when done: no journal needed.
  db.exec("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA page_size = 4096;");
  db.exec("PRAGMA user_version = " + std::to_string(kSchemaVersion));
  db.exec("BEGIN");
  db.exec("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
  auto meta = db.prepare("INSERT INTO meta VALUES (?, ?)");
  meta.bind(1, std::string_view("format")).bind(2, std::string_view("gpuscope")).run();
  meta.bind(1, std::string_view("schema_version")).bind(2, std::to_string(kSchemaVersion)).run();
  meta.bind(1, std::string_view("writer")).bind(2, std::string_view("gpuscope " GPUSCOPE_VERSION)).run();

  db.exec("CREATE TABLE strings (id INTEGER PRIMARY KEY, value TEXT NOT NULL)");
  auto insert_string = db.prepare("INSERT INTO strings VALUES (?, ?)");
  for (size_t id = 0; id < trace.strings.size(); ++id)
    insert_string.bind(1, static_cast<int64_t>(id)).bind(2, trace.strings.all()[id]).run();

  store::RowCodec codec;
  codec.time_base = trace.run.start;  // packed times are offsets from the run's start
  write_table(db, store::run_table(), std::vector<Run>{trace.run}, codec);
  write_table(db, store::bench_run_table(), trace.runs, codec);
  write_table(db, store::process_table(), trace.processes, codec);
  write_table(db, store::device_table(), trace.devices, codec);
  write_table(db, store::api_call_table(), trace.api_calls, codec);
  write_table(db, store::kernel_table(), trace.kernels, codec);
  write_table(db, store::kernel_launch_table(), codec.launches, codec);  // filled by the kernels
  write_table(db, store::memcpy_table(), trace.memcpys, codec);
  write_table(db, store::memset_table(), trace.memsets, codec);
  write_table(db, store::memory_event_table(), trace.memory_events, codec);
  write_table(db, store::synchronization_table(), trace.synchronizations, codec);
  write_table(db, store::nvtx_range_table(), trace.nvtx_ranges, codec);
  write_table(db, store::nvtx_mark_table(), trace.nvtx_marks, codec);
  write_table(db, store::overhead_table(), trace.overheads, codec);
  write_table(db, store::data_loss_table(), trace.data_loss, codec);
  write_table(db, store::kernel_metric_table(), trace.kernel_metrics, codec);
  write_table(db, store::gpu_metric_sample_table(), trace.gpu_metric_samples, codec);
  write_table(db, store::metric_collection_table(), trace.metric_collections, codec);
  write_table(db, store::source_gap_table(), trace.source_gaps, codec);
  write_table(db, store::host_op_table(), trace.host_ops, codec);
  write_table(db, store::external_correlation_table(), trace.external_correlations, codec);
  write_table(db, store::capture_window_table(), trace.capture_windows, codec);
  write_table(db, store::collective_call_table(), trace.collective_calls, codec);
  write_table(db, store::api_count_table(), trace.api_counts, codec);
  // The packed tables' views first: the *_named views are built on them.
  store::create_view(db, store::api_call_table());
  store::create_view(db, store::kernel_table());
  store::create_view(db, store::memcpy_table());
  store::create_view(db, store::memset_table());
  store::create_view(db, store::memory_event_table());
  store::create_view(db, store::synchronization_table());
  store::create_view(db, store::nvtx_range_table());
  store::create_view(db, store::nvtx_mark_table());
  store::create_view(db, store::gpu_metric_sample_table());
  store::create_view(db, store::host_op_table());
  for (const auto& view : store::view_statements()) db.exec(view);
  db.exec("COMMIT");
}

}  // namespace

void write_trace(const std::string& path, const Trace& trace) {
  const std::string temp = path + ".tmp";
  std::remove(temp.c_str());
  try {
    store::Database db(temp, store::Database::Mode::Create);
    write_all(db, trace);
  } catch (...) {
    std::remove(temp.c_str());
    throw;
  }
  std::error_code ec;
  std::filesystem::rename(temp, path, ec);
  if (ec) {
    std::remove(temp.c_str());
    throw Error("cannot write " + path + ": " + ec.message());
  }
}

}  // namespace gpuscope

// Writes a Trace into a new SQLite file. The file appears under its final name
// only when complete (written to PATH.tmp, then renamed), so a reader never sees
// a half-written capture.
#include <cstdio>
#include <filesystem>
#include <string>
#include <type_traits>

#include "common/error.h"
#include "gpuscope/store.h"
#include "gpuscope/trace_tables.h"
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
  write_table(db, store::table_spec<Run>(), std::vector<Run>{trace.run}, codec);
  write_table(db, store::table_spec<BenchRun>(), trace.runs, codec);
  write_table(db, store::table_spec<SourceGap>(), trace.source_gaps, codec);
  for_each_record_table([&](const auto& table) {
    using Row = RowOf<decltype(table)>;
    write_table(db, store::table_spec<Row>(), trace.*table.rows, codec);
  });
  write_table(db, store::table_spec<store::KernelLaunch>(), codec.launches, codec);  // filled by the kernels
  // The packed tables' views first: the *_named views are built on them.
  for_each_record_table([&](const auto& table) {
    using Row = RowOf<decltype(table)>;
    if (!store::table_spec<Row>().view_name.empty()) store::create_view(db, store::table_spec<Row>());
  });
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

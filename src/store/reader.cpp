// Reads a capture back into a Trace. Every way a file can be wrong gets its own
// one-line message: missing, not SQLite (or one of our spools), truncated,
// corrupt, foreign SQLite, or written by an older or a newer gpuscope.
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <string>
#include <type_traits>

#include "common/error.h"
#include "common/older_formats.h"
#include "gpuscope/store.h"
#include "gpuscope/trace_tables.h"
#include "spool/format.h"
#include "store/table_io.h"

namespace gpuscope {

namespace {

// Checks the file before SQLite sees it, so a spool, a text file or a file cut short by a copy
// gets a precise message.
void check_file_header(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw Error(path + ": no such capture file");
  std::ifstream in(path, std::ios::binary);
  unsigned char magic[sizeof spool::kFileMagic] = {};
  if (!in) throw Error(path + ": cannot read the file (permission denied?)");
  in.read(reinterpret_cast<char*>(magic), sizeof magic);
  if (static_cast<size_t>(in.gcount()) == sizeof magic && std::memcmp(magic, spool::kFileMagic, sizeof magic) == 0)
    throw Error(path +
                ": this is a raw capture spool; turn it into a capture with "
                "'gpuscope import -o NAME " +
                path + "'");
  store::check_sqlite_file(path, "a gpuscope capture");
}

// The file's schema version must be this build's: there is one layout to read.
void check_schema_version(store::Database& db) {
  if (!db.has_table("meta"))
    throw Error(db.path() + ": an SQLite database, but not a gpuscope capture (no meta table)");
  auto select = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'");
  if (!select.next()) throw Error(db.path() + ": not a gpuscope capture (no schema version)");
  const std::string text = select.text(0);
  char* end = nullptr;
  const long version = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || version < 1)
    throw Error(db.path() + ": corrupt capture (bad schema version '" + text + "')");
  if (version < kSchemaVersion)
    throw Error(db.path() + ": written by an older gpuscope (schema v" + std::to_string(version) +
                "; this one reads only v" + std::to_string(kSchemaVersion) + "): open it with " +
                older_reader_of(static_cast<int>(version), false));
  if (version > kSchemaVersion)
    throw Error(db.path() + ": written by a newer gpuscope (schema v" + std::to_string(version) +
                "; this one reads only v" + std::to_string(kSchemaVersion) + "); upgrade gpuscope");
}

bool passes_integrity_check(const std::string& path) {
  store::Database db(path, store::Database::Mode::ReadOnly);
  auto check = db.prepare("PRAGMA quick_check");
  return check.next() && check.text(0) == "ok";
}

// The views gpuscope writes must read as it wrote them: a rewritten one (recursive, or showing
// other rows) would hang or mislead `query` and every script reading the file through its public
// names. A view of the user's own is not gpuscope's to judge.
void check_views(store::Database& db) {
  std::map<std::string, std::string> expected;  // view name -> its CREATE VIEW statement
  for_each_record_table([&](const auto& table) {
    const auto& spec = store::table_spec<RowOf<decltype(table)>>();
    if (!spec.view_name.empty()) expected.emplace(spec.view_name, store::view_sql(spec));
  });
  for (const std::string& sql : store::view_statements()) {
    const size_t name = std::strlen("CREATE VIEW ");
    expected.emplace(sql.substr(name, sql.find(' ', name) - name), sql);
  }
  auto views = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'view'");
  size_t found = 0;
  while (views.next()) {
    const auto it = expected.find(views.text(0));
    if (it == expected.end()) continue;
    if (views.text(1) != it->second)
      throw Error(db.path() + ": corrupt capture (its view '" + it->first +
                  "' is not the one gpuscope writes: the file was edited)");
    ++found;
  }
  if (found != expected.size())
    throw Error(db.path() + ": corrupt capture (" + std::to_string(expected.size() - found) +
                " of gpuscope's views are missing)");
}

void load_strings(store::Database& db, StringTable& strings) {
  auto select = db.prepare("SELECT id, value FROM strings ORDER BY id");
  int64_t expected_id = 0;
  while (select.next()) {
    const int64_t id = select.integer(0);
    const std::string value = select.text(1);
    if (id == 0 && value.empty()) {
      expected_id = 1;
      continue;
    }
    if (id != expected_id || strings.intern(value) != id)
      throw Error(db.path() + ": corrupt capture (strings table out of order at id " + std::to_string(id) + ")");
    ++expected_id;
  }
}

Trace load_tables(const std::string& path) {
  store::Database db(path, store::Database::Mode::ReadOnly);
  check_schema_version(db);
  Trace trace;
  load_strings(db, trace.strings);
  store::RowCodec codec;
  auto runs = store::load_rows(db, store::table_spec<Run>(), codec);
  if (runs.size() != 1) throw Error(path + ": corrupt capture (expected one run row)");
  trace.run = runs.front();
  codec.time_base = trace.run.start;
  codec.launches = store::load_rows(db, store::table_spec<store::KernelLaunch>(), codec);
  for (size_t i = 0; i < codec.launches.size(); ++i)
    if (codec.launches[i].id != i)
      throw Error(path + ": corrupt capture (kernel_launches ids are not 0, 1, 2, ... in order)");
  trace.runs = store::load_rows(db, store::table_spec<BenchRun>(), codec);
  trace.source_gaps = store::load_rows(db, store::table_spec<SourceGap>(), codec);
  try {
    // The API calls, about half of a capture's rows, are read meanwhile on a connection and thread
    // of their own; `codec` is only read from here on.
    auto api_calls = std::async(std::launch::async, [&path, &codec] {
      store::Database own(path, store::Database::Mode::ReadOnly);
      return store::load_rows(own, store::table_spec<ApiCall>(), codec);
    });
    for_each_record_table([&](const auto& table) {
      using Row = RowOf<decltype(table)>;
      if constexpr (!std::is_same_v<Row, ApiCall>)
        trace.*table.rows = store::load_rows(db, store::table_spec<Row>(), codec);
    });
    trace.api_calls = api_calls.get();
    check_views(db);  // after the tables: a table's own damage (a missing column) is named first
  } catch (const Error& e) {
    // SQLite's errors name the file already; the row decoders' (a kernel's launch id) do not.
    const std::string what = e.what();
    throw Error(what.starts_with(path + ": ") ? what : path + ": " + what);
  }
  return trace;
}

}  // namespace

Trace read_trace(const std::string& path) {
  check_file_header(path);
  // SQLite's integrity check reads every page (2.6 s of a 10M-record capture); on its own
  // connection and thread it runs while the tables are read. Its verdict comes first: a file
  // that fails it is corrupt, whatever reading the tables made of it.
  auto integrity = std::async(std::launch::async, passes_integrity_check, path);
  Trace trace;
  std::exception_ptr load_error;
  try {
    trace = load_tables(path);
  } catch (...) {
    load_error = std::current_exception();
  }
  if (!integrity.get()) throw Error(path + ": the database is corrupt (integrity check failed)");
  if (load_error) std::rethrow_exception(load_error);
  return trace;
}

}  // namespace gpuscope

// sql_base(), edited_file(): SQLite files edited in memory (sql_edits.h).
#include "sql_edits.h"

#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>

namespace gpuscope::fuzz {
namespace {

using Connection = std::unique_ptr<sqlite3, decltype(&sqlite3_close)>;

// The bytes as an in-memory database SQLite may resize (its own copy, freed with the connection).
Connection open_in_memory(const std::string& bytes) {
  sqlite3* raw = nullptr;
  sqlite3_open(":memory:", &raw);
  Connection db(raw, &sqlite3_close);
  auto* copy = static_cast<unsigned char*>(sqlite3_malloc64(bytes.size()));
  if (copy == nullptr) std::abort();
  std::memcpy(copy, bytes.data(), bytes.size());
  if (sqlite3_deserialize(raw, "main", copy, static_cast<sqlite3_int64>(bytes.size()),
                          static_cast<sqlite3_int64>(bytes.size()),
                          SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_RESIZEABLE) != SQLITE_OK)
    std::abort();  // a file this process made or was given as well-formed
  return db;
}

std::vector<std::string> column_text(sqlite3* db, const std::string& sql, int column) {
  std::vector<std::string> out;
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) std::abort();
  while (sqlite3_step(stmt) == SQLITE_ROW)
    out.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(stmt, column)));
  sqlite3_finalize(stmt);
  return out;
}

int64_t count_rows(sqlite3* db, const std::string& table) {
  sqlite3_stmt* stmt = nullptr;
  sqlite3_prepare_v2(db, ("SELECT count(*) FROM \"" + table + "\"").c_str(), -1, &stmt, nullptr);
  const int64_t rows = sqlite3_step(stmt) == SQLITE_ROW ? sqlite3_column_int64(stmt, 0) : 0;
  sqlite3_finalize(stmt);
  return rows;
}

// Binds what edit byte `what` and the payload ask for to parameter 1.
void bind_value(sqlite3_stmt* stmt, uint8_t what, const uint8_t* payload) {
  const int64_t payload24 = static_cast<int64_t>(payload[0] | payload[1] << 8 | payload[2] << 16) << 40 >> 40;
  static const int64_t kExtremes[] = {0,
                                      -1,
                                      1,
                                      std::numeric_limits<int64_t>::min(),
                                      std::numeric_limits<int64_t>::max(),
                                      int64_t{1} << 62,
                                      -(int64_t{1} << 60) - 1,
                                      int64_t{1} << 32,
                                      std::numeric_limits<uint32_t>::max(),
                                      std::numeric_limits<int32_t>::min(),
                                      std::numeric_limits<int32_t>::max()};
  static const double kReals[] = {std::nan(""), INFINITY, -INFINITY, 1e308, -0.0, 0.5, 1e-300};
  static const char* const kTexts[] = {"", "x", "\xff\xfe", "12abc", "-0", "1e400"};
  switch (what % 8) {
    case 0: sqlite3_bind_int64(stmt, 1, static_cast<int8_t>(payload[0])); break;
    case 1: sqlite3_bind_int64(stmt, 1, payload24 * (int64_t{1} << (payload[2] % 40))); break;
    case 2: sqlite3_bind_int64(stmt, 1, kExtremes[payload[0] % std::size(kExtremes)]); break;
    case 3: sqlite3_bind_null(stmt, 1); break;
    case 4: sqlite3_bind_double(stmt, 1, kReals[payload[0] % std::size(kReals)]); break;
    case 5: sqlite3_bind_text(stmt, 1, kTexts[payload[0] % std::size(kTexts)], -1, SQLITE_STATIC); break;
    case 6: {  // a long string: up to 64 KiB of one byte
      const std::string text(static_cast<size_t>(payload[1]) * 256, static_cast<char>(payload[0]));
      sqlite3_bind_text(stmt, 1, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
      break;
    }
    default: sqlite3_bind_blob(stmt, 1, payload, 3, SQLITE_TRANSIENT); break;
  }
}

// One edit; SQLite's own refusals are ignored (the edit is skipped). Table bytes under 224 pick
// among the record tables, the rest among all.
void apply(sqlite3* db, const SqlBase& base, const uint8_t* edit) {
  const std::vector<SqlTable>& tables = edit[0] < 224 ? base.records : base.tables;
  const SqlTable& table = tables[edit[0] % tables.size()];
  const int64_t row = (edit[1] | edit[2] << 8) % table.rows;
  const std::string& column = table.columns[edit[3] % table.columns.size()];
  const uint8_t what = edit[4];
  const std::string target = "\"" + table.name + "\"";
  const std::string row_id = "(SELECT rowid FROM " + target + " LIMIT 1 OFFSET " + std::to_string(row) + ")";
  std::string sql;
  switch (what % 16) {
    case 8: sql = "DELETE FROM " + target + " WHERE rowid = " + row_id; break;
    case 9: sql = "INSERT INTO " + target + " SELECT * FROM " + target + " WHERE rowid = " + row_id; break;
    case 10:  // a small step off the stored value
      sql = "UPDATE " + target + " SET \"" + column + "\" = \"" + column + "\" + " +
            std::to_string(static_cast<int8_t>(edit[5])) + " WHERE rowid = " + row_id;
      break;
    case 11: sql = "UPDATE " + target + " SET \"" + column + "\" = -\"" + column + "\" WHERE rowid = " + row_id; break;
    default: sql = "UPDATE " + target + " SET \"" + column + "\" = ?1 WHERE rowid = " + row_id; break;
  }
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) return;
  if (sqlite3_bind_parameter_count(stmt) == 1) bind_value(stmt, what / 16, edit + 5);
  sqlite3_step(stmt);
  sqlite3_finalize(stmt);
}

}  // namespace

SqlBase sql_base(std::string bytes, const std::set<std::string>& bookkeeping) {
  SqlBase base;
  base.bytes = std::move(bytes);
  Connection db = open_in_memory(base.bytes);
  for (const std::string& name :
       column_text(db.get(), "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name", 0)) {
    SqlTable table{name, column_text(db.get(), "SELECT name FROM pragma_table_info('" + name + "')", 0), 0};
    table.rows = count_rows(db.get(), name);
    if (table.rows == 0) continue;
    if (bookkeeping.count(name) == 0) base.records.push_back(table);
    base.tables.push_back(std::move(table));
  }
  if (base.records.empty()) base.records = base.tables;
  if (base.tables.empty()) std::abort();  // nothing to edit: every input would be the base
  return base;
}

std::string edited_file(const std::vector<SqlBase>& bases, std::string_view input) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(input.data());
  const SqlBase& base = bases[bytes[0] % bases.size()];
  Connection db = open_in_memory(base.bytes);
  const size_t edits = std::min((input.size() - 1) / kSqlEditBytes, kMaxSqlEdits);
  for (size_t i = 0; i < edits; ++i) apply(db.get(), base, bytes + 1 + i * kSqlEditBytes);
  sqlite3_int64 size = 0;
  unsigned char* edited = sqlite3_serialize(db.get(), "main", &size, 0);
  if (edited == nullptr) std::abort();
  std::string file(reinterpret_cast<const char*>(edited), static_cast<size_t>(size));
  sqlite3_free(edited);
  return file;
}

}  // namespace gpuscope::fuzz

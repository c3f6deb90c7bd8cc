// Thin RAII wrapper over the SQLite C API: every failure becomes a
// gpuscope::Error that names the file, so callers never check return codes.
#pragma once

#include <sqlite3.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace gpuscope::store {

class Statement;

// Checks an SQLite file's header before SQLite opens it: throws Error with a one-line message
// when `path` is not an SQLite database ("not <expected>") or is shorter than its header says
// (a copy cut short). `expected` names what the caller wanted, e.g. "a gpuscope capture".
void check_sqlite_file(const std::string& path, const std::string& expected);

class Database {
 public:
  enum class Mode { ReadOnly, Create };
  Database(const std::string& path, Mode mode);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  void exec(const std::string& sql);
  Statement prepare(const std::string& sql);
  // SQL that a user typed (`gpuscope query`): exactly one statement that reads. Throws a
  // one-line Error for empty SQL, a second statement (SQLite would silently ignore it), ATTACH
  // (it opens or creates another file) and anything that writes, VACUUM INTO included: it writes
  // a new file even on a connection opened read-only.
  Statement prepare_user_query(const std::string& sql);
  bool has_table(const std::string& name);
  // Stops whatever this connection runs once `limit` has passed from now (SQLite asks every few
  // thousand steps, so the stop comes within milliseconds): the statement then fails with
  // "PATH: " + `why`. A zero limit lifts it. For SQL that gpuscope did not write.
  void limit_time(std::chrono::milliseconds limit, std::string why);
  const std::string& path() const { return path_; }
  [[noreturn]] void fail(const std::string& what, int code) const;

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
  std::chrono::steady_clock::time_point deadline_{};
  std::string past_deadline_;  // the line a stopped statement fails with
  friend class Statement;
};

// A prepared statement. Bind indices start at 1, column indices at 0.
class Statement {
 public:
  Statement(Database& db, const std::string& sql);
  ~Statement();
  Statement(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(int index, int64_t value);
  Statement& bind(int index, double value);  // NaN is stored as NULL (SQLite's rule)
  Statement& bind(int index, std::string_view value);
  Statement& bind_blob(int index, std::string_view bytes);
  // Executes an INSERT/UPDATE fully and resets for the next bind. The bindings stay: every
  // caller binds each parameter before each run (clearing them cost ~6% of a capture's write).
  void run();
  // Steps a SELECT; false when there are no more rows.
  bool next();

  int64_t integer(int column) const;
  double real(int column) const;
  std::string text(int column) const;
  std::string blob(int column) const;  // the bytes of a BLOB (or TEXT) column
  // The column's storage class in the current row (SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT,
  // SQLITE_BLOB, SQLITE_NULL): readers of foreign files check it before trusting integer().
  int type(int column) const;
  // The text without a copy; valid until the next call of next() on this statement.
  std::string_view text_view(int column) const;
  int column_count() const;
  std::string column_name(int column) const;

 private:
  Statement(Database& db, sqlite3_stmt* stmt) : db_(&db), stmt_(stmt) {}
  friend class Database;

  Database* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

}  // namespace gpuscope::store

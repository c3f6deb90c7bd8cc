#include "store/sqlite_db.h"

#include <cstring>
#include <filesystem>
#include <fstream>

#include "common/error.h"

namespace gpuscope::store {

namespace {
uint32_t big_endian(const unsigned char* p, int bytes) {
  uint32_t value = 0;
  for (int i = 0; i < bytes; ++i) value = (value << 8) | p[i];
  return value;
}
}  // namespace

void check_sqlite_file(const std::string& path, const std::string& expected) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  std::ifstream in(path, std::ios::binary);
  unsigned char header[100] = {};
  if (!in || ec) throw Error(path + ": cannot read the file (permission denied?)");
  in.read(reinterpret_cast<char*>(header), sizeof header);
  if (static_cast<size_t>(in.gcount()) < sizeof header || std::memcmp(header, "SQLite format 3", 16) != 0)
    throw Error(path + ": not " + expected + " (not an SQLite database)");
  uint32_t page_size = big_endian(header + 16, 2);
  if (page_size == 1) page_size = 65536;
  const uint32_t change_counter = big_endian(header + 24, 4);
  const uint32_t page_count = big_endian(header + 28, 4);
  const uint32_t valid_for = big_endian(header + 92, 4);
  const uint64_t expected_bytes = uint64_t{page_size} * page_count;
  if (valid_for == change_counter && page_count > 0 && size < expected_bytes)
    throw Error(path + ": the file is truncated (" + std::to_string(size) + " of " + std::to_string(expected_bytes) +
                " bytes); copy it again from its source");
}

Database::Database(const std::string& path, Mode mode) : path_(path) {
  int flags = mode == Mode::ReadOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  int rc = sqlite3_open_v2(path.c_str(), &db_, flags | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc == SQLITE_OK) return;
  // A failed open still allocates the handle, and the destructor does not run after a throw from
  // here: close it once fail() has taken its message (LeakSanitizer found this).
  try {
    fail("cannot open", rc);
  } catch (...) {
    sqlite3_close(db_);
    db_ = nullptr;
    throw;
  }
}

Database::~Database() { sqlite3_close(db_); }

void Database::fail(const std::string& what, int code) const {
  const char* detail = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(code);
  switch (code & 0xFF) {
    case SQLITE_NOTADB: throw Error(path_ + ": not a SQLite database (is this a gpuscope capture?)");
    case SQLITE_CORRUPT: throw Error(path_ + ": the database is corrupt (" + detail + ")");
    case SQLITE_INTERRUPT:
      if (!past_deadline_.empty()) throw Error(path_ + ": " + past_deadline_);
      [[fallthrough]];
    default: throw Error(path_ + ": " + what + ": " + detail);
  }
}

void Database::exec(const std::string& sql) {
  char* message = nullptr;
  int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message);
  if (rc != SQLITE_OK) {
    std::string text = message ? message : sqlite3_errstr(rc);
    sqlite3_free(message);
    if ((rc & 0xFF) == SQLITE_NOTADB || (rc & 0xFF) == SQLITE_CORRUPT) fail("query failed", rc);
    throw Error(path_ + ": " + text);
  }
}

Statement Database::prepare(const std::string& sql) { return Statement(*this, sql); }

namespace {
// Refuses ATTACH and DETACH while a user's SQL is prepared: sqlite3_stmt_readonly() calls them
// read-only, as they change the connection rather than this file.
int refuse_attach(void* refused, int action, const char*, const char*, const char*, const char*) {
  if (action != SQLITE_ATTACH && action != SQLITE_DETACH) return SQLITE_OK;
  *static_cast<bool*>(refused) = true;
  return SQLITE_DENY;
}
}  // namespace

Statement Database::prepare_user_query(const std::string& sql) {
  bool attach = false;
  sqlite3_set_authorizer(db_, refuse_attach, &attach);
  sqlite3_stmt* raw = nullptr;
  const char* tail = nullptr;
  const int rc = sqlite3_prepare_v2(db_, sql.c_str(), static_cast<int>(sql.size()), &raw, &tail);
  sqlite3_set_authorizer(db_, nullptr, nullptr);
  Statement statement(*this, raw);  // finalizes `raw` on every path below
  if (attach) throw Error("query is read-only: ATTACH and DETACH are refused");
  if (rc != SQLITE_OK) fail("cannot prepare query", rc);
  if (!raw) throw Error("query: no SQL statement given");
  // What follows the first statement must be nothing but spaces and comments: preparing it
  // yields no statement then (and a second statement, or an error, otherwise).
  sqlite3_stmt* next = nullptr;
  const int next_rc = sqlite3_prepare_v2(db_, tail, static_cast<int>(sql.c_str() + sql.size() - tail), &next, nullptr);
  sqlite3_finalize(next);
  if (next_rc != SQLITE_OK || next)
    throw Error("query runs one SQL statement; remove everything after the first one's ';'");
  if (!sqlite3_stmt_readonly(raw))
    throw Error("query is read-only: statements that write (VACUUM, INSERT, UPDATE, CREATE, ...) are refused");
  return statement;
}

void Database::limit_time(std::chrono::milliseconds limit, std::string why) {
  if (limit.count() <= 0) {
    sqlite3_progress_handler(db_, 0, nullptr, nullptr);
    past_deadline_.clear();
    return;
  }
  deadline_ = std::chrono::steady_clock::now() + limit;
  past_deadline_ = std::move(why);
  // Non-zero stops the statement (SQLITE_INTERRUPT). 10,000 virtual-machine steps take well
  // under a millisecond, so a clock read each time costs nothing measurable.
  constexpr int kStepsBetweenChecks = 10000;
  sqlite3_progress_handler(
      db_, kStepsBetweenChecks,
      [](void* self) { return std::chrono::steady_clock::now() > static_cast<Database*>(self)->deadline_ ? 1 : 0; },
      this);
}

bool Database::has_table(const std::string& name) {
  auto stmt = prepare("SELECT 1 FROM sqlite_master WHERE type IN ('table','view') AND name = ?");
  stmt.bind(1, name);
  return stmt.next();
}

namespace {
// The table a reader's statement reads: the word after its first FROM (our own SQL only).
std::string table_read_by(const std::string& sql) {
  const size_t from = sql.find(" FROM ");
  if (from == std::string::npos) return "";
  const size_t start = from + 6, end = sql.find_first_of(" ,;)", start);
  return sql.substr(start, end == std::string::npos ? std::string::npos : end - start);
}
}  // namespace

Statement::Statement(Database& db, const std::string& sql) : db_(&db) {
  int rc = sqlite3_prepare_v2(db.db_, sql.c_str(), -1, &stmt_, nullptr);
  if (rc == SQLITE_OK) return;
  // A capture written by other means, or damaged: name the table that lacks the column.
  const std::string detail = sqlite3_errmsg(db.db_), missing = "no such column: ", table = table_read_by(sql);
  if (detail.rfind(missing, 0) == 0 && !table.empty())
    throw Error(db.path_ + ": table " + table + " has no column " + detail.substr(missing.size()) +
                " (not a capture this gpuscope wrote, or a damaged one)");
  db.fail("cannot prepare query", rc);
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

Statement::Statement(Statement&& other) noexcept : db_(other.db_), stmt_(other.stmt_) { other.stmt_ = nullptr; }

Statement& Statement::bind(int index, int64_t value) {
  int rc = sqlite3_bind_int64(stmt_, index, value);
  if (rc != SQLITE_OK) db_->fail("cannot bind value", rc);
  return *this;
}

Statement& Statement::bind(int index, double value) {
  int rc = sqlite3_bind_double(stmt_, index, value);
  if (rc != SQLITE_OK) db_->fail("cannot bind value", rc);
  return *this;
}

Statement& Statement::bind(int index, std::string_view value) {
  int rc = sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT);
  if (rc != SQLITE_OK) db_->fail("cannot bind value", rc);
  return *this;
}

Statement& Statement::bind_blob(int index, std::string_view bytes) {
  int rc = sqlite3_bind_blob64(stmt_, index, bytes.data(), bytes.size(), SQLITE_TRANSIENT);
  if (rc != SQLITE_OK) db_->fail("cannot bind value", rc);
  return *this;
}

void Statement::run() {
  int rc = sqlite3_step(stmt_);
  if (rc != SQLITE_DONE) db_->fail("write failed", rc);
  sqlite3_reset(stmt_);
}

bool Statement::next() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  db_->fail("read failed", rc);
}

int64_t Statement::integer(int column) const { return sqlite3_column_int64(stmt_, column); }

double Statement::real(int column) const { return sqlite3_column_double(stmt_, column); }

std::string Statement::text(int column) const {
  const auto* p = sqlite3_column_text(stmt_, column);
  return p ? std::string(reinterpret_cast<const char*>(p), static_cast<size_t>(sqlite3_column_bytes(stmt_, column)))
           : std::string();
}

std::string Statement::blob(int column) const {
  const auto* p = static_cast<const char*>(sqlite3_column_blob(stmt_, column));
  return p ? std::string(p, static_cast<size_t>(sqlite3_column_bytes(stmt_, column))) : std::string();
}

int Statement::type(int column) const { return sqlite3_column_type(stmt_, column); }

std::string_view Statement::text_view(int column) const {
  const auto* p = sqlite3_column_text(stmt_, column);
  return p ? std::string_view(reinterpret_cast<const char*>(p),
                              static_cast<size_t>(sqlite3_column_bytes(stmt_, column)))
           : std::string_view();
}

int Statement::column_count() const { return sqlite3_column_count(stmt_); }

std::string Statement::column_name(int column) const {
  const char* name = sqlite3_column_name(stmt_, column);
  return name ? name : "";
}

}  // namespace gpuscope::store

// Shared by the nsys importer tests: the real exports in the shared fixtures folder, plain-SQL
// counts on them, and writable copies to damage or extend.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "store/sqlite_db.h"

namespace gpuscope::testing {

inline std::string nsys_fixture(const std::string& name) {
  return std::string(GPUSCOPE_SHARED_FIXTURES_DIR) + "/nsys/" + name + ".sqlite";
}

// Skips the test, with a message, in a clone without the shared fixtures.
#define GPUSCOPE_NEED_NSYS_FIXTURE(path)                          \
  if (!std::filesystem::exists(path))                             \
  GTEST_SKIP() << "nsys fixture " << (path)                       \
               << " not present (shared fixtures folder absent; " \
                  "configure with -DGPUSCOPE_SHARED_DIR=...)"

// One integer from a plain SQL query on `path`; 0 when a table it names is missing.
inline int64_t sql_integer(const std::string& path, const std::string& sql) {
  store::Database db(path, store::Database::Mode::ReadOnly);
  try {
    auto query = db.prepare(sql);
    return query.next() ? query.integer(0) : 0;
  } catch (const std::exception& e) {
    if (std::string(e.what()).find("no such table") != std::string::npos) return 0;
    throw;
  }
}

// A writable copy of `fixture` in `dir`, changed by `sql` (may be empty).
inline std::string edited_copy(const std::string& fixture, const std::string& dir, const std::string& name,
                               const std::string& sql) {
  const std::string copy = dir + "/" + name;
  std::filesystem::copy_file(fixture, copy, std::filesystem::copy_options::overwrite_existing);
  std::filesystem::permissions(copy, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  if (!sql.empty()) {
    store::Database db(copy, store::Database::Mode::Create);
    db.exec(sql);
  }
  return copy;
}

}  // namespace gpuscope::testing

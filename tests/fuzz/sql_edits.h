// A well-formed SQLite file with its values rewritten, its structure kept: what the `cells` and
// `nsys_cells` targets feed their readers (docs/fuzzing.md). An edit is 8 bytes: table, row
// (2 bytes), column, what, 3 bytes of payload: a column set to an extreme integer, NULL, text, NaN
// or infinity, a blob, a 64 KiB string, a small step or the negation of its value, or the row
// deleted or duplicated. An edit SQLite itself refuses (a constraint, a type it cannot compare) is
// skipped: the file stays one SQLite could have written.
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace gpuscope::fuzz {

constexpr size_t kSqlEditBytes = 8;
constexpr size_t kMaxSqlEdits = 32;

struct SqlTable {
  std::string name;
  std::vector<std::string> columns;
  int64_t rows = 0;
};

struct SqlBase {
  std::string bytes;              // the database file
  std::vector<SqlTable> tables;   // its tables that hold rows
  std::vector<SqlTable> records;  // the same less the `bookkeeping` tables given to sql_base
};

// `bytes` (a database file) ready to edit. `bookkeeping`: tables nearly every edit of would end at
// the reader's first checks (a capture's meta, strings, run), which 1 edit in 8 picks from.
SqlBase sql_base(std::string bytes, const std::set<std::string>& bookkeeping);

// The file a target's input stands for: byte 0 picks one of `bases`, then each kSqlEditBytes
// (at most kMaxSqlEdits) are one edit of it. `input` is not empty.
std::string edited_file(const std::vector<SqlBase>& bases, std::string_view input);

}  // namespace gpuscope::fuzz

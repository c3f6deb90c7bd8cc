#include "trace_dump.h"

#include <fmt/format.h>

#include <set>
#include <vector>

#include "gpuscope/store.h"
#include "store/sqlite_db.h"

namespace gpuscope::testing {
namespace {

// The tables and views a reader of the capture file sees, in name order: a packed table's view
// stands for it, a *_named view for the view or table it extends. Rows come in stored order (a
// view scans its table in rowid order).
std::vector<std::string> public_tables(store::Database& db) {
  std::set<std::string> names;
  auto list = db.prepare("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')");
  while (list.next()) names.insert(list.text(0));
  std::vector<std::string> shown;
  for (const std::string& name : names) {
    // meta names the writer's version: every release would change every dump.
    if (name.ends_with("_packed") || names.count(name + "_named") || name == "meta") continue;
    shown.push_back(name);
  }
  return shown;
}

// One value as the dump shows it: tabs and newlines escaped so a row stays one line.
std::string cell(const store::Statement& row, int column) {
  switch (row.type(column)) {
    case SQLITE_NULL: return "NULL";
    case SQLITE_INTEGER: return std::to_string(row.integer(column));
    case SQLITE_FLOAT: return fmt::format("{:.9g}", row.real(column));
    default: break;
  }
  std::string out;
  for (char c : row.text_view(column)) {
    if (c == '\t') out += "\\t";
    else if (c == '\n') out += "\\n";
    else if (c == '\\') out += "\\\\";
    else out += c;
  }
  return out;
}

uint64_t fnv1a(uint64_t hash, const std::string& text) {
  for (unsigned char c : text) hash = (hash ^ c) * 0x100000001b3ull;
  return hash;
}

}  // namespace

std::string dump_trace(const Trace& trace, const std::string& scratch_file) {
  write_trace(scratch_file, trace);
  store::Database db(scratch_file, store::Database::Mode::ReadOnly);
  std::string out;
  for (const std::string& table : public_tables(db)) {
    auto select = db.prepare("SELECT * FROM \"" + table + "\"");
    std::vector<std::string> rows;
    std::string header;
    while (select.next()) {
      std::string line;
      for (int c = 0; c < select.column_count(); ++c) line += (c ? "\t" : "") + cell(select, c);
      rows.push_back(std::move(line));
    }
    for (int c = 0; c < select.column_count(); ++c) header += (c ? "\t" : "") + select.column_name(c);
    out += fmt::format("## {} ({} rows)\n", table, rows.size());
    if (rows.empty()) continue;
    out += header + "\n";
    if (rows.size() <= kDumpRowsShown) {
      for (const std::string& r : rows) out += r + "\n";
      continue;
    }
    const size_t head = kDumpRowsShown - 5, tail = 5;
    for (size_t i = 0; i < head; ++i) out += rows[i] + "\n";
    out += fmt::format("... {} rows ...\n", rows.size() - head - tail);
    for (size_t i = rows.size() - tail; i < rows.size(); ++i) out += rows[i] + "\n";
    uint64_t hash = 0xcbf29ce484222325ull;
    for (const std::string& r : rows) hash = fnv1a(fnv1a(hash, r), "\n");
    out += fmt::format("fnv1a64 of all rows: {:016x}\n", hash);
  }
  return out;
}

}  // namespace gpuscope::testing

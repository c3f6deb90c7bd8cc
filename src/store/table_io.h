// Generic create / insert / load over a TableSpec (see tables.h).
#pragma once

#include <string>
#include <vector>

#include "store/tables.h"

namespace gpuscope::store {

template <class Row>
void create_table(Database& db, const TableSpec<Row>& spec) {
  std::string sql = "CREATE TABLE " + spec.name + " (";
  for (size_t i = 0; i < spec.columns.size(); ++i)
    sql += (i ? ", " : "") + spec.columns[i].name + " " + spec.columns[i].type + " NOT NULL";
  db.exec(sql + ")");
}

template <class Row>
void create_indices(Database& db, const TableSpec<Row>& spec) {
  for (size_t i = 0; i < spec.indices.size(); ++i)
    db.exec("CREATE INDEX " + spec.name + "_idx" + std::to_string(i) + " ON " + spec.name + " (" +
            spec.indices[i] + ")");
}

template <class Row>
void insert_rows(Database& db, const TableSpec<Row>& spec, const std::vector<Row>& rows, RowCodec& codec) {
  std::string sql = "INSERT INTO " + spec.name + " VALUES (";
  for (size_t i = 0; i < spec.columns.size(); ++i) sql += i ? ", ?" : "?";
  Statement insert = db.prepare(sql + ")");
  for (const Row& row : rows) {
    for (size_t i = 0; i < spec.columns.size(); ++i)
      spec.columns[i].bind(row, insert, static_cast<int>(i) + 1, codec);
    insert.run();
  }
}

// The view that shows a packed table under its public name and columns (TableSpec::view_name).
template <class Row>
void create_view(Database& db, const TableSpec<Row>& spec) {
  if (spec.view_name.empty()) return;
  std::string sql = "CREATE VIEW " + spec.view_name + " AS SELECT ";
  for (size_t i = 0; i < spec.columns.size(); ++i) {
    const Column<Row>& c = spec.columns[i];
    sql += (i ? ", " : "") + (c.view.empty() ? "t." + c.name : c.view);
  }
  db.exec(sql + " FROM " + spec.name + " t " + spec.view_joins);
}

// Rows come back in insertion order (rowid), so a round trip is exact. A file
// of an older schema_version has no rows for a newer table and no values for
// newer columns: those fields keep their defaults.
template <class Row>
std::vector<Row> load_rows(Database& db, const TableSpec<Row>& spec, int schema_version, const RowCodec& codec) {
  if (spec.since > schema_version) return {};
  std::vector<const Column<Row>*> present;
  for (const Column<Row>& c : spec.columns)
    if (c.since <= schema_version) present.push_back(&c);
  std::string sql = "SELECT ";
  for (size_t i = 0; i < present.size(); ++i) sql += (i ? ", " : "") + present[i]->name;
  Statement select = db.prepare(sql + " FROM " + spec.name + " ORDER BY rowid");
  std::vector<Row> rows;
  while (select.next()) {
    Row& row = rows.emplace_back();
    for (size_t i = 0; i < present.size(); ++i) present[i]->load(row, select, static_cast<int>(i), codec);
  }
  return rows;
}

}  // namespace gpuscope::store

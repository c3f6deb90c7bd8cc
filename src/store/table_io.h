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
void insert_rows(Database& db, const TableSpec<Row>& spec, const std::vector<Row>& rows, RowCodec& codec) {
  std::string sql = "INSERT INTO " + spec.name + " VALUES (";
  for (size_t i = 0; i < spec.columns.size(); ++i) sql += i ? ", ?" : "?";
  Statement insert = db.prepare(sql + ")");
  for (const Row& row : rows) {
    for (size_t i = 0; i < spec.columns.size(); ++i) spec.columns[i].bind(row, insert, static_cast<int>(i) + 1, codec);
    insert.run();
  }
}

// The statement creating the view that shows a packed table under its public name and columns
// (TableSpec::view_name); the reader holds a file's views to it.
template <class Row>
std::string view_sql(const TableSpec<Row>& spec) {
  std::string sql = "CREATE VIEW " + spec.view_name + " AS SELECT ";
  for (size_t i = 0; i < spec.columns.size(); ++i) {
    const Column<Row>& c = spec.columns[i];
    sql += (i ? ", " : "") + (c.view.empty() ? "t." + c.name : c.view);
  }
  return sql + " FROM " + spec.name + " t" + (spec.view_joins.empty() ? "" : " " + spec.view_joins);
}

template <class Row>
void create_view(Database& db, const TableSpec<Row>& spec) {
  if (!spec.view_name.empty()) db.exec(view_sql(spec));
}

// Rows come back in insertion order (rowid), so a round trip is exact.
template <class Row>
std::vector<Row> load_rows(Database& db, const TableSpec<Row>& spec, const RowCodec& codec) {
  std::string sql = "SELECT ";
  for (size_t i = 0; i < spec.columns.size(); ++i) sql += (i ? ", " : "") + spec.columns[i].name;
  Statement select = db.prepare(sql + " FROM " + spec.name + " ORDER BY rowid");
  // Sized first: millions of rows appended one by one would copy the vector ~20 times over.
  // count(*) walks the table's pages without decoding a row (0.1 s for 9M rows).
  std::vector<Row> rows;
  Statement count = db.prepare("SELECT count(*) FROM " + spec.name);
  if (count.next()) rows.reserve(static_cast<size_t>(count.integer(0)));
  while (select.next()) {
    Row& row = rows.emplace_back();
    for (size_t i = 0; i < spec.columns.size(); ++i) spec.columns[i].load(row, select, static_cast<int>(i), codec);
  }
  return rows;
}

}  // namespace gpuscope::store

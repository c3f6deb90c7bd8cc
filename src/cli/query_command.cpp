// `gpuscope query FILE SQL`: run read-only SQL against a capture and print
// tab-separated rows. Handy where the sqlite3 shell is not installed (GPU hosts)
// and for scripts and tests that check exact numbers.
#include <chrono>
#include <iostream>

#include "cli/commands.h"
#include "common/error.h"
#include "gpuscope/store.h"
#include "importers/importer.h"
#include "store/sqlite_db.h"

namespace gpuscope::cli {
namespace {

struct QueryOptions {
  std::string input;
  std::string sql;
  bool header = false;
  unsigned timeout_s = 300;
};

int run_query(const QueryOptions& options) {
  const Importer& format = detect_format(options.input);
  if (format.name != "gpuscope")
    throw Error(options.input + " is " + std::string(format.description) +
                "; SQL runs on captures: 'gpuscope import -o NAME " + options.input + "' first");
  read_trace(options.input);  // validates the file the same way every command does
  store::Database db(options.input, store::Database::Mode::ReadOnly);
  // A query can run forever (a recursive CTE without an end) or for hours (a cross join of two
  // large tables); the limit turns that into one line. Rows printed before it stay printed.
  db.limit_time(std::chrono::seconds(options.timeout_s),
                "query stopped after " + std::to_string(options.timeout_s) + " s (--timeout; 0 for no limit)");
  auto select = db.prepare_user_query(options.sql);
  const int columns = select.column_count();
  if (options.header) {
    for (int c = 0; c < columns; ++c) std::cout << (c ? "\t" : "") << select.column_name(c);
    std::cout << "\n";
  }
  while (select.next()) {
    for (int c = 0; c < columns; ++c) std::cout << (c ? "\t" : "") << select.text(c);
    std::cout << "\n";
  }
  return 0;
}

}  // namespace

Command add_query_command(CLI::App& app) {
  auto options = std::make_shared<QueryOptions>();
  QueryOptions& o = *options;
  CLI::App* command = app.add_subcommand("query", "Run read-only SQL on a capture; rows are printed tab-separated");
  command->add_option("file", o.input, "A .gpuscope capture")->required();
  command->add_option("sql", o.sql, "SQL, e.g. \"SELECT COUNT(*) FROM kernels\"")->required();
  command->add_flag("--header", o.header, "Print column names first");
  command
      ->add_option("--timeout", o.timeout_s,
                   "Stop the query with an error after this many seconds (default 300; 0: no limit)")
      ->check(CLI::Range(0u, 86400u));
  return {command, [options](const std::vector<std::string>&) { return run_query(*options); }};
}

}  // namespace gpuscope::cli

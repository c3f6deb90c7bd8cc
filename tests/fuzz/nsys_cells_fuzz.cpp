// An Nsight Systems SQLite export with its values rewritten, its structure kept: the edits of
// sql_edits.h applied to a well-formed export from the shared fixtures, which the nsys importer
// then reads and gpuscope analyses as `capture` does. Byte mutations (the `nsys` target) mostly
// break SQLite's page structure; these reach the importer's meaning checks (times, ids, string
// references, enum values) and the analyses with every column of every table as a hostile or
// buggy exporter could store it.
//
// Input: byte 0 picks the base export; then kSqlEditBytes per edit (at most kMaxSqlEdits).
// Without the shared fixtures the smoke is skipped (exit 77), as the `nsys` target's is.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz_target.h"
#include "sql_edits.h"

namespace {

using gpuscope::fuzz::SqlBase;

// Two small exports of the shared fixtures: a healthy run and nsys's mock data (the larger
// fixtures cost more per input than they add).
const std::vector<SqlBase>& bases() {
  static const std::vector<SqlBase> all = [] {
    std::vector<SqlBase> made;
    for (const char* name : {"healthy_1pct.sqlite", "mock.sqlite"}) {
      std::ifstream in(std::string(GPUSCOPE_FUZZ_SHARED_DIR) + "/fixtures/nsys/" + name, std::ios::binary);
      std::string bytes(std::istreambuf_iterator<char>(in), {});
      if (bytes.empty()) {
        std::printf("skipped: no %s/fixtures/nsys/%s\n", GPUSCOPE_FUZZ_SHARED_DIR, name);
        std::exit(77);
      }
      made.push_back(gpuscope::fuzz::sql_base(std::move(bytes), {}));
    }
    return made;
  }();
  return all;
}

}  // namespace

void gpuscope::fuzz::fuzz_one(std::string_view bytes) {
  if (!bytes.empty()) analyse_everything(read_as("nsys", edited_file(bases(), bytes)));
}

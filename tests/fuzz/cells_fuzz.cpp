// A capture's values rewritten, its SQLite structure kept: the input is a list of edits
// (sql_edits.h) applied with SQL to a well-formed capture made in this process, which is then
// read and analysed as `capture` does. Byte mutations (the `capture` target) mostly break
// SQLite's page structure and stop at the reader's first check; these reach the validation and
// the analyses with every column of every table set to what a hostile or buggy writer could
// store: extreme integers, NULL, text where a number belongs, NaN, rows deleted or duplicated.
//
// Input: byte 0 picks the base capture; then kSqlEditBytes per edit (at most kMaxSqlEdits).
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz_target.h"
#include "gpuscope/store.h"
#include "sql_edits.h"
#include "synth.h"  // tests/tools

namespace {

using gpuscope::fuzz::SqlBase;

SqlBase make_base(const gpuscope::Trace& trace) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("gpuscope-cells-base-" + std::to_string(::getpid()) + ".gpuscope"))
                               .string();
  gpuscope::write_trace(path, trace);
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  std::filesystem::remove(path);
  return gpuscope::fuzz::sql_base(std::move(bytes), {"meta", "strings", "run"});
}

// The captures edits start from: a training-shaped run (two devices, NVTX, every copy kind,
// syncs, memory events, GPU samples), a launch storm, and the hostile-names capture.
const std::vector<SqlBase>& bases() {
  static const std::vector<SqlBase> all = [] {
    namespace synth = gpuscope::synth;
    std::vector<SqlBase> made;
    synth::ScaleOptions run;
    run.records = 600;
    run.streams = 2;
    run.layers = 2;
    made.push_back(make_base(synth::scale_run(run)));
    synth::StormOptions storm;
    storm.launches = 300;
    storm.step = 50;
    made.push_back(make_base(synth::launch_storm(storm)));
    made.push_back(make_base(synth::hostile()));
    return made;
  }();
  return all;
}

}  // namespace

void gpuscope::fuzz::fuzz_one(std::string_view bytes) {
  if (!bytes.empty()) analyse_everything(read_as("gpuscope", edited_file(bases(), bytes)));
}

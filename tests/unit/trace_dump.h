// A trace as text, for the importer diff tests (importer_diff_test.cpp): what a reader made of a
// file, table by table, in a form a reviewer reads in a diff. Implemented in trace_dump.cpp.
#pragma once

#include <string>

#include "gpuscope/model.h"

namespace gpuscope::testing {

// The trace as its capture file stores it (docs/schema.md), written to `scratch_file` and read
// back with SQL: every public table in name order (a packed table through its view, ids beside
// the names where a *_named view resolves them; not meta, which names the writer's version), its
// rows in stored order. A table of more than
// kDumpRowsShown rows shows its first and last rows and the FNV-1a hash of all of them, so a
// change anywhere in it shows up without the file growing with the fixture.
std::string dump_trace(const Trace& trace, const std::string& scratch_file);

inline constexpr size_t kDumpRowsShown = 30;

}  // namespace gpuscope::testing

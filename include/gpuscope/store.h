// The store: one capture = one plain SQLite 3 file (NAME.gpuscope).
// Schema documented column by column in docs/schema.md.
#pragma once

#include <string>

#include "gpuscope/model.h"

namespace gpuscope {

// The schema version this build writes, and the only one it reads (docs/schema.md, "Versions").
inline constexpr int kSchemaVersion = 14;

// Writes the trace atomically (to PATH.tmp, then renamed). Throws gpuscope::Error.
void write_trace(const std::string& path, const Trace& trace);

// Reads a whole capture. Throws gpuscope::Error with a one-line message for
// a missing file, a non-SQLite or foreign file, a truncated or corrupt
// database, or a schema other than kSchemaVersion (an older one's message names
// the gpuscope that reads it).
Trace read_trace(const std::string& path);

}  // namespace gpuscope

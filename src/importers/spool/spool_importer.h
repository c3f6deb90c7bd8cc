// Imports our own capture spool (src/spool/format.h) into the trace model,
// exactly like any foreign format: one importer path, one model.
#pragma once

#include <cstdint>
#include <string>

#include "gpuscope/model.h"

namespace gpuscope {

struct SpoolImportResult {
  uint32_t pid = 0;
  uint64_t records = 0;
  bool truncated = false;        // no End record: the process died or was killed
  uint64_t bytes_discarded = 0;  // a partial or damaged tail that could not be read
};

// Appends one process's spool to `trace`. A spool cut short (crash, SIGKILL)
// is not an error: every whole chunk is kept and the loss is recorded in
// trace.data_loss. Throws gpuscope::Error for a file that is not a spool or
// has a format version other than this build's.
SpoolImportResult import_spool(const std::string& path, Trace& trace);

// Convenience for one spool; also runs finalize_trace.
Trace import_spool(const std::string& path);

}  // namespace gpuscope

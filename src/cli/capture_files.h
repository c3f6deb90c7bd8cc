// Where a capture's files live and how spools become one capture:
// `profile` writes NAME.gpuscope, and while the program runs each CUDA
// process writes NAME.<pid>.spool next to it (src/spool/format.h).
#pragma once

#include <string>
#include <vector>

#include "gpuscope/model.h"

namespace gpuscope::cli {

// "out/bsr" or "out/bsr.gpuscope" -> "out/bsr.gpuscope" (absolute).
std::string capture_path(const std::string& name);

// The prefix each process appends ".<pid>.spool" to: the capture path without ".gpuscope".
std::string spool_prefix(const std::string& capture_path);

// Spools PREFIX.<pid>.spool that exist now, sorted by pid.
std::vector<std::string> find_spools(const std::string& prefix);

// Throws "PATH already exists (use --force to overwrite<or_else>)" when any directory entry is at
// `path` and `force` is off. A symlink counts even when it dangles: fs::exists follows links, and
// writing through a dangling one would silently create or replace a file somewhere else.
void refuse_existing_output(const std::string& path, bool force, const std::string& or_else = "");

// Whether any directory entry (file, directory, symlink dangling or not) is at `path`.
bool path_taken(const std::string& path);

// The capture library: $GPUSCOPE_INJECT_LIB if set, else next to the gpuscope
// executable, else ../lib/gpuscope/ relative to it. Throws if none exists.
std::string find_inject_library(const std::string& override_path);

}  // namespace gpuscope::cli

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

// The capture library: $GPUSCOPE_INJECT_LIB if set, else next to the gpuscope
// executable, else ../lib/gpuscope/ relative to it. Throws if none exists.
std::string find_inject_library(const std::string& override_path);

}  // namespace gpuscope::cli

// The scale bench's spools: a trace written back as one spool per process, as a capture leaves them.
#pragma once

#include <string>
#include <vector>

#include "gpuscope/model.h"

namespace gpuscope::bench {

// Writes dir/scale.<pid>.spool for every process of `trace`; returns the paths. Throws
// std::runtime_error when a file cannot be written.
std::vector<std::string> write_spools(const Trace& trace, const std::string& dir);

}  // namespace gpuscope::bench

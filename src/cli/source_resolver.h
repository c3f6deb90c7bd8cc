// The CLI's SourceResolver (gpuscope/analysis_source.h): a cubin's line table through CUPTI's
// host API (libgpuscope_cupti_host.so) and its SASS through the toolkit's nvdisasm, each used
// when found; source files where the line table names them, else under `source_dirs`. Made
// once per command; the report calls it from one thread.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "gpuscope/analysis_source.h"

namespace gpuscope::cli {

std::shared_ptr<const analysis::SourceResolver> make_source_resolver(std::vector<std::string> source_dirs = {});

}  // namespace gpuscope::cli

// Work every importer shares once all sources of a trace are loaded:
// sorting, NVTX nesting, joining synchronizations to their threads, and
// counting what could not be matched (data loss is data).
#pragma once

#include "gpuscope/model.h"

namespace gpuscope {

void finalize_trace(Trace& trace);

}  // namespace gpuscope

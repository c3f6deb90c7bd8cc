// Work every importer shares once all sources of a trace are loaded:
// validation (validate.h), sorting, NVTX nesting, joining synchronizations to their threads, and
// counting what could not be matched (data loss is data).
#pragma once

#include "gpuscope/model.h"

namespace gpuscope {

// Everything below, after converting PyTorch's NVTX op ranges to host ops (torch_nvtx.h).
void finalize_trace(Trace& trace);

// Host ops sorted by start (an op before the ops it holds) with their depths, and the depths of
// NVTX push/pop ranges (sorted by start already). Part of finalize_trace; also what a capture
// needs after its NVTX op ranges were converted on reading (written before that conversion).
void nest_ranges(Trace& trace);

}  // namespace gpuscope

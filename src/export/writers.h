// The trace writers behind the export registry (gpuscope/export.h, exporters.cpp).
// docs/export.md says what each writes.
#pragma once

#include <ostream>

#include "export/tracks.h"
#include "gpuscope/model.h"

namespace gpuscope::exporting {

// Chrome Trace Event JSON in the dialect PyTorch's profiler (Kineto) writes (chrome_trace.cpp).
void write_chrome_trace(const Trace& trace, const tracks::Layout& layout, std::ostream& out);

}  // namespace gpuscope::exporting

// The trace writers behind the export registry (gpuscope/export.h, exporters.cpp).
// docs/export.md says what each writes.
#pragma once

#include <ostream>

#include "export/tracks.h"
#include "gpuscope/model.h"

namespace gpuscope::exporting {

// Chrome Trace Event JSON in the dialect PyTorch's profiler (Kineto) writes (chrome_trace.cpp).
void write_chrome_trace(const Trace& trace, const tracks::Layout& layout, std::ostream& out);

struct PerfettoOptions {
  // Kernel launch details (grid, block, registers, shared memory, correlation id) as debug
  // annotations. On: what the export writes. Off: what the size test also measures, so
  // docs/export.md can say what the details cost.
  bool launch_details = true;
};

// Perfetto's native protobuf trace, TracePacket by TracePacket (perfetto_trace.cpp).
void write_perfetto_trace(const Trace& trace, const tracks::Layout& layout, std::ostream& out,
                          const PerfettoOptions& options = {});

}  // namespace gpuscope::exporting

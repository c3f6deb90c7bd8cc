// The trace writers behind the export registry (gpuscope/export.h, exporters.cpp).
// docs/export.md says what each writes.
#pragma once

#include <ostream>

#include "gpuscope/export.h"
#include "gpuscope/model.h"
#include "gpuscope/tracks.h"

namespace gpuscope::exporting {

// Chrome Trace Event JSON in the dialect PyTorch's profiler (Kineto) writes (chrome_trace.cpp).
// settings.details: the GPU work's arguments (launch configuration, bytes, bandwidth) and the API
// calls'; settings.rank and world_size: the distributedInfo.
void write_chrome_trace(const Trace& trace, const tracks::Layout& layout, std::ostream& out,
                        const ExportSettings& settings = {});

struct PerfettoOptions {
  // GPU work's details (launch configuration, bytes, correlation id where no flow) as debug
  // annotations; off with `gpuscope export --no-details`. The size test measures both.
  bool launch_details = true;
};

// Perfetto's native protobuf trace, TracePacket by TracePacket (perfetto_trace.cpp).
void write_perfetto_trace(const Trace& trace, const tracks::Layout& layout, std::ostream& out,
                          const PerfettoOptions& options = {});

}  // namespace gpuscope::exporting

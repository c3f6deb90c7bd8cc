// torch.profiler (Kineto) and Chrome JSON traces, plain or gzip: detection by content and the
// streaming reader (kineto_import.h has its parts; docs/import.md what maps to what).
#pragma once

#include <string>

#include "gpuscope/model.h"
#include "importers/importer.h"

namespace gpuscope {

// JSON whose top-level object has "traceEvents" (or Kineto's "deviceProperties") in the head.
bool is_chrome_trace(const Probe& probe);
// Streams the file into `trace` (not finalized); throws Error with one line for bad input.
void read_chrome_trace(const std::string& path, Trace& trace);

}  // namespace gpuscope

// Nsight Systems SQLite exports (`nsys export --type sqlite`, or the .sqlite `nsys stats`
// leaves): the CUDA timeline, NVTX, processes and devices of an nsys report as a Trace.
// What is read, table by table, and what is skipped: docs/import.md.
#pragma once

#include <string>

#include "gpuscope/model.h"
#include "importers/importer.h"

namespace gpuscope {

// An SQLite database with nsys's META_DATA_EXPORT table.
bool is_nsys_export(const Probe& probe);

// Appends the export's records to `trace` and fills trace.run's source_*. Throws Error with one
// line when the file is damaged or holds nothing gpuscope can use (no kernels, API calls or copies).
void read_nsys_export(const std::string& path, Trace& trace);

}  // namespace gpuscope

// The ncu CSV importer (registry.cpp): `ncu --csv --page raw` or `--page details` output, read
// as a metrics-only capture or attached to a capture of the same program (--metrics-from).
// How it reads and what it cannot know: docs/import.md, "Nsight Compute CSV".
#pragma once

#include <string>

#include "gpuscope/model.h"
#include "importers/importer.h"

namespace gpuscope {

namespace ncu {
struct LaunchCounts;
}

// The file's start has ncu's CSV header (past ==PROF== lines and program output).
bool is_ncu_csv(const Probe& probe);

// A metrics-only capture: a kernel per profiled launch, placed back to back in launch order
// with its measured duration (ncu records no timeline; said in the Run section's source gaps).
void read_ncu_csv(const std::string& path, Trace& trace);
// The same, with the launches read and the most held at once (tests: the raw page streams).
void read_ncu_csv(const std::string& path, Trace& trace, ncu::LaunchCounts* counts);

// Attaches the file's metrics to the matching launches of `trace` (finished): matched by kernel
// name, then launch order per name. Throws Error when no launch matches.
void attach_ncu_metrics(const std::string& path, Trace& trace);

}  // namespace gpuscope

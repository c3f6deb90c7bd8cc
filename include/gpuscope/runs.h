// Captures with several runs (`gpuscope bench`): every record carries the id
// of the run it came from (model.h, BenchRun). These helpers build such a
// trace from single captures and take one run back out of it.
#pragma once

#include <cstdint>
#include <vector>

#include "gpuscope/model.h"

namespace gpuscope {

// Appends every record of `run` (a single capture) to `into`, stamped with
// run_id; names are re-interned into into's string table. Devices and
// processes are appended too (a run's pids are its own). into.run is left alone but for where
// host ops came from, which the first run that says gives.
void append_run(Trace& into, const Trace& run, uint32_t run_id);

// The records of one run, as a single capture (same string table). For a
// trace without bench runs, run 0 is the whole trace.
Trace select_run(const Trace& trace, uint32_t run_id);

// The records of one process (pid), with the whole trace's string table, run and source gaps:
// one rank of a job as a capture of its own (export --per-rank).
Trace select_process(const Trace& trace, uint32_t pid);

}  // namespace gpuscope

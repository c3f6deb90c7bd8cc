// The store: one capture = one plain SQLite 3 file (NAME.gpuscope).
// Schema documented column by column in docs/schema.md.
#pragma once

#include <string>

#include "gpuscope/model.h"

namespace gpuscope {

// Schema version written by this build. Readers accept any version <= this.
// v2: run_id on every record table and the bench_runs table (`gpuscope bench`);
// a v1 file reads as a single capture, every record in run 0.
// v3: processes.cupti_path / cupti_shared.
// v4: kernel_metrics, gpu_metric_samples, metric_collections (hardware metrics);
// older files read with none.
// v5: run.source_* (imported files), source_gaps, host_ops, external_correlations.
// v6: metric_collections.source (metrics attached from an ncu CSV).
// v7: capture_windows, api_call_counts; v8: processes.rank / local_rank / world_size.
// v9: the event tables packed (times as offsets from run.start_ns and durations, enums as
// codes, kernel launch configurations in kernel_launches, no indices), each read through a
// view of its old name and columns; older files read through their plain layout.
// v10: collective_calls (bytes and ranks of NCCL's calls, per communication kernel).
inline constexpr int kSchemaVersion = 10;

// Writes the trace atomically (to PATH.tmp, then renamed). Throws gpuscope::Error.
void write_trace(const std::string& path, const Trace& trace);

// Reads a whole capture. Throws gpuscope::Error with a one-line message for
// a missing file, a non-SQLite or foreign file, a truncated or corrupt
// database, or a schema newer than this build knows.
Trace read_trace(const std::string& path);

}  // namespace gpuscope

// Validation at the boundary: every trace an importer builds, and every capture read back,
// passes through validate_trace before any analysis sees it, so analyses can trust the model.
// Impossible values (from a damaged spool, a capture written by other means, a foreign
// profiler's file) are rejected or cleared, never guessed, and each kind of fix is counted as
// a DataLoss row: data loss is data.
#pragma once

#include "gpuscope/model.h"

namespace gpuscope {

// Data-loss kinds written here (DataLoss::what).
inline constexpr char kInvalidKernelConfig[] = "invalid_kernel_config";
inline constexpr char kInvalidDevice[] = "invalid_device";
inline constexpr char kInvalidTimes[] = "invalid_times";
inline constexpr char kInvalidSize[] = "invalid_size";

// - a kernel launch configuration CUDA cannot launch (a dimension not positive or past CUDA's
//   limits, more than 1024 threads or 255 registers per thread, more shared memory than any GPU
//   has) is cleared to "unknown" (all zero): no occupancy is computed from it;
// - a device's warp size that is not a power of two up to 1024 becomes 0, "unknown";
// - a record with an end before its start, a time before -2^60 or past 2^62 ns, or (when the
//   run's window is known) a time more than a day outside the run, is removed: records without
//   trustworthy times never enter timing analyses. A run or process with such times keeps its
//   row with its times cleared to 0 (unknown);
// - an allocation, free, copy or memset of more than 1 PiB (a negative size in a capture) is
//   removed.
// Idempotent: a capture validated when it was written finds nothing more to fix when read.
void validate_trace(Trace& trace);

}  // namespace gpuscope

// Facts about the profiled process that need no CUDA: clock, command line.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace gpuscope::capture {

// CLOCK_REALTIME in ns: the clock CUPTI's timestamps use on Linux.
int64_t realtime_ns();

// /proc/self/cmdline with the NUL separators turned into spaces; "" if unreadable.
std::string read_command_line();
// The pure part: raw cmdline bytes (NUL-separated, NUL-terminated) -> one line.
std::string command_line_from_raw(std::string_view raw);

// The process's place in a distributed job, from its launcher's environment, as
// "RANK LOCAL_RANK WORLD_SIZE" (-1 for what is not set); "" when no launcher set a rank.
// Launchers: torchrun and torch.distributed (RANK, LOCAL_RANK, WORLD_SIZE), Open MPI
// (OMPI_COMM_WORLD_*), Slurm (SLURM_PROCID, SLURM_LOCALID, SLURM_NTASKS), MPICH/PMI (PMI_RANK,
// PMI_SIZE). The first launcher whose rank variable is set wins.
std::string distributed_identity();
// The pure part: `get` reads one environment variable (nullptr: unset).
std::string distributed_identity(const char* (*get)(const char*));

}  // namespace gpuscope::capture

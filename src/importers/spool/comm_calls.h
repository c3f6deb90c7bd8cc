// NCCL's calls (CommCall records) -> CollectiveCall rows: each call goes to the NCCL kernel its
// thread launched next, so the kernel's bandwidth can be known (model.h CollectiveCall).
#pragma once

#include <cstdint>
#include <vector>

#include "gpuscope/model.h"
#include "spool/format.h"

namespace gpuscope::spool {

// `calls`: one process's, in any order. A kernel's launch call (same pid and correlation id)
// must be in `trace` already. Sizes become nccl-tests' (all-gather and reduce-scatter: the
// message times the communicator's ranks, from its CommInit call, else `world_size`); calls
// that no NCCL kernel of their thread followed are counted as data loss.
void link_comm_calls(Trace& trace, uint32_t pid, int32_t world_size, const std::vector<CommCallRecord>& calls);

}  // namespace gpuscope::spool

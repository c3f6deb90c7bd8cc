// NCCL's calls (CommCall records) -> CollectiveCall rows: each thread's calls go to the kernel of
// the Launch record that follows them (else to the NCCL kernel whose launch call the thread made
// next, from the API trace), so the kernel's bandwidth can be known (model.h CollectiveCall).
#pragma once

#include <cstdint>
#include <vector>

#include "gpuscope/model.h"
#include "spool/format.h"

namespace gpuscope::spool {

// `calls`: one process's, in any order; without Launch records, the kernels and their launch
// calls must be in `trace` already. Sizes become nccl-tests' (all-gather and reduce-scatter: the
// message times the communicator's ranks, from its CommInit call, else `world_size`); calls
// that no NCCL kernel of their thread followed are counted as data loss. A group carried out in
// several kernels sizes each (CollectiveCall::calls 0 on the kernels after the first).
void link_comm_calls(Trace& trace, uint32_t pid, int32_t world_size, const std::vector<CommCallRecord>& calls);

}  // namespace gpuscope::spool

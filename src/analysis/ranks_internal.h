// What ranks.cpp and collective_sizes.cpp share: one rank's communication kernels, and the
// matched operations (the k-th collective of every rank).
#pragma once

#include <cstdint>
#include <vector>

#include "gpuscope/analysis_ranks.h"

namespace gpuscope::analysis::ranks_detail {

struct CommKernel {
  TimeNs start = 0, end = 0;
  Collective kind = Collective::None;
  uint64_t bytes = 0;  // NCCL's message (CollectiveCall::bytes); 0: unknown
  uint32_t ranks = 0;  // communicator size; 0: unknown
};

// One operation: each participating rank's kernel, in the order of the ranks.
using Operation = std::vector<const CommKernel*>;

// Matched operations grouped by kind and message size, each timed on the rank that arrived last
// (its kernel waited for no one). `participants`: the ranks that communicated, the communicator
// size when NCCL did not say.
std::vector<CollectiveSize> size_collectives(const std::vector<Operation>& ops, size_t participants);

}  // namespace gpuscope::analysis::ranks_detail

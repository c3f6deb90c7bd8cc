// What ranks.cpp and collective_sizes.cpp share: the matched operations (the k-th collective of
// every rank) and their sizes.
#pragma once

#include <vector>

#include "gpuscope/analysis_ranks.h"

namespace gpuscope::analysis::ranks_detail {

// One operation: each participating rank's kernel, in the order of the ranks (match_collectives).
using Operation = std::vector<const CommKernel*>;

// Matched operations grouped by kind and message size, each timed on the rank that arrived last
// (its kernel waited for no one). `participants`: the ranks that communicated, the communicator
// size when NCCL did not say.
std::vector<CollectiveSize> size_collectives(const std::vector<Operation>& ops, size_t participants);

}  // namespace gpuscope::analysis::ranks_detail

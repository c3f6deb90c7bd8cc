// What ranks.cpp and collective_sizes.cpp share: the matched operations (the k-th collective of
// every rank) and their sizes.
#pragma once

#include <vector>

#include "gpuscope/analysis_ranks.h"

namespace gpuscope::analysis::ranks_detail {

// One operation: each participating rank's kernel, in the order of the ranks (match_collectives).
using Operation = std::vector<const CommKernel*>;

// Matched operations grouped by kind and message size, each timed on the rank that arrived last
// (its kernel waited for no one); an operation every rank carried on from its previous kernel's
// group (CommKernel::continues) is part of that operation. `participants`: the ranks that communicated, the
// communicator size when NCCL did not say. `unsized`: the operations left out, of no known size.
std::vector<CollectiveSize> size_collectives(const std::vector<Operation>& ops, size_t participants, size_t& unsized);

}  // namespace gpuscope::analysis::ranks_detail

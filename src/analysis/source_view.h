// The source view of one kernel (KernelSource::files, excerpt, listing and loops in
// gpuscope/analysis_source.h): which lines and instructions it shows, within its bounds.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "gpuscope/analysis_source.h"

namespace gpuscope::analysis {

// The PCs of a function's SASS the listing shows, in order: all of them, or kViewInstructions
// around `hottest_pc` when the function is longer.
std::vector<uint64_t> listing_pcs(const std::map<uint64_t, std::string>& sass, uint64_t hottest_pc);

// k.files and k.excerpt from every sampled line of the kernel (k.lines before they are cut to
// the top ones) and the files the resolver can read.
void add_file_views(KernelSource& k, const SourceResolver& resolver);

// k.loops from k.listing (its samples and lines known): every backward branch ("BRA 0x0380" to a
// PC before it) with >= 1 % of the kernel's samples inside, at most `top` (0: all).
void add_hot_loops(KernelSource& k, size_t top);

}  // namespace gpuscope::analysis

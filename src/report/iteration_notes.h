// Notes on how iterations were formed (`--iteration-range`), shared by the
// diff and bench reports so both say the same thing in the same words.
#pragma once

#include <string>
#include <vector>

#include "gpuscope/analysis_iterations.h"

namespace gpuscope::report {

// How records are placed into iterations, in one sentence.
extern const char* const kIterationAttributionNote;

// Warm-up that was not skipped, GPU work with no launching call, ambiguous
// records and never-closed instances of one capture; `who` names it ("base",
// "new", or empty for a bench's single capture).
std::vector<std::string> iteration_notes(const analysis::IterationSummary& summary, const std::string& who);

}  // namespace gpuscope::report

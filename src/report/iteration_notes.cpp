// Notes on iterations for the diff and bench reports (iteration_notes.h).
#include "report/iteration_notes.h"

#include <fmt/format.h>

namespace gpuscope::report {

const char* const kIterationAttributionNote =
    "Iterations: kernels, copies and memsets count in the iteration their launching API call started in (even when "
    "they run after the range closed); API calls and other NVTX ranges by where they start.";

std::vector<std::string> iteration_notes(const analysis::IterationSummary& s, const std::string& who) {
  const std::string prefix = who.empty() ? "" : who + ": ";
  std::vector<std::string> notes;
  if (s.skipped == 0 && s.first_ratio >= analysis::kWarmupRatio)
    notes.push_back(
        fmt::format("{}the first iteration of process {} took {:.1f}x the median of the others: likely "
                    "warm-up (module loading, first allocations, cold caches); --skip-iterations 1 "
                    "leaves it out.",
                    prefix, s.first_ratio_pid, s.first_ratio));
  if (s.unattributed_gpu)
    notes.push_back(fmt::format("{}{} GPU operations have no launching call in the capture and are in no iteration.",
                                prefix, s.unattributed_gpu));
  if (s.ambiguous)
    notes.push_back(
        fmt::format("{}{} calls or ranges started inside iterations of several other threads at once and "
                    "are in no iteration.",
                    prefix, s.ambiguous));
  if (s.unclosed)
    notes.push_back(
        fmt::format("{}{} instances of the range were never closed and are not iterations.", prefix, s.unclosed));
  return notes;
}

}  // namespace gpuscope::report

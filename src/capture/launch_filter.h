// Which kernel launches `--metrics` measures, chosen as ncu's -k / -s / -c choose them: the
// launches whose kernel name matches the regex (mangled or demangled, ECMAScript, searched
// anywhere in the name), minus the first `skip` of those, and at most `count` measured.
// CUDA-free, so the choice is unit-tested on a CPU. Not thread-safe: the kernel profiler asks
// under its mutex.
#pragma once

#include <cstdint>
#include <optional>
#include <regex>
#include <string>
#include <unordered_map>

namespace gpuscope::capture {

class LaunchFilter {
 public:
  // An empty regex matches every kernel. An invalid one leaves `error` set (and matches none).
  LaunchFilter(const std::string& regex, uint64_t skip, uint64_t count, std::string& error);

  enum class Verdict {
    Skip,     // not this launch
    Measure,  // measure this launch
    Done,     // `count` launches are measured: no later launch will be
  };

  // The verdict for the next launch of `symbol` (CUPTI's mangled name, may be null), given how
  // many launches were measured (or failed to be) so far.
  Verdict next(const char* symbol, uint64_t measured);

  bool by_name() const { return regex_.has_value(); }  // a --kernel regex was given
  uint64_t matched() const { return matched_; }        // launches that matched it so far

 private:
  bool matches(const char* symbol);

  std::optional<std::regex> regex_;
  bool invalid_ = false;
  uint64_t skip_, count_;
  uint64_t matched_ = 0;
  std::unordered_map<std::string, bool> verdict_by_name_;  // regex searches are not cheap
};

}  // namespace gpuscope::capture

// libgpuscope_cupti_host.so (src/capture/host_library.cpp) as the CLI uses it: CUPTI's host-side
// API (metric lists and checks, the local chip, a cubin's line table) without the CLI linking
// libcupti. Loaded on first use, found through $GPUSCOPE_CUPTI_HOST_LIB, next to the binary, or
// in ../lib/gpuscope/; never unloaded (libcupti, which it loads, does not like that).
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace gpuscope::cli {

class CuptiHost {
 public:
  // Throws gpuscope::Error (one line) when the library is missing or from another build.
  explicit CuptiHost(const std::string& override_path);

  nlohmann::json chips() const;
  nlohmann::json metrics(const std::string& chip, bool sampling, bool submetrics) const;
  // `required`: names a chip without them must not drop (the user's --metric), as in profile.
  nlohmann::json check(const std::string& chip, bool sampling, const std::vector<std::string>& names,
                       const std::vector<std::string>& required) const;
  nlohmann::json local_chip() const;
  // {"lines": [[file, line], ...]}: each PC's place in `function` of `cubin` (line 0: none).
  nlohmann::json source_lines(const std::string& cubin, const std::string& function,
                              const std::vector<uint64_t>& pcs) const;

 private:
  nlohmann::json take(char* raw) const;

  char* (*chips_)() = nullptr;
  char* (*metrics_)(const char*, int, int) = nullptr;
  using CheckFn = char* (*)(const char*, int, const char* const*, size_t, const char* const*, size_t);
  CheckFn check_ = nullptr;
  char* (*local_chip_)() = nullptr;
  using SourceLinesFn = char* (*)(const void*, size_t, const char*, const uint64_t*, size_t);
  SourceLinesFn source_lines_ = nullptr;
  void (*free_)(char*) = nullptr;
};

}  // namespace gpuscope::cli

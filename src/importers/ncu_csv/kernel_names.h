// Matching ncu's kernel names to a capture's. ncu prints names its own way (--print-kernel-base:
// the function only, demangled with its own demangler, or mangled), the capture has CUPTI's
// mangled name and the C++ runtime's demangling, so "void k<32>(const float *, int)" from ncu
// is "void k<32>(float const*, int)" in the capture. Names are compared at decreasing
// strictness: exact (demangled or mangled), without spaces, the function with its template
// arguments, the function alone; the first level at which exactly one capture kernel matches wins.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace gpuscope::ncu {

// "void ns::k<32>(float const*, int)" -> "ns::k<32>" (templates kept) or "ns::k"; spaces removed.
std::string function_part(std::string_view name, bool keep_templates);

class NameMatcher {
 public:
  // `demangled[i]` and `mangled[i]` are the names of capture kernel i (a kernel name group).
  NameMatcher(const std::vector<std::string>& demangled, const std::vector<std::string>& mangled);
  // The capture kernel `ncu_name` is, or -1 (no match) or -2 (several match).
  int match(std::string_view ncu_name) const;

 private:
  static constexpr int kLevels = 4;
  std::map<std::string, std::vector<int>, std::less<>> keys_[kLevels];
};

}  // namespace gpuscope::ncu

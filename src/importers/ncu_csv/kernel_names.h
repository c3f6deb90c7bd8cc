// Matching ncu's kernel names to a capture's. ncu prints names its own way (--print-kernel-base:
// the function only, demangled with its own demangler, or mangled), the capture has CUPTI's
// mangled name and the C++ runtime's demangling, so "void k<32>(const float *, int)" from ncu
// is "void k<32>(float const*, int)" in the capture. Names are compared at decreasing
// strictness: exact (demangled or mangled), without spaces, the function with its template
// arguments, the function alone, and both again without namespaces (ncu 2025.3 prints
// "void k<128>(...)" for the capture's "void ns::k<128>(...)"); the first level at which any
// capture kernel matches decides, and only when exactly one does.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace gpuscope::ncu {

// "void ns::k<32>(float const*, int)" -> "ns::k<32>" (templates kept) or "ns::k"; without the
// namespaces "k<32>" or "k". Spaces removed.
std::string function_part(std::string_view name, bool keep_templates, bool keep_namespaces = true);

class NameMatcher {
 public:
  // `demangled[i]` and `mangled[i]` are the names of capture kernel i (a kernel name group).
  NameMatcher(const std::vector<std::string>& demangled, const std::vector<std::string>& mangled);
  // The capture kernel `ncu_name` is, or -1 (no match) or -2 (several match).
  int match(std::string_view ncu_name) const;

 private:
  static constexpr int kLevels = 6;
  std::map<std::string, std::vector<int>, std::less<>> keys_[kLevels];
};

}  // namespace gpuscope::ncu

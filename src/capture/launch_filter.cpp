#include "capture/launch_filter.h"

#include <cxxabi.h>

#include <cstdlib>

namespace gpuscope::capture {
namespace {

std::string demangled(const std::string& name) {
  int status = 0;
  char* text = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  std::string out = status == 0 && text != nullptr ? text : name;
  std::free(text);
  return out;
}

}  // namespace

LaunchFilter::LaunchFilter(const std::string& regex, uint64_t skip, uint64_t count, std::string& error)
    : skip_(skip), count_(count) {
  if (regex.empty()) return;
  try {
    regex_.emplace(regex, std::regex::ECMAScript | std::regex::optimize);
  } catch (const std::regex_error&) {
    invalid_ = true;
    error = "the --kernel regex '" + regex + "' is not a valid ECMAScript regex";
  }
}

bool LaunchFilter::matches(const char* symbol) {
  if (invalid_) return false;
  if (!regex_) return true;
  const std::string name = symbol ? symbol : "";
  auto [it, fresh] = verdict_by_name_.try_emplace(name, false);
  if (fresh) it->second = std::regex_search(name, *regex_) || std::regex_search(demangled(name), *regex_);
  return it->second;
}

LaunchFilter::Verdict LaunchFilter::next(const char* symbol, uint64_t measured) {
  if (!matches(symbol)) return Verdict::Skip;
  ++matched_;
  if (measured >= count_) return Verdict::Done;
  return matched_ > skip_ ? Verdict::Measure : Verdict::Skip;
}

}  // namespace gpuscope::capture

#include "importers/ncu_csv/kernel_names.h"

#include <algorithm>
#include <cctype>

namespace gpuscope::ncu {

namespace {

std::string without_spaces(std::string_view s) {
  std::string out;
  for (char c : s)
    if (!std::isspace(static_cast<unsigned char>(c))) out += c;
  return out;
}

std::string key(int level, std::string_view name) {
  switch (level) {
    case 0: return std::string(name);
    case 1: return without_spaces(name);
    case 2: return function_part(name, true);
    case 3: return function_part(name, false);
    case 4: return function_part(name, true, false);
    default: return function_part(name, false, false);
  }
}

void add(std::vector<int>& groups, int g) {
  if (std::find(groups.begin(), groups.end(), g) == groups.end()) groups.push_back(g);
}

}  // namespace

std::string function_part(std::string_view name, bool keep_templates, bool keep_namespaces) {
  // Parameters: the bracketed list at the end, matched from the back.
  if (!name.empty() && name.back() == ')') {
    int depth = 0;
    for (size_t i = name.size(); i-- > 0;) {
      if (name[i] == ')') ++depth;
      if (name[i] == '(' && --depth == 0) {
        name = name.substr(0, i);
        break;
      }
    }
  }
  // Return type: everything up to the last space outside brackets ("void ", "float2 ").
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (c == '<' || c == '(' || c == '[') ++depth;
    if ((c == '>' || c == ')' || c == ']') && depth > 0) --depth;
    if (c == ' ' && depth == 0) start = i + 1;
  }
  name = name.substr(start);
  if (!keep_namespaces) {
    // Up to the last "::" outside template arguments and brackets.
    depth = 0;
    size_t unqualified = 0;
    for (size_t i = 0; i + 1 < name.size(); ++i) {
      if (name[i] == '<' || name[i] == '(') ++depth;
      if ((name[i] == '>' || name[i] == ')') && depth > 0) --depth;
      if (depth == 0 && name[i] == ':' && name[i + 1] == ':') unqualified = i + 2;
    }
    name = name.substr(unqualified);
  }
  if (!keep_templates) {
    depth = 0;
    for (size_t i = 0; i < name.size(); ++i) {
      if (name[i] == '(') ++depth;
      if (name[i] == ')' && depth > 0) --depth;
      if (name[i] == '<' && depth == 0) {
        name = name.substr(0, i);
        break;
      }
    }
  }
  return without_spaces(name);
}

NameMatcher::NameMatcher(const std::vector<std::string>& demangled, const std::vector<std::string>& mangled) {
  for (size_t g = 0; g < demangled.size(); ++g) {
    const int group = static_cast<int>(g);
    add(keys_[0][demangled[g]], group);
    if (!mangled[g].empty()) add(keys_[0][mangled[g]], group);
    for (int level = 1; level < kLevels; ++level) add(keys_[level][key(level, demangled[g])], group);
  }
}

int NameMatcher::match(std::string_view ncu_name) const {
  for (int level = 0; level < kLevels; ++level) {
    auto it = keys_[level].find(key(level, ncu_name));
    if (it == keys_[level].end()) continue;
    return it->second.size() == 1 ? it->second.front() : -2;
  }
  return -1;
}

}  // namespace gpuscope::ncu

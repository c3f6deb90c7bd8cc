// Small helpers for the registries of named things (report formats, trace exports): names in
// order, lookup by name or alias ignoring case, and the "a, b or c" lists that --help and errors show.
#pragma once

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <vector>

namespace gpuscope {

inline std::string lowercase(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// "text, markdown, json or html".
inline std::string or_list(const std::vector<std::string>& names) {
  std::string list;
  for (size_t i = 0; i < names.size(); ++i) list += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return list;
}

// Each entry's `name`, in registry order.
template <typename Entry>
std::vector<std::string> names_of(const std::vector<Entry>& entries) {
  std::vector<std::string> names;
  for (const Entry& e : entries) names.push_back(e.name);
  return names;
}

// The entry named `name` (case-insensitive), or null.
template <typename Entry>
const Entry* find_named(const std::vector<Entry>& entries, std::string_view name) {
  const std::string wanted = lowercase(name);
  for (const Entry& e : entries)
    if (e.name == wanted) return &e;
  return nullptr;
}

}  // namespace gpuscope

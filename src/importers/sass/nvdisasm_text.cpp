// parse_nvdisasm (nvdisasm_text.h).
#include "importers/sass/nvdisasm_text.h"

#include <cctype>

namespace gpuscope::sass {
namespace {

bool space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace

std::map<std::string, FunctionSass> parse_nvdisasm(std::string_view text) {
  constexpr std::string_view kSection = ".text.";
  std::map<std::string, FunctionSass> functions;
  FunctionSass* sass = nullptr;  // the function being read
  while (!text.empty()) {
    const size_t newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text = newline == std::string_view::npos ? std::string_view() : text.substr(newline + 1);
    if (const std::string_view label = trimmed(line);
        label.size() > kSection.size() + 1 && label.substr(0, kSection.size()) == kSection && label.back() == ':') {
      sass = &functions[std::string(label.substr(kSection.size(), label.size() - kSection.size() - 1))];
      continue;
    }
    const size_t open = line.find("/*");
    if (open == std::string_view::npos) continue;
    const size_t close = line.find("*/", open + 2);
    if (close == std::string_view::npos || close == open + 2) continue;
    // The address: hex digits only, else a comment such as the encoding "/* 0x000... */".
    uint64_t pc = 0;
    bool hex = close - open - 2 <= 16;
    for (size_t i = open + 2; hex && i < close; ++i) {
      const auto c = static_cast<unsigned char>(line[i]);
      hex = std::isxdigit(c) != 0;
      pc = pc * 16 + static_cast<uint64_t>(std::isdigit(c) ? c - '0' : (c | 0x20) - 'a' + 10);
    }
    if (!hex) continue;
    std::string_view rest = line.substr(close + 2);
    const size_t end = rest.find(';');
    if (end == std::string_view::npos) continue;
    rest = trimmed(rest.substr(0, end));
    // "{ IADD3 ..." opens a dual-issue pair in older output; keep the instruction.
    if (!rest.empty() && rest.front() == '{') rest = trimmed(rest.substr(1));
    if (!rest.empty() && sass != nullptr) sass->emplace(pc, std::string(rest));
  }
  return functions;
}

}  // namespace gpuscope::sass

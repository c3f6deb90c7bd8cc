// parse_nvdisasm (nvdisasm_text.h).
#include "importers/sass/nvdisasm_text.h"

#include <cctype>
#include <cstdio>
#include <string>
#include <vector>

namespace gpuscope::sass {
namespace {

bool space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

// "`(.L_x_4)" in each instruction of `sass` becomes the label's PC, "0x0380", where the label is
// one of `labels` (a branch target the listing can point at; labels are not instructions).
void resolve_labels(FunctionSass& sass, const std::map<std::string, uint64_t>& labels) {
  for (auto& [pc, text] : sass) {
    const size_t open = text.find("`(");
    const size_t close = open == std::string::npos ? std::string::npos : text.find(')', open);
    if (close == std::string::npos) continue;
    const auto target = labels.find(text.substr(open + 2, close - open - 2));
    if (target == labels.end()) continue;
    char hex[24];
    std::snprintf(hex, sizeof hex, "0x%04llx", static_cast<unsigned long long>(target->second));
    text.replace(open, close + 1 - open, hex);
  }
}

}  // namespace

std::map<std::string, FunctionSass> parse_nvdisasm(std::string_view text) {
  constexpr std::string_view kSection = ".text.";
  std::map<std::string, FunctionSass> functions;
  FunctionSass* sass = nullptr;                                     // the function being read
  std::map<FunctionSass*, std::map<std::string, uint64_t>> labels;  // per function: label -> PC
  std::vector<std::string> pending;  // labels read since the last instruction: they name the next
  while (!text.empty()) {
    const size_t newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text = newline == std::string_view::npos ? std::string_view() : text.substr(newline + 1);
    if (const std::string_view label = trimmed(line);
        label.size() > kSection.size() + 1 && label.substr(0, kSection.size()) == kSection && label.back() == ':') {
      sass = &functions[std::string(label.substr(kSection.size(), label.size() - kSection.size() - 1))];
      pending.clear();
      continue;
    }
    if (const std::string_view label = trimmed(line);
        label.size() > 4 && label.substr(0, 3) == ".L_" && label.back() == ':' && pending.size() < 64) {
      pending.emplace_back(label.substr(0, label.size() - 1));
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
    if (rest.empty() || sass == nullptr) continue;
    sass->emplace(pc, std::string(rest));
    for (std::string& label : pending) labels[sass].emplace(std::move(label), pc);
    pending.clear();
  }
  for (auto& [function, targets] : labels) resolve_labels(*function, targets);
  return functions;
}

}  // namespace gpuscope::sass

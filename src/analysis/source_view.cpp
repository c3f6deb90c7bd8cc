// listing_pcs, add_file_views and add_hot_loops (source_view.h).
#include "analysis/source_view.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>
#include <string_view>

namespace gpuscope::analysis {
namespace {

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> out;
  for (std::string_view rest = text; !rest.empty();) {
    const size_t newline = rest.find('\n');
    out.push_back(rest.substr(0, newline));
    rest = newline == std::string_view::npos ? std::string_view() : rest.substr(newline + 1);
  }
  return out;
}

// The line numbers a file's view shows: each sampled line (hottest first) with kViewContext
// lines around it, while the total stays within kViewLines.
std::set<uint32_t> shown_lines(const std::vector<const SourceHotspot*>& sampled, uint32_t file_lines) {
  std::set<uint32_t> shown;
  for (const SourceHotspot* h : sampled) {
    const uint32_t line = h->location.line;
    const uint32_t first = line > kViewContext ? line - kViewContext : 1;
    const uint32_t last = std::min(file_lines, line + kViewContext);
    size_t added = 0;
    for (uint32_t n = first; n <= last; ++n) added += shown.count(n) ? 0 : 1;
    if (!shown.empty() && shown.size() + added > kViewLines) continue;
    for (uint32_t n = first; n <= last; ++n) shown.insert(n);
  }
  return shown;
}

double share(uint64_t part, uint64_t whole) {
  return whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0;
}

constexpr double kMinLoopShare = 1.0;  // % of the kernel's samples: fewer is not a hot loop

// The target of a branch ("@!P0 BRA 0x0380", "BRA.U 0x0100"): nullopt for anything else.
std::optional<uint64_t> branch_target(const std::string& sass) {
  size_t opcode = sass.rfind('@', 0) == 0 ? sass.find(' ') : 0;
  if (opcode == std::string::npos) return std::nullopt;
  while (opcode < sass.size() && sass[opcode] == ' ') ++opcode;
  if (sass.compare(opcode, 3, "BRA") != 0) return std::nullopt;
  const size_t target = sass.rfind(" 0x");
  if (target == std::string::npos || target < opcode) return std::nullopt;
  uint64_t pc = 0;
  size_t digits = 0;
  for (size_t i = target + 3; i < sass.size() && std::isxdigit(static_cast<unsigned char>(sass[i])); ++i, ++digits)
    pc = pc * 16 + static_cast<uint64_t>(
                       std::isdigit(static_cast<unsigned char>(sass[i])) ? sass[i] - '0' : (sass[i] | 0x20) - 'a' + 10);
  return digits > 0 && digits <= 16 ? std::optional<uint64_t>(pc) : std::nullopt;
}

}  // namespace

std::vector<uint64_t> listing_pcs(const std::map<uint64_t, std::string>& sass, uint64_t hottest_pc) {
  auto first = sass.begin();
  if (sass.size() > kViewInstructions) {
    const auto hottest = sass.lower_bound(hottest_pc);
    const size_t before = static_cast<size_t>(std::distance(sass.begin(), hottest));
    const size_t start = std::min(before > kViewInstructions / 2 ? before - kViewInstructions / 2 : 0,
                                  sass.size() - kViewInstructions);
    std::advance(first, static_cast<std::ptrdiff_t>(start));
  }
  std::vector<uint64_t> out;
  for (auto it = first; it != sass.end() && out.size() < kViewInstructions; ++it) out.push_back(it->first);
  return out;
}

void add_file_views(KernelSource& k, const SourceResolver& resolver) {
  const auto hottest = std::max_element(k.lines.begin(), k.lines.end(),
                                        [](const SourceHotspot& a, const SourceHotspot& b) {
                                          return a.samples < b.samples;
                                        });
  if (hottest == k.lines.end()) return;
  // Files by samples, the hottest line's first.
  std::map<std::string, uint64_t> file_samples;
  for (const SourceHotspot& h : k.lines) file_samples[h.location.file] += h.samples;
  std::vector<std::pair<std::string, uint64_t>> files(file_samples.begin(), file_samples.end());
  std::stable_sort(files.begin(), files.end(), [&](const auto& a, const auto& b) {
    const bool a_hot = a.first == hottest->location.file, b_hot = b.first == hottest->location.file;
    return a_hot != b_hot ? a_hot : a.second > b.second;
  });
  for (const auto& [file, samples] : files) {
    if (k.files.size() >= kViewFiles) break;
    const std::string text = resolver.source_file(file);
    const std::vector<std::string_view> file_lines = split_lines(text);
    std::vector<const SourceHotspot*> sampled;
    for (const SourceHotspot& h : k.lines)
      if (h.location.file == file) sampled.push_back(&h);
    std::stable_sort(sampled.begin(), sampled.end(),
                     [](const SourceHotspot* a, const SourceHotspot* b) { return a->samples > b->samples; });
    // A sampled line past the end: not the file as it was built.
    const bool as_built = std::all_of(sampled.begin(), sampled.end(),
                                      [&](const SourceHotspot* h) { return h->location.line <= file_lines.size(); });
    if (file_lines.empty() || !as_built) continue;
    SourceFileText view{file, samples, {}};
    for (const uint32_t n : shown_lines(sampled, static_cast<uint32_t>(file_lines.size()))) {
      SourceLineText row{n, std::string(file_lines[n - 1]), 0, 0, {}};
      for (const SourceHotspot* h : sampled)
        if (h->location.line == n) row.samples = h->samples, row.stalls = h->stalls;
      row.share_percent = share(row.samples, k.samples);
      sort_stalls(row.stalls);
      view.lines.push_back(std::move(row));
    }
    k.files.push_back(std::move(view));
  }
  // The excerpt: the hottest line's neighbours, from its file's view.
  if (k.files.empty() || k.files.front().file != hottest->location.file) return;
  k.excerpt_file = hottest->location.file;
  const uint32_t hot = hottest->location.line;
  for (const SourceLineText& row : k.files.front().lines)
    if (row.line + kExcerptLines >= hot && row.line <= hot + kExcerptLines) k.excerpt.push_back(row);
}

void add_hot_loops(KernelSource& k, size_t top) {
  for (size_t b = 0; b < k.listing.size(); ++b) {
    const SourceHotspot& branch = k.listing[b];
    const std::optional<uint64_t> target = branch_target(branch.instruction);
    // Backward only; a branch to itself is the trap loop after a kernel's EXIT.
    if (!target || *target >= branch.pc || *target < k.listing.front().pc) continue;
    HotLoop loop;
    loop.first_pc = *target;
    loop.branch_pc = branch.pc;
    loop.file = branch.location.file;
    for (size_t i = b + 1; i-- > 0 && k.listing[i].pc >= *target;) {
      const SourceHotspot& in = k.listing[i];
      ++loop.instructions;
      loop.samples += in.samples;
      for (const StallSamples& s : in.stalls) add_stall(loop.stalls, s.reason, s.samples, s.not_issued);
      if (in.location.line == 0 || in.location.file != loop.file) continue;
      loop.first_line = loop.first_line ? std::min(loop.first_line, in.location.line) : in.location.line;
      loop.last_line = std::max(loop.last_line, in.location.line);
    }
    loop.share_percent = share(loop.samples, k.samples);
    if (loop.share_percent < kMinLoopShare) continue;
    sort_stalls(loop.stalls);
    k.loops.push_back(std::move(loop));
  }
  std::stable_sort(k.loops.begin(), k.loops.end(),
                   [](const HotLoop& a, const HotLoop& b) { return a.samples > b.samples; });
  if (top > 0 && k.loops.size() > top) k.loops.resize(top);
}

}  // namespace gpuscope::analysis

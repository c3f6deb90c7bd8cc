// profile_source (gpuscope/analysis_source.h): PC samples summed per kernel, per PC, per source
// line, each with its stall reasons.
#include <algorithm>
#include <map>
#include <numeric>
#include <optional>
#include <tuple>
#include <unordered_map>

#include "analysis/source_view.h"
#include "gpuscope/analysis_source.h"

namespace gpuscope::analysis {

void add_stall(std::vector<StallSamples>& into, const std::string& reason, uint64_t samples, uint64_t not_issued) {
  auto it = std::find_if(into.begin(), into.end(), [&](const StallSamples& s) { return s.reason == reason; });
  if (it == into.end()) it = into.insert(into.end(), StallSamples{reason, 0, 0});
  it->samples += samples;
  it->not_issued += not_issued;
}

void sort_stalls(std::vector<StallSamples>& stalls) {
  std::sort(stalls.begin(), stalls.end(), [](const StallSamples& a, const StallSamples& b) {
    return a.samples != b.samples ? a.samples > b.samples : a.reason < b.reason;
  });
}

namespace {

// Hottest first, then by place, so that ties keep one order.
void rank(std::vector<SourceHotspot>& spots, uint64_t kernel_samples, size_t top) {
  std::sort(spots.begin(), spots.end(), [](const SourceHotspot& a, const SourceHotspot& b) {
    if (a.samples != b.samples) return a.samples > b.samples;
    if (a.location.file != b.location.file) return a.location.file < b.location.file;
    if (a.location.line != b.location.line) return a.location.line < b.location.line;
    return a.pc < b.pc;
  });
  if (top > 0 && spots.size() > top) spots.resize(top);
  for (SourceHotspot& s : spots) {
    s.share_percent = kernel_samples ? 100.0 * static_cast<double>(s.samples) / static_cast<double>(kernel_samples) : 0;
    sort_stalls(s.stalls);
  }
}

struct PcSamples {
  uint64_t crc = 0, pc = 0;
  uint64_t samples = 0;
  std::vector<StallSamples> stalls;
};

constexpr uint64_t kInstructionBytes = 16;  // every SASS instruction since Volta

// How far back from a barrier-bound PC its barrier may lie: BAR.SYNC.DEFER_BLOCKING lets a warp
// issue a few independent instructions before it blocks (an H200 sample blocked two after it).
constexpr uint64_t kBarrierLookback = 8;

// The nearest barrier instruction (BAR.*) before `pc` within kBarrierLookback instructions.
std::optional<uint64_t> barrier_before(const std::map<uint64_t, std::string>& sass, uint64_t pc) {
  for (uint64_t back = 1; back <= kBarrierLookback && back * kInstructionBytes <= pc; ++back) {
    const auto it = sass.find(pc - back * kInstructionBytes);
    if (it == sass.end()) return std::nullopt;
    // The opcode follows an optional predicate ("@P0 ").
    const std::string& text = it->second;
    const size_t opcode = text.rfind('@', 0) == 0 ? text.find(' ') + 1 : 0;
    if (text.compare(opcode, 4, "BAR.") == 0) return pc - back * kInstructionBytes;
  }
  return std::nullopt;
}

// Whether most of a PC's samples are barrier stalls.
bool mostly_barrier(const PcSamples& p) {
  for (const StallSamples& s : p.stalls)
    if (s.reason == "barrier") return 2 * s.samples > p.samples;
  return false;
}

// One kernel's PCs -> its profile. `pcs` are sorted by (crc, pc). `detailed`: with SASS and the
// source excerpt; `sass_unavailable` gets the resolver's reason when it could not disassemble.
KernelSource profile_kernel(const Trace& trace, uint32_t run_id, uint32_t pid, const std::string& mangled,
                            std::vector<PcSamples> pcs, const SourceResolver* resolver, size_t top, bool detailed,
                            std::string& sass_unavailable) {
  KernelSource k;
  k.mangled = mangled;
  k.pid = pid;
  k.run_id = run_id;
  k.pcs = pcs.size();
  std::vector<SourceLocation> locations(pcs.size());
  std::vector<SourceLocation> barriers(pcs.size());              // of barrier-bound PCs: the barrier's line
  std::vector<std::optional<uint64_t>> barrier_pcs(pcs.size());  // and its PC
  std::vector<std::string> instructions(pcs.size());
  k.has_cubin = true;
  // Per module (a kernel's PCs lie in one, barring a function of the same name in several).
  for (size_t first = 0; first < pcs.size();) {
    size_t last = first;
    while (last < pcs.size() && pcs[last].crc == pcs[first].crc) ++last;
    const auto cubin = std::find_if(trace.cubins.begin(), trace.cubins.end(), [&](const Cubin& c) {
      return c.run_id == run_id && c.pid == pid && c.crc == pcs[first].crc;
    });
    if (cubin == trace.cubins.end()) {
      k.has_cubin = false;
    } else if (resolver != nullptr) {
      const std::map<uint64_t, std::string> sass = detailed ? resolver->sass(cubin->image, k.mangled)
                                                            : std::map<uint64_t, std::string>{};
      if (detailed && sass.empty() && sass_unavailable.empty()) sass_unavailable = resolver->sass_unavailable();
      // Each PC's line, then the lines of the barriers that barrier-bound PCs wait at.
      std::vector<uint64_t> offsets;
      std::vector<size_t> waiting;  // PCs (indices) whose barrier is in `offsets` after the PCs
      for (size_t i = first; i < last; ++i) offsets.push_back(pcs[i].pc);
      for (size_t i = first; i < last; ++i) {
        if (auto it = sass.find(pcs[i].pc); it != sass.end()) instructions[i] = it->second, k.has_sass = true;
        if (!mostly_barrier(pcs[i])) continue;
        if (const std::optional<uint64_t> bar = barrier_before(sass, pcs[i].pc)) {
          offsets.push_back(*bar);
          waiting.push_back(i);
          barrier_pcs[i] = bar;
        }
      }
      // The listing: the SASS of the kernel's first disassembled module, with the same call's lines.
      const size_t listed_from = offsets.size();
      std::vector<uint64_t> listed;
      if (k.listing.empty() && !sass.empty()) {
        const auto hottest = std::max_element(pcs.begin() + first, pcs.begin() + last,
                                              [](const PcSamples& a, const PcSamples& b) {
                                                return a.samples < b.samples;
                                              });
        listed = listing_pcs(sass, hottest->pc);
        offsets.insert(offsets.end(), listed.begin(), listed.end());
      }
      const std::vector<SourceLocation> found = resolver->lines(cubin->image, k.mangled, offsets);
      const bool located = found.size() == offsets.size();
      if (located) {
        for (size_t i = first; i < last; ++i) locations[i] = found[i - first];
        for (size_t w = 0; w < waiting.size(); ++w) barriers[waiting[w]] = found[(last - first) + w];
      }
      for (size_t j = 0; j < listed.size(); ++j) {
        SourceHotspot row;
        row.pc = listed[j];
        row.instruction = sass.at(listed[j]);
        if (located) row.location = found[listed_from + j];
        const auto sampled = std::lower_bound(pcs.begin() + first, pcs.begin() + last, listed[j],
                                              [](const PcSamples& p, uint64_t pc) { return p.pc < pc; });
        if (sampled != pcs.begin() + last && sampled->pc == listed[j])
          row.samples = sampled->samples, row.stalls = sampled->stalls;
        k.listing.push_back(std::move(row));
      }
    }
    first = last;
  }

  std::map<std::pair<std::string, uint32_t>, SourceHotspot> by_line;
  std::map<std::pair<std::string, uint32_t>, uint64_t> hottest_pc_samples;  // per line: its hottest PC's samples
  for (size_t i = 0; i < pcs.size(); ++i) {
    const PcSamples& p = pcs[i];
    k.samples += p.samples;
    for (const StallSamples& s : p.stalls) add_stall(k.stalls, s.reason, s.samples, s.not_issued);
    k.instructions.push_back(
        {p.pc, instructions[i], locations[i], p.samples, 0, p.stalls, barriers[i], barrier_pcs[i]});
    if (locations[i].line == 0) continue;
    k.has_lines = true;
    const std::pair<std::string, uint32_t> place{locations[i].file, locations[i].line};
    SourceHotspot& line = by_line[place];
    if (uint64_t& hottest = hottest_pc_samples[place]; p.samples > hottest)
      hottest = p.samples, line.pc = p.pc, line.waits_at = barriers[i], line.barrier_pc = barrier_pcs[i];
    line.location = locations[i];
    line.samples += p.samples;
    for (const StallSamples& s : p.stalls) add_stall(line.stalls, s.reason, s.samples, s.not_issued);
  }
  for (auto& [place, line] : by_line) k.lines.push_back(std::move(line));
  if (detailed && resolver != nullptr) add_file_views(k, *resolver);
  for (SourceHotspot& row : k.listing) {
    row.share_percent = k.samples ? 100.0 * static_cast<double>(row.samples) / static_cast<double>(k.samples) : 0;
    sort_stalls(row.stalls);
  }
  add_hot_loops(k, top);
  sort_stalls(k.stalls);
  rank(k.lines, k.samples, top);
  rank(k.instructions, k.samples, top);
  return k;
}

}  // namespace

std::string short_place(const SourceLocation& at) {
  if (at.line == 0) return "";
  const size_t slash = at.file.rfind('/');
  return (slash == std::string::npos ? at.file : at.file.substr(slash + 1)) + ":" + std::to_string(at.line);
}

SourceProfile profile_source(const Trace& trace, const SourceResolver* resolver, size_t top, size_t disassembled) {
  SourceProfile out;
  if (trace.pc_samples.empty()) return out;
  for (const PcSampling& p : trace.pc_sampling) {
    out.total_samples += p.total_samples;
    out.dropped_samples += p.dropped_samples;
    out.period_log2 = std::max(out.period_log2, p.period_log2);
  }
  std::unordered_map<StringId, StringId> demangled;
  for (const Kernel& k : trace.kernels) demangled.emplace(k.mangled_name, k.name);

  std::vector<size_t> order(trace.pc_samples.size());
  std::iota(order.begin(), order.end(), size_t{0});
  const auto key = [&](size_t i) {
    const PcSample& s = trace.pc_samples[i];
    return std::tie(s.run_id, s.pid, s.function, s.cubin_crc, s.pc_offset);
  };
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return key(a) < key(b); });

  // Each kernel's PCs; then the kernels by samples, so that only the first `disassembled` are.
  struct Group {
    const PcSample* head;
    std::vector<PcSamples> pcs;
    uint64_t samples = 0;
  };
  std::vector<Group> groups;
  for (size_t first = 0; first < order.size();) {
    Group g{&trace.pc_samples[order[first]], {}, 0};
    size_t i = first;
    for (; i < order.size(); ++i) {
      const PcSample& s = trace.pc_samples[order[i]];
      if (s.run_id != g.head->run_id || s.pid != g.head->pid || s.function != g.head->function) break;
      if (g.pcs.empty() || g.pcs.back().crc != s.cubin_crc || g.pcs.back().pc != s.pc_offset)
        g.pcs.push_back({s.cubin_crc, s.pc_offset, 0, {}});
      g.pcs.back().samples += s.samples;
      g.samples += s.samples;
      add_stall(g.pcs.back().stalls, trace.strings.get(s.stall_reason), s.samples, s.not_issued);
    }
    first = i;
    groups.push_back(std::move(g));
  }
  std::stable_sort(groups.begin(), groups.end(), [](const Group& a, const Group& b) { return a.samples > b.samples; });
  for (size_t rank = 0; rank < groups.size(); ++rank) {
    Group& g = groups[rank];
    KernelSource profiled = profile_kernel(trace, g.head->run_id, g.head->pid, trace.strings.get(g.head->function),
                                           std::move(g.pcs), resolver, top, rank < disassembled, out.sass_unavailable);
    const auto it = demangled.find(g.head->function);
    profiled.name = it != demangled.end() ? trace.strings.get(it->second) : profiled.mangled;
    out.samples += profiled.samples;
    out.kernels.push_back(std::move(profiled));
  }
  return out;
}

}  // namespace gpuscope::analysis

// Inside the kernels: where CUPTI's PC samples (`profile --source`) fall, by source line and by
// SASS instruction, with their stall reasons, for the report's "Source" section (docs/report.md).
//
// A sample is one warp of one SM sub-partition seen at one PC, every 2^N cycles: a PC's share of
// its kernel's samples is its share of the kernel's warp time, and a reason's share says why
// those warps were not issuing ("selected": they were). Samples are counts, not times; the
// capture has no per-launch split (continuous sampling), so a kernel here is a function summed
// over every launch.
//
// Lines and SASS come from the cubins in the capture, read at report time through a
// SourceResolver: CUPTI's host-side line table (a cubin built with -lineinfo or -G has one) and
// the CUDA toolkit's nvdisasm for the instructions. Without a resolver, or without either tool,
// the section still ranks PCs and says what is missing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpuscope/model.h"

namespace gpuscope::analysis {

struct SourceLocation {
  std::string file;   // as the line table names it (directory and file joined); empty: unknown
  uint32_t line = 0;  // 0: unknown
};
// "kernel.cu:87" (the file without its directory); empty for an unknown line.
std::string short_place(const SourceLocation& at);

// What maps a cubin's PCs to source lines and SASS. Implementations live outside the analysis
// (the CLI's uses libcupti and nvdisasm); tests give their own.
class SourceResolver {
 public:
  virtual ~SourceResolver() = default;
  // The source location of each of `pcs` (offsets in `function`), in order; empty when the
  // cubin has no line table or the resolver cannot read it.
  virtual std::vector<SourceLocation> lines(const std::string& cubin, const std::string& function,
                                            const std::vector<uint64_t>& pcs) const = 0;
  // The SASS of `function`, by PC offset ("LDG.E R4, desc[UR4][R2.64]"); empty when unavailable.
  virtual std::map<uint64_t, std::string> sass(const std::string& cubin, const std::string& function) const = 0;
  // Why sass() gives nothing here, for the report ("nvdisasm not found ..."); empty when it can.
  virtual std::string sass_unavailable() const { return ""; }
  // The text of a source file the line table names, when it can be read here (the machine that
  // built the program); empty otherwise.
  virtual std::string source_file(const std::string& path) const { return ""; }
};

struct StallSamples {
  std::string reason;  // ncu's short name: "long_scoreboard", "barrier", "selected", ...
  uint64_t samples = 0;
  uint64_t not_issued = 0;  // of `samples`
};

// A reason's samples, summed into `into` (kept small: a place has a few reasons).
void add_stall(std::vector<StallSamples>& into, const std::string& reason, uint64_t samples, uint64_t not_issued);
// By samples, descending; ties by name, so that one order holds.
void sort_stalls(std::vector<StallSamples>& stalls);

// Samples of one place in a kernel (a source line, or one instruction), reasons by samples.
struct SourceHotspot {
  uint64_t pc = 0;          // instructions: the PC offset; lines: the hottest PC on the line
  std::string instruction;  // instructions: the SASS, empty when not disassembled
  SourceLocation location;  // the line (instructions: the instruction's line)
  uint64_t samples = 0;
  double share_percent = 0;          // of the kernel's samples
  std::vector<StallSamples> stalls;  // by samples, descending
  // When most samples are barrier stalls and the SASS is known: the line of the barrier the warps
  // wait at. The hardware samples a warp waiting at a barrier at an instruction after it (after
  // BAR.SYNC.DEFER_BLOCKING, at the first one that must wait), so the sampled line is one after
  // the __syncthreads(); this is the nearest BAR within 8 instructions before. Lines: their
  // hottest PC's. Empty without SASS.
  SourceLocation waits_at;
  std::optional<uint64_t> barrier_pc;  // that barrier's PC (also for a cubin without a line table)
};

inline constexpr uint32_t kExcerptLines = 6;  // lines shown before and after a kernel's hottest line

// The source view's bounds, per kernel: what a person scrolls through beside the SASS, and what
// keeps a report of a library kernel (thousands of instructions) small.
inline constexpr size_t kViewFiles = 4;            // files with sampled lines, by samples
inline constexpr uint32_t kViewContext = 6;        // lines shown around each sampled line
inline constexpr size_t kViewLines = 600;          // lines per file
inline constexpr size_t kViewInstructions = 3000;  // SASS instructions, around the hottest

// One line of a source file around a kernel's hottest line, with its samples (none: 0).
struct SourceLineText {
  uint32_t line = 0;
  std::string code;
  uint64_t samples = 0;
  double share_percent = 0;          // of the kernel's samples
  std::vector<StallSamples> stalls;  // by samples, descending
};

// A source file as the view shows it: its sampled lines with kViewContext lines around each.
struct SourceFileText {
  std::string file;                   // as the line table names it
  uint64_t samples = 0;               // the kernel's samples on its lines
  std::vector<SourceLineText> lines;  // by line number, with gaps where nothing was sampled near
};

// A loop of a kernel's SASS: a backward branch and the instructions from its target to it.
// Nested loops are each a loop (an inner loop's samples count in its outer loop too).
struct HotLoop {
  uint64_t first_pc = 0, branch_pc = 0;    // the back edge's target and the branch
  std::string file;                        // the branch's file; empty without a line table
  uint32_t first_line = 0, last_line = 0;  // the lines of its instructions in that file
  size_t instructions = 0;
  uint64_t samples = 0;
  double share_percent = 0;          // of the kernel's samples
  std::vector<StallSamples> stalls;  // by samples, descending
};

struct KernelSource {
  uint32_t pid = 0;
  uint32_t run_id = 0;
  std::string name;     // demangled, as the kernel table names it; the mangled name if no kernel record has it
  std::string mangled;  // as sampled
  uint64_t samples = 0;
  size_t pcs = 0;                           // distinct PCs sampled
  std::vector<StallSamples> stalls;         // the kernel's, by samples, descending
  std::vector<SourceHotspot> lines;         // by samples, descending; empty without a line table
  std::vector<SourceHotspot> instructions;  // by samples, descending
  // The hottest line's file from kExcerptLines before it to as many after, when the resolver
  // could read the file: the source beside its samples.
  std::string excerpt_file;
  std::vector<SourceLineText> excerpt;
  // The source view: each file with sampled lines that the resolver could read (the hottest
  // line's first, then by samples; at most kViewFiles), and the function's SASS by PC, every
  // instruction with its line and samples (at most kViewInstructions, around the hottest PC).
  std::vector<SourceFileText> files;
  std::vector<SourceHotspot> listing;
  // The listing's loops with samples, by samples, descending (needs SASS).
  std::vector<HotLoop> loops;
  bool has_cubin = false;  // the capture kept the module's cubin
  bool has_lines = false;  // its line table gave a line for some PC
  bool has_sass = false;   // it was disassembled (only the first `disassembled` kernels)
};

struct SourceProfile {
  std::vector<KernelSource> kernels;  // by samples, descending
  uint64_t samples = 0;               // in the kernels above
  uint64_t total_samples = 0;         // CUPTI's total, other kernels' and dropped ones included
  uint64_t dropped_samples = 0;
  uint32_t period_log2 = 0;      // the largest of the devices' (0: not recorded)
  std::string sass_unavailable;  // the resolver's reason, when it could not disassemble
};

// Kernels with PC samples, each with its `top` hottest lines and instructions (0: all); the SASS
// and the source (excerpt, view) of the first `disassembled` kernels by samples only (disassembling a
// library's kernel takes a second or so). `resolver` may be null: PCs are then ranked without
// lines or SASS.
SourceProfile profile_source(const Trace& trace, const SourceResolver* resolver, size_t top,
                             size_t disassembled = SIZE_MAX);

// A kernel's traced time (ns): its launches with valid times in the sampled process.
double traced_ns(const Trace& trace, const KernelSource& kernel);

// One source line of a kernel in two captures with PC samples (`gpuscope diff`): the time its
// warps spent there in each, the kernel's traced time x the line's share of its samples
// (summed over the processes that ran the kernel). A line without samples in a capture has 0.
struct SourceLineDiff {
  std::string kernel;  // demangled, matched by name as the diff's kernels are
  std::string place;   // short_place, "k.cu:87": matched by file name and line
  double base_ns = 0, new_ns = 0;
  double base_share = 0, new_share = 0;                  // % of the kernel's samples
  std::string base_stall, new_stall;                     // the line's top stall reason; empty: no samples
  double base_stall_percent = 0, new_stall_percent = 0;  // of the line's samples
};

// The lines of the kernels sampled in both captures (with line tables), by the size of their
// change (new - base) descending, then kernel and place. `resolver` reads the lines (null: none).
std::vector<SourceLineDiff> diff_source_lines(const Trace& base, const Trace& next, const SourceResolver* resolver);

// Rows per kernel the rules read when no report computed the profile for them.
inline constexpr size_t kSourceRows = 10;

// Whether the trace has PC samples.
inline bool has_pc_samples(const Trace& trace) { return !trace.pc_samples.empty(); }

}  // namespace gpuscope::analysis

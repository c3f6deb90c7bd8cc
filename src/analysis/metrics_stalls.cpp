// Warp stalls of one kernel group: the stall reasons of the `stalls` set ranked by their share
// of the stall cycles, and what each reason means and what usually helps (the guidance table
// of docs/metrics.md, after NVIDIA's Nsight Compute kernel profiling guide and practice).
//
// The per-reason metric is smsp__average_warps_issue_stalled_<reason>_per_issue_active.ratio:
// warps stalled for that reason per cycle that issued an instruction. Summed over all reasons
// (with "selected", the issuing cycle) it is the warp's cycles between two issued instructions,
// which is how ncu's Warp State section reads it.
#include <algorithm>

#include "gpuscope/analysis_metrics.h"

namespace gpuscope::analysis {
namespace {

constexpr std::string_view kPrefix = "smsp__average_warps_issue_stalled_";
constexpr std::string_view kSuffix = "_per_issue_active.ratio";

const std::vector<StallGuidance> kGuidance = {
    {"long_scoreboard",
     "waiting for the result of an L1TEX operation: a global, local, texture or surface load; a load that misses L1 "
     "goes to L2 or DRAM and takes hundreds of cycles",
     "coalesce global accesses (consecutive threads on consecutive addresses) and load wider types (float4); reuse "
     "data "
     "from shared-memory tiles or registers instead of reloading it; issue loads early (software pipelining with "
     "cp.async on sm_80+, TMA on sm_90) so independent work hides the latency; more resident warps or more independent "
     "loads per thread; check for register spills, which turn into local-memory loads"},
    {"short_scoreboard",
     "waiting for the result of an MIO operation: a shared-memory load, special math (sin, cos, exp, rsqrt, division), "
     "a shuffle or a dynamic branch",
     "remove shared-memory bank conflicts (pad or swizzle the layout); keep reused values in registers instead of "
     "re-reading shared memory; use fast intrinsics (__expf, __sinf, rsqrtf) or fewer transcendental calls; put "
     "independent work between a shared load and its first use"},
    {"barrier", "waiting at a block-wide barrier (__syncthreads) for the other warps of the block",
     "balance the work of the warps of a block (a divergent loop before the barrier makes every warp wait for the "
     "slowest); fewer barriers, or __syncwarp / cooperative-group tiles when only one warp shares the data; smaller "
     "blocks wait for fewer warps; double-buffer shared memory so loading the next tile needs no barrier before "
     "compute"},
    {"mio_throttle",
     "the MIO instruction queue is full: shared-memory, special-math, shuffle or shared-atomic instructions are issued "
     "faster than the MIO pipes take them",
     "fewer but wider shared-memory accesses (128-bit loads); remove bank conflicts, whose replays use the same queue; "
     "reductions in registers instead of shuffles or shared atomics where possible"},
    {"lg_throttle",
     "the queue for local and global memory instructions is full: the kernel issues many small global or local memory "
     "instructions",
     "vectorize global accesses (8 or 16 bytes per thread) so fewer instructions move the same bytes; remove redundant "
     "loads; remove spills and dynamically indexed local arrays (local memory; -Xptxas -v shows spills); interleave "
     "memory instructions with math"},
    {"math_pipe_throttle",
     "a math pipe (FMA, ALU, FP64, XU, tensor) is busy: the kernel issues more of one instruction type than that pipe "
     "accepts per cycle",
     "this is that pipe's compute roof: execute fewer instructions (fuse mul + add into FMA, hoist invariant math, "
     "cheaper index arithmetic), use packed or lower precision (half2, tensor cores for matrix products), balance the "
     "mix over idle pipes; on GPUs with few FP64 units, look for accidental double precision (1.0 literals, double "
     "math functions)"},
    {"wait",
     "a fixed-latency dependency: the next instruction needs the result of an arithmetic instruction issued a few "
     "cycles earlier",
     "give each warp independent instructions to interleave: unroll loops, process several elements per thread, break "
     "long dependency chains; more eligible warps hide it too; usually high only in kernels that are already tight"},
    {"not_selected",
     "the warp was ready, but the scheduler issued another ready warp: issue slots are the limit, not a stall",
     "nothing to remove: the schedulers are busy; to go faster, execute fewer instructions; more warps will not help"},
    {"selected", "issuing an instruction: the one cycle per instruction that is not a stall", "not a stall"},
    {"no_instruction",
     "the warp's next instruction is not fetched yet: an instruction-cache miss, or the fetch after a jump; typical of "
     "very short kernels",
     "shrink the hot code (less unrolling, fewer inlined calls and template instantiations in one kernel); for short "
     "kernels, give each launch more work (batch or fuse launches)"},
    {"branch_resolving", "waiting for a branch target to be computed and the warp's program counter to be updated",
     "fewer and warp-uniform branches: branch-free code for short if/else (select, min/max), conditions hoisted out of "
     "loops, less divergence within a warp"},
    {"dispatch_stall", "the warp was selected, but the dispatcher held it back (a pipeline or register-read conflict)",
     "rarely dominant; when it is, look at which instructions stall in Nsight Compute's source view and vary the "
     "instruction mix"},
    {"drain", "after EXIT, waiting for the warp's outstanding memory stores to complete",
     "large when a kernel ends with many stores: make those stores coalesced and as narrow as the data allows, reduce "
     "in parallel before writing, or give each launch more work so the drain is amortized"},
    {"imc_miss",
     "waiting for the immediate-constant cache: a __constant__ value or kernel parameter not in the constant cache, or "
     "threads of a warp reading different constant addresses (they serialize)",
     "keep __constant__ reads warp-uniform; put indexed lookup tables in shared memory or read them with __ldg "
     "instead"},
    {"membar", "waiting on a memory barrier (__threadfence, or atomics with strong ordering)",
     "fewer fences, at the narrowest correct scope (__threadfence_block rather than device or system); relaxed atomics "
     "where no ordering is needed"},
    {"misc", "a hardware reason none of the other categories covers",
     "rarely significant; if it dominates, look at the stalling instructions in Nsight Compute's source view"},
    {"sleeping", "all threads of the warp are blocked, yielded or in __nanosleep",
     "expected in spin-wait and producer/consumer code; if it dominates, warps wait on each other: rebalance producers "
     "and consumers, shorten the sleep, or wait on a barrier instead"},
    {"tex_throttle",
     "the texture (TEX) queue is full: texture or surface instructions, or math that some GPUs route through that "
     "pipe, "
     "are issued faster than it takes them",
     "fewer texture fetches (several channels per fetch, reuse fetched values), plain global loads where no filtering "
     "or addressing mode is needed (the global path takes 32 threads per cycle, texture 4)"},
    {"gmma", "waiting on warpgroup matrix-multiply-accumulate (wgmma, sm_90) operations to be accepted or completed",
     "expected in Hopper GEMM main loops; keep more MMAs in flight (wgmma.wait_group with a depth above 0, more "
     "pipeline stages) so operand loads and MMAs overlap"},
};

}  // namespace

const StallGuidance* stall_guidance(std::string_view reason) {
  if (reason == "no_instructions") reason = "no_instruction";  // PC sampling's spelling (profile --source)
  for (const StallGuidance& g : kGuidance)
    if (reason == g.reason) return &g;
  return nullptr;
}

bool stall_is_benign(std::string_view reason) { return reason == "selected" || reason == "not_selected"; }

std::optional<WarpStalls> warp_stalls(const KernelMetricValues& k) {
  WarpStalls w;
  for (const auto& [metric, value] : k.medians) {
    const std::string_view name(metric);
    if (name.size() <= kPrefix.size() + kSuffix.size() || !name.starts_with(kPrefix) || !name.ends_with(kSuffix))
      continue;
    const std::string reason(name.substr(kPrefix.size(), name.size() - kPrefix.size() - kSuffix.size()));
    if (reason == "selected" || !(value > 0)) continue;
    w.reasons.push_back({reason, value, 0});
    w.stall_cycles += value;
  }
  if (w.reasons.empty()) return std::nullopt;
  for (StallShare& s : w.reasons) s.percent = s.cycles / w.stall_cycles * 100.0;
  std::sort(w.reasons.begin(), w.reasons.end(), [](const StallShare& a, const StallShare& b) {
    if (a.cycles != b.cycles) return a.cycles > b.cycles;
    return a.reason < b.reason;
  });
  w.cycles_per_issue = k.get("smsp__average_warp_latency_per_inst_issued.ratio");
  w.issue_active_percent = k.get("smsp__issue_active.avg.pct_of_peak_sustained_active");
  return w;
}

}  // namespace gpuscope::analysis

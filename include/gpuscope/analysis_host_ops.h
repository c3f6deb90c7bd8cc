// Framework ops (PyTorch ops, annotations) and the GPU work they launched: what the report's
// "PyTorch ops" section shows (docs/report.md). Pure and deterministic.
//
// Linking: a kernel, copy or memset -> its launch call (run, pid, correlation id) -> that call's
// ExternalCorrelation -> the external id -> the innermost HostOp of that process with that id.
// Self GPU time of an op: the durations of the GPU work linked to it. Total: self plus the self
// time of every op nested inside it on its thread; an op nested in an op of the same name
// (aten::to inside aten::to) is counted once, in the outer one. Per-name rows sum their
// instances. Durations in ns; GPU work that overlaps is summed, not merged.
//
// Module ranges (category "module", from gpuscope's --pytorch=modules hook) are not ops: they get
// no row here (analysis_modules.h summarizes them), but ops nested in them are counted as usual.
// Phases of training: each op is Forward, Backward (a backward node and everything in it) or
// Optimizer (an Optimizer.* range and everything in it); the split sums GPU work by the phase of
// the op that launched it (op_links.h has the rule).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "gpuscope/model.h"

namespace gpuscope::analysis {

inline constexpr char kModuleCategory[] = "module";

enum class OpPhase { Forward = 0, Backward = 1, Optimizer = 2 };
inline constexpr size_t kOpPhases = 3;
const char* to_string(OpPhase phase);  // "forward", "backward", "optimizer"

struct PhaseTotals {
  double gpu_ns = 0;        // GPU work launched by ops of this phase
  size_t op_instances = 0;  // ops of this phase (module ranges not counted)
};

struct OpKernel {
  std::string name;   // kernel name
  double gpu_ns = 0;  // summed durations of this kernel launched directly by the op
  size_t launches = 0;
};

struct OpGroup {
  std::string name;      // op name; every ProfilerStep#N is one group "ProfilerStep#*"
  std::string category;  // the source's kind (cpu_op, user_annotation, ...); the first seen
  size_t calls = 0;      // instances
  double cpu_ns = 0;     // summed wall durations of the instances on their thread
  double self_gpu_ns = 0;
  double total_gpu_ns = 0;
  size_t kernels = 0;                 // kernels launched directly (self)
  size_t gpu_activities = 0;          // kernels, copies and memsets launched directly
  std::vector<OpKernel> top_kernels;  // by GPU time, descending, at most kTopKernelsPerOp
};
inline constexpr size_t kTopKernelsPerOp = 5;

struct HostOpSummary {
  std::vector<OpGroup> ops;  // by self GPU time descending, then total, then name
  double gpu_ns = 0;         // every kernel, copy and memset duration
  double linked_gpu_ns = 0;  // the part linked to an op (the ops' self times add up to it)
  size_t gpu_activities = 0;
  size_t unlinked_activities = 0;  // no launch call, no external id, or no op with that id
  size_t op_instances = 0;         // ops, module ranges not counted
  // Indexed by OpPhase. The phases' gpu_ns add up to linked_gpu_ns; the rest of gpu_ns was
  // launched outside every op.
  PhaseTotals phases[kOpPhases];
};

HostOpSummary summarize_host_ops(const Trace& trace);

// Self GPU time (ns) of each op instance, in trace.host_ops order (0 for module ranges): what
// `gpuscope diff` compares per op name.
std::vector<double> op_self_gpu_ns(const Trace& trace);

}  // namespace gpuscope::analysis

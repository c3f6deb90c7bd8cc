// nn.Module paths and the GPU work of their forward and backward passes: the report's
// "PyTorch modules" section (docs/report.md). Module ranges are HostOps of category "module"
// (gpuscope's `profile --pytorch=modules` hook, converted by src/importers/torch_nvtx/).
// Pure and deterministic.
//
// Forward GPU time of a module instance: the GPU work launched by Forward-phase ops nested in its
// range on its thread (analysis_host_ops.h for phases and linking), nested modules included, so a
// root module holds its children's time too.
// Backward GPU time: autograd runs backward nodes on its own thread, outside every module range.
// A backward node carries the sequence number (seq) of the forward op that created it; the GPU
// work launched inside the innermost backward node with a seq (an
// "autograd::engine::evaluate_function: X" wrapper counts as its node X) belongs to the innermost
// module holding the first forward op of that process with the same seq, and, like forward time,
// to every module enclosing that one. Backward work whose node has no seq (AccumulateGrad), or whose
// seq matches no forward op inside a module, belongs to no module (unpaired_backward_gpu_ns).
// Durations in ns; overlapping GPU work is summed, not merged. A module path nested in itself
// (recursion) counts its work once.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "gpuscope/model.h"

namespace gpuscope::analysis {

struct ModuleRow {
  std::string path;  // "Sequential.0": root class name, then the named_modules() path
  size_t calls = 0;  // forward calls (range instances)
  double forward_gpu_ns = 0;
  double backward_gpu_ns = 0;
  double total_gpu_ns() const { return forward_gpu_ns + backward_gpu_ns; }
};

struct ModuleSummary {
  std::vector<ModuleRow> modules;       // by total GPU time descending, then path
  double gpu_ns = 0;                    // every kernel, copy and memset duration
  double backward_gpu_ns = 0;           // all GPU work of Backward-phase ops
  double unpaired_backward_gpu_ns = 0;  // the part paired with no module
};

// Empty (no modules) when the trace has no module ranges.
ModuleSummary summarize_modules(const Trace& trace);

}  // namespace gpuscope::analysis

// summarize_modules(): nn.Module paths with their forward and backward GPU time
// (gpuscope/analysis_modules.h).
#include "gpuscope/analysis_modules.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "analysis/op_links.h"

namespace gpuscope::analysis {

using detail::kNoOp;

namespace {

// For each op: the innermost module range holding it (itself, for a module); kNoOp for none.
std::vector<uint32_t> innermost_modules(const Trace& trace, const std::vector<uint32_t>& parent) {
  std::vector<uint32_t> module(trace.host_ops.size(), kNoOp);
  for (uint32_t i = 0; i < module.size(); ++i)  // parents come first
    module[i] = detail::is_module(trace, trace.host_ops[i]) ? i : parent[i] == kNoOp ? kNoOp : module[parent[i]];
  return module;
}

// For each op: the seq of the backward node it runs in; -1 for none. That is the innermost
// Backward-phase op with a seq holding it (itself included). autograd's
// "autograd::engine::evaluate_function: X" holds node X (with the seq) and also work of X done
// outside the node (the bias gradient's sum of AddmmBackward0): it takes the seq of the node in it.
std::vector<int64_t> backward_seqs(const Trace& trace, const std::vector<uint32_t>& parent,
                                   const std::vector<OpPhase>& phase) {
  const std::vector<HostOp>& ops = trace.host_ops;
  auto is_node = [&](size_t i) { return phase[i] == OpPhase::Backward && ops[i].sequence_number >= 0; };
  std::vector<int64_t> seq(ops.size(), -1);
  for (size_t i = 0; i < ops.size(); ++i)  // an evaluate_function wrapper first takes its node's seq
    if (is_node(i) && parent[i] != kNoOp && seq[parent[i]] < 0 && ops[parent[i]].sequence_number < 0 &&
        trace.strings.get(ops[parent[i]].name).rfind("autograd::engine::evaluate_function: ", 0) == 0)
      seq[parent[i]] = ops[i].sequence_number;
  for (size_t i = 0; i < ops.size(); ++i) {  // parents come first
    if (is_node(i)) seq[i] = ops[i].sequence_number;
    else if (seq[i] < 0 && parent[i] != kNoOp) seq[i] = seq[parent[i]];
  }
  return seq;
}

}  // namespace

ModuleSummary summarize_modules(const Trace& trace) {
  ModuleSummary out;
  const std::vector<HostOp>& ops = trace.host_ops;
  const std::vector<uint32_t> parent = detail::op_parents(ops);
  const std::vector<OpPhase> phase = detail::op_phases(trace, parent);
  const std::vector<uint32_t> module = innermost_modules(trace, parent);
  const std::vector<int64_t> backward_seq = backward_seqs(trace, parent, phase);

  // (run, pid, seq) -> the innermost module of the first forward op with that seq.
  std::map<std::tuple<uint32_t, uint32_t, int64_t>, uint32_t> module_of_seq;
  for (uint32_t i = 0; i < ops.size(); ++i)
    if (phase[i] == OpPhase::Forward && ops[i].sequence_number >= 0 && module[i] != kNoOp)
      module_of_seq.try_emplace({ops[i].run_id, ops[i].pid, ops[i].sequence_number}, module[i]);

  std::vector<double> forward(ops.size(), 0.0), backward(ops.size(), 0.0);  // per module instance
  // Adds `ns` to module instance m and every module enclosing it, each path once.
  auto add_to_modules = [&](uint32_t m, double ns, std::vector<double>& into) {
    std::vector<StringId> seen;
    for (; m != kNoOp; m = parent[m] == kNoOp ? kNoOp : module[parent[m]]) {
      if (std::find(seen.begin(), seen.end(), ops[m].name) != seen.end()) continue;
      seen.push_back(ops[m].name);
      into[m] += ns;
    }
  };
  detail::for_each_gpu_work(trace, detail::OpOfLaunch(trace), [&](uint32_t op, double ns, const Kernel*) {
    out.gpu_ns += ns;
    if (op == kNoOp) return;
    if (phase[op] == OpPhase::Forward) {
      add_to_modules(module[op], ns, forward);
    } else if (phase[op] == OpPhase::Backward) {
      out.backward_gpu_ns += ns;
      const auto paired = module_of_seq.find({ops[op].run_id, ops[op].pid, backward_seq[op]});
      if (paired == module_of_seq.end()) out.unpaired_backward_gpu_ns += ns;
      else add_to_modules(paired->second, ns, backward);
    }
  });

  std::map<StringId, size_t> row_of;  // module path -> row
  for (uint32_t i = 0; i < ops.size(); ++i) {
    if (module[i] != i) continue;
    auto [it, added] = row_of.try_emplace(ops[i].name, out.modules.size());
    if (added) out.modules.push_back({trace.strings.get(ops[i].name)});
    ModuleRow& row = out.modules[it->second];
    ++row.calls;
    row.forward_gpu_ns += forward[i];
    row.backward_gpu_ns += backward[i];
  }
  std::sort(out.modules.begin(), out.modules.end(), [](const ModuleRow& a, const ModuleRow& b) {
    return a.total_gpu_ns() != b.total_gpu_ns() ? a.total_gpu_ns() > b.total_gpu_ns() : a.path < b.path;
  });
  return out;
}

}  // namespace gpuscope::analysis

// Op nesting, phases and GPU work -> op links (op_links.h).
#include "analysis/op_links.h"

#include <map>
#include <tuple>

namespace gpuscope::analysis::detail {

namespace {

// The phase an op's own name gives it; Forward when it says nothing.
OpPhase phase_of_name(std::string_view name) {
  if (name.rfind("autograd::engine::evaluate_function: ", 0) == 0 || name == "torch::autograd::AccumulateGrad" ||
      name.find("Backward") != std::string_view::npos)
    return OpPhase::Backward;
  if (name.rfind("Optimizer.", 0) == 0) return OpPhase::Optimizer;
  return OpPhase::Forward;
}

}  // namespace

std::vector<uint32_t> op_parents(const std::vector<HostOp>& ops) {
  std::vector<uint32_t> parent(ops.size(), kNoOp);
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, std::vector<uint32_t>> open;  // thread -> stack
  for (uint32_t i = 0; i < ops.size(); ++i) {
    auto& stack = open[{ops[i].run_id, ops[i].pid, ops[i].tid}];
    while (!stack.empty() && ops[stack.back()].end <= ops[i].start) stack.pop_back();
    if (!stack.empty()) parent[i] = stack.back();
    stack.push_back(i);
  }
  return parent;
}

bool is_module(const Trace& trace, const HostOp& op) { return trace.strings.get(op.category) == kModuleCategory; }

std::vector<OpPhase> op_phases(const Trace& trace, const std::vector<uint32_t>& parent) {
  const std::vector<HostOp>& ops = trace.host_ops;
  std::vector<OpPhase> phase(ops.size(), OpPhase::Forward);
  std::unordered_map<StringId, OpPhase> by_name;  // names repeat: classify each once
  for (size_t i = 0; i < ops.size(); ++i) {       // parents come first
    if (parent[i] != kNoOp && phase[parent[i]] != OpPhase::Forward) {
      phase[i] = phase[parent[i]];
    } else if (!is_module(trace, ops[i])) {
      auto it = by_name.find(ops[i].name);
      if (it == by_name.end()) it = by_name.emplace(ops[i].name, phase_of_name(trace.strings.get(ops[i].name))).first;
      phase[i] = it->second;
    }
  }
  return phase;
}

OpOfLaunch::OpOfLaunch(const Trace& trace) : sites_(trace) {
  const std::vector<HostOp>& ops = trace.host_ops;
  // The innermost op holding each external id (an id is normally unique; if not, the deepest wins).
  std::unordered_map<Key, uint32_t, ProcessKeyHash> op_of_id;
  for (uint32_t i = 0; i < ops.size(); ++i) {
    if (!ops[i].external_id) continue;
    auto [it, inserted] = op_of_id.try_emplace({ops[i].run_id, ops[i].pid, ops[i].external_id}, i);
    if (!inserted && ops[i].depth > ops[it->second].depth) it->second = i;
  }
  for (const ExternalCorrelation& x : trace.external_correlations) {
    const auto op = op_of_id.find({x.run_id, x.pid, x.external_id});
    if (op != op_of_id.end()) op_of_call_.emplace(Key{x.run_id, x.pid, x.correlation_id}, op->second);
  }
}

uint32_t OpOfLaunch::find(uint32_t run, uint32_t pid, uint32_t correlation) const {
  const auto it = op_of_call_.find({run, pid, correlation});
  return it == op_of_call_.end() ? kNoOp : it->second;
}

}  // namespace gpuscope::analysis::detail

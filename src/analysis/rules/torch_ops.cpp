// TorchOps: framework ops as the PyTorch-aware rules read them (torch_ops.h).
#include "analysis/rules/torch_ops.h"

#include <fmt/format.h>

#include <algorithm>

namespace gpuscope::analysis::rules {

using detail::kNoOp;

TorchOps::TorchOps(const Trace& t) : trace_(t) {
  if (!t.host_ops.empty()) {
    parent_ = detail::op_parents(t.host_ops);
    phase_ = detail::op_phases(t, parent_);
    links_ = std::make_unique<detail::OpOfLaunch>(t);
    pytorch_ = true;
    return;
  }
  for (const Process& p : t.processes)
    if (p.command_line.find("python") != std::string::npos || p.command_line.find("torchrun") != std::string::npos)
      pytorch_ = true;
  // ATen's own kernels say so in their names; a few hundred looked at are enough.
  for (size_t i = 0; i < t.kernels.size() && i < 512 && !pytorch_; ++i)
    pytorch_ = t.strings.get(t.kernels[i].name).find("at::native::") != std::string::npos;
}

uint32_t TorchOps::op_of_call(uint32_t run, uint32_t pid, uint32_t correlation) const {
  return links_ && correlation ? links_->find(run, pid, correlation) : kNoOp;
}

std::string TorchOps::name(uint32_t op) const {
  return op == kNoOp ? std::string() : trace_.strings.get(trace_.host_ops[op].name);
}

uint32_t TorchOps::user_op(uint32_t op) const {
  uint32_t best = op;
  for (uint32_t o = op; o != kNoOp; o = parent_[o])
    if (!detail::is_module(trace_, trace_.host_ops[o]) && name(o).rfind("aten::", 0) == 0) best = o;
  return best;
}

uint32_t TorchOps::enclosing(uint32_t op, std::string_view prefix) const {
  for (uint32_t o = op; o != kNoOp; o = parent_[o])
    if (name(o).rfind(prefix, 0) == 0) return o;
  return kNoOp;
}

std::string TorchOps::module(uint32_t op) const {
  for (uint32_t o = op; o != kNoOp; o = parent_[o])
    if (detail::is_module(trace_, trace_.host_ops[o])) return name(o);
  return {};
}

std::string TorchOps::describe(uint32_t op) const {
  if (op == kNoOp) return {};
  std::string where = module(op);
  if (where.empty()) {  // the backward node or optimizer range around it, when there is one
    for (uint32_t o = op; o != kNoOp; o = parent_[o]) {
      const std::string n = name(o);
      constexpr std::string_view kNode = "autograd::engine::evaluate_function: ";
      if (n.rfind(kNode, 0) == 0) where = n.substr(kNode.size());
      else if (n.rfind("Optimizer.", 0) == 0) where = n;
    }
  }
  return fmt::format("{}{}{} ({})", name(op), where.empty() ? "" : " in ", where, to_string(phase(op)));
}

}  // namespace gpuscope::analysis::rules

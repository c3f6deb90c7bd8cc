// What the PyTorch-aware rules know of a capture's framework ops: whether the program is a
// PyTorch program at all, and which op (and nn.Module, training phase) launched a CUDA call.
// Built once per report (RuleContext::torch); without host ops (no --pytorch capture, an nsys
// export) every lookup answers "none" and the rules fall back to CUDA names.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "analysis/op_links.h"
#include "gpuscope/model.h"

namespace gpuscope::analysis::rules {

class TorchOps {
 public:
  explicit TorchOps(const Trace& trace);

  // Host ops, ATen kernels (at::native::...) or a python command line: a PyTorch program.
  bool pytorch() const { return pytorch_; }

  // The innermost op that launched the CUDA call (pid, correlation id); detail::kNoOp if none.
  uint32_t op_of_call(uint32_t run, uint32_t pid, uint32_t correlation) const;
  // The outermost aten:: op holding `op` (aten::item around aten::_local_scalar_dense,
  // aten::linear around aten::addmm), else the op itself: what the user's code called.
  uint32_t user_op(uint32_t op) const;
  // "aten::addmm in Sequential.2 (forward)", "aten::mm in AddmmBackward0 (backward)",
  // "aten::item in Optimizer.step#AdamW.step (optimizer)"; "" for kNoOp.
  std::string describe(uint32_t op) const;
  std::string name(uint32_t op) const;    // the op's name
  std::string module(uint32_t op) const;  // innermost nn.Module path holding it; "" if none
  OpPhase phase(uint32_t op) const { return op == detail::kNoOp ? OpPhase::Forward : phase_[op]; }
  // The innermost enclosing op (itself included) whose name starts with `prefix`; kNoOp if none.
  uint32_t enclosing(uint32_t op, std::string_view prefix) const;
  const std::vector<uint32_t>& parents() const { return parent_; }

 private:
  const Trace& trace_;
  bool pytorch_ = false;
  std::vector<uint32_t> parent_;
  std::vector<OpPhase> phase_;
  std::unique_ptr<detail::OpOfLaunch> links_;
};

}  // namespace gpuscope::analysis::rules

// Private helpers of the framework-op analyses (host_ops.cpp, modules.cpp): how ops nest, which
// phase of training each op is in, and which op launched each piece of GPU work.
//
// Linking: a kernel, copy or memset -> its launch call (run, pid, correlation id) -> that call's
// ExternalCorrelation -> the external id -> the innermost HostOp of that process with that id. A
// kernel replayed from a CUDA graph links through the call that made its node (capture_sites.h).
#pragma once

#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "analysis/capture_sites.h"
#include "gpuscope/analysis_host_ops.h"
#include "gpuscope/model.h"

namespace gpuscope::analysis::detail {

inline constexpr uint32_t kNoOp = UINT32_MAX;

// The op each op is nested in on its thread (ops sorted by start, parents first, as
// finalize_trace leaves them); kNoOp at the outermost level.
std::vector<uint32_t> op_parents(const std::vector<HostOp>& ops);

bool is_module(const Trace& trace, const HostOp& op);

// The phase of each op (docs/report.md, "PyTorch ops"): Backward for a backward node
// (autograd::engine::evaluate_function: ..., *Backward*, torch::autograd::AccumulateGrad),
// Optimizer for an Optimizer.* range, and every op nested in one of those takes the outermost
// such op's phase; Forward for the rest. Module ranges are transparent (they take their parent's).
std::vector<OpPhase> op_phases(const Trace& trace, const std::vector<uint32_t>& parent);

// (run, pid, correlation id) of a launch -> the index of the op that launched it.
class OpOfLaunch {
 public:
  explicit OpOfLaunch(const Trace& trace);
  uint32_t find(uint32_t run, uint32_t pid, uint32_t correlation) const;  // kNoOp: none
  // The op that launched a kernel, or made its graph node; kNoOp: none.
  uint32_t find(const Kernel& k) const {
    const uint32_t correlation = sites_.correlation_of(k);
    return correlation ? find(k.run_id, k.pid, correlation) : kNoOp;
  }

 private:
  using Key = ProcessKey;
  std::unordered_map<Key, uint32_t, ProcessKeyHash> op_of_call_;
  CaptureSites sites_;
};

// Calls fn(op, duration_ns, kernel) for every kernel, copy and memset, with the op that launched
// it (kNoOp: none) and the kernel (nullptr for copies and memsets).
template <typename Fn>
void for_each_gpu_work(const Trace& trace, const OpOfLaunch& links, Fn&& fn) {
  auto ns = [](TimeNs start, TimeNs end) { return static_cast<double>(end > start ? end - start : 0); };
  auto op = [&](uint32_t run, uint32_t pid, uint32_t correlation) {
    return correlation ? links.find(run, pid, correlation) : kNoOp;
  };
  for (const Kernel& k : trace.kernels) fn(links.find(k), ns(k.start, k.end), &k);
  for (const Memcpy& m : trace.memcpys) fn(op(m.run_id, m.pid, m.correlation_id), ns(m.start, m.end), nullptr);
  for (const Memset& m : trace.memsets) fn(op(m.run_id, m.pid, m.correlation_id), ns(m.start, m.end), nullptr);
}

}  // namespace gpuscope::analysis::detail

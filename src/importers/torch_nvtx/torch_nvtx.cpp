// convert_torch_nvtx(): PyTorch's NVTX op and module ranges -> host ops and external
// correlations (torch_nvtx.h).
#include "importers/torch_nvtx/torch_nvtx.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "importers/torch_nvtx/range_name.h"

namespace gpuscope {

namespace {

using Thread = std::tuple<uint32_t, uint32_t, uint32_t>;  // (run, pid, tid)

// The ranges worth parsing: default domain, push/pop (op and module ranges are), closed.
bool may_be_torch_range(const NvtxRange& r) { return r.kind == NvtxKind::PushPop && r.domain == 0 && r.end > r.start; }

// One HostOp per torch range; the ranges it came from are marked in `converted`.
std::vector<HostOp> ops_from_ranges(Trace& trace, std::vector<bool>& converted) {
  std::vector<HostOp> ops;
  std::map<std::pair<uint32_t, uint32_t>, uint64_t> last_external_id;  // (run, pid) -> last id given
  StringId cpu_op = 0, module = 0;  // interned on first use: a trace without torch ranges gains no strings
  for (size_t i = 0; i < trace.nvtx_ranges.size(); ++i) {
    const NvtxRange& r = trace.nvtx_ranges[i];
    if (!may_be_torch_range(r)) continue;
    // A copy: interning the parsed name may grow the string table and move its strings.
    const std::string text = trace.strings.get(r.name);
    const std::optional<torch_nvtx::RangeName> parsed = torch_nvtx::parse_range_name(text);
    if (!parsed) continue;
    HostOp op;
    op.pid = r.pid;
    op.tid = r.tid;
    op.start = r.start;
    op.end = r.end;
    op.run_id = r.run_id;
    op.name = trace.strings.intern(parsed->name);
    if (parsed->kind == torch_nvtx::RangeName::Kind::Module) {
      op.category = module ? module : (module = trace.strings.intern("module"));
    } else {
      op.category = cpu_op ? cpu_op : (cpu_op = trace.strings.intern("cpu_op"));
      op.external_id = ++last_external_id[{r.run_id, r.pid}];
      op.sequence_number = parsed->sequence_number;
      if (!parsed->sizes.empty()) op.input_shapes = trace.strings.intern(parsed->sizes);
    }
    ops.push_back(op);
    converted[i] = true;
  }
  return ops;
}

}  // namespace

// A sweep per thread over the ops (by start, parents first) and the calls (by start).
std::vector<ExternalCorrelation> link_calls_to_ops(const std::vector<HostOp>& ops, const std::vector<ApiCall>& calls) {
  std::map<Thread, std::vector<const HostOp*>> ops_of;
  for (const HostOp& op : ops)
    if (op.external_id) ops_of[{op.run_id, op.pid, op.tid}].push_back(&op);
  std::map<Thread, std::vector<const ApiCall*>> calls_of;
  for (const ApiCall& call : calls)
    if (call.correlation_id && ops_of.count({call.run_id, call.pid, call.tid}))
      calls_of[{call.run_id, call.pid, call.tid}].push_back(&call);

  std::vector<ExternalCorrelation> out;
  std::set<std::tuple<uint32_t, uint32_t, uint32_t>> linked;  // (run, pid, correlation): runtime and driver share ids
  for (auto& [thread, thread_calls] : calls_of) {
    std::vector<const HostOp*>& thread_ops = ops_of[thread];
    std::stable_sort(thread_ops.begin(), thread_ops.end(), [](const HostOp* a, const HostOp* b) {
      return a->start != b->start ? a->start < b->start : a->end > b->end;
    });
    std::stable_sort(thread_calls.begin(), thread_calls.end(),
                     [](const ApiCall* a, const ApiCall* b) { return a->start < b->start; });
    std::vector<const HostOp*> open;
    size_t next_op = 0;
    for (const ApiCall* call : thread_calls) {
      for (; next_op < thread_ops.size() && thread_ops[next_op]->start <= call->start; ++next_op) {
        while (!open.empty() && open.back()->end <= thread_ops[next_op]->start) open.pop_back();
        open.push_back(thread_ops[next_op]);
      }
      while (!open.empty() && open.back()->end <= call->start) open.pop_back();
      if (open.empty()) continue;  // launched outside every op
      const auto [run, pid, tid] = thread;
      if (linked.insert({run, pid, call->correlation_id}).second)
        out.push_back({pid, call->correlation_id, open.back()->external_id, run});
    }
  }
  return out;
}

bool convert_torch_nvtx(Trace& trace) {
  if (!trace.host_ops.empty()) return false;  // the source's own ops (torch.profiler) win
  std::vector<bool> converted(trace.nvtx_ranges.size(), false);
  std::vector<HostOp> ops = ops_from_ranges(trace, converted);
  if (ops.empty()) return false;

  for (const ExternalCorrelation& x : link_calls_to_ops(ops, trace.api_calls)) trace.external_correlations.push_back(x);
  trace.host_ops = std::move(ops);
  size_t kept = 0;
  for (size_t i = 0; i < trace.nvtx_ranges.size(); ++i)
    if (!converted[i]) trace.nvtx_ranges[kept++] = trace.nvtx_ranges[i];
  trace.nvtx_ranges.resize(kept);
  trace.run.host_ops_source = kHostOpsFromNvtx;
  return true;
}

}  // namespace gpuscope

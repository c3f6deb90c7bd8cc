// summarize_host_ops(): framework ops and the GPU work they launched (gpuscope/analysis_host_ops.h).
#include "gpuscope/analysis_host_ops.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

#include "analysis/op_links.h"

namespace gpuscope::analysis {

using detail::kNoOp;

namespace {

// Every ProfilerStep#N is one group: the steps are one op repeated, not N different ops.
std::string group_name(const std::string& name) {
  return name.rfind("ProfilerStep#", 0) == 0 ? "ProfilerStep#*" : name;
}

}  // namespace

const char* to_string(OpPhase phase) {
  switch (phase) {
    case OpPhase::Forward: return "forward";
    case OpPhase::Backward: return "backward";
    case OpPhase::Optimizer: return "optimizer";
  }
  return "?";
}

HostOpSummary summarize_host_ops(const Trace& trace) {
  HostOpSummary out;
  const std::vector<HostOp>& ops = trace.host_ops;
  const std::vector<uint32_t> parent = detail::op_parents(ops);
  const std::vector<OpPhase> phase = detail::op_phases(trace, parent);
  std::vector<bool> module(ops.size());
  for (size_t i = 0; i < ops.size(); ++i) module[i] = detail::is_module(trace, ops[i]);

  std::vector<double> self(ops.size(), 0.0);
  std::vector<size_t> kernels(ops.size(), 0), activities(ops.size(), 0);
  std::map<std::pair<uint32_t, StringId>, OpKernel> kernel_time;  // (op, kernel name) -> time
  detail::for_each_gpu_work(trace, detail::OpOfLaunch(trace), [&](uint32_t op, double ns, const Kernel* k) {
    out.gpu_ns += ns;
    ++out.gpu_activities;
    if (op == kNoOp) {
      ++out.unlinked_activities;
      return;
    }
    out.linked_gpu_ns += ns;
    out.phases[static_cast<size_t>(phase[op])].gpu_ns += ns;
    self[op] += ns;
    ++activities[op];
    if (!k) return;
    ++kernels[op];
    OpKernel& kt = kernel_time[{op, k->name}];
    kt.gpu_ns += ns;
    ++kt.launches;
  });

  // Children come after their parents: one backward pass adds each op's total into its parent's.
  std::vector<double> total = self;
  for (size_t i = ops.size(); i-- > 0;)
    if (parent[i] != kNoOp) total[parent[i]] += total[i];

  // One row per op name.
  std::unordered_map<StringId, std::string> names;  // op name -> group name
  auto name_of = [&](StringId id) -> const std::string& {
    auto it = names.find(id);
    if (it == names.end()) it = names.emplace(id, group_name(trace.strings.get(id))).first;
    return it->second;
  };
  std::map<std::string, size_t> index;
  std::vector<std::map<StringId, OpKernel>> group_kernels;
  for (uint32_t i = 0; i < ops.size(); ++i) {
    if (module[i]) continue;
    ++out.op_instances;
    ++out.phases[static_cast<size_t>(phase[i])].op_instances;
    const std::string& name = name_of(ops[i].name);
    auto [it, added] = index.try_emplace(name, out.ops.size());
    if (added) {
      OpGroup group;
      group.name = name;
      group.category = trace.strings.get(ops[i].category);
      out.ops.push_back(std::move(group));
      group_kernels.emplace_back();
    }
    OpGroup& g = out.ops[it->second];
    ++g.calls;
    g.cpu_ns += static_cast<double>(ops[i].end > ops[i].start ? ops[i].end - ops[i].start : 0);
    g.self_gpu_ns += self[i];
    g.kernels += kernels[i];
    g.gpu_activities += activities[i];
    bool nested_in_same = false;
    for (uint32_t p = parent[i]; p != kNoOp && !nested_in_same; p = parent[p])
      nested_in_same = name_of(ops[p].name) == name;
    if (!nested_in_same) g.total_gpu_ns += total[i];
  }
  for (const auto& [key, kt] : kernel_time) {
    OpKernel& into = group_kernels[index.at(name_of(ops[key.first].name))][key.second];
    into.gpu_ns += kt.gpu_ns;
    into.launches += kt.launches;
  }
  for (size_t g = 0; g < out.ops.size(); ++g) {
    std::vector<OpKernel>& top = out.ops[g].top_kernels;
    for (const auto& [name, kt] : group_kernels[g]) top.push_back({trace.strings.get(name), kt.gpu_ns, kt.launches});
    std::sort(top.begin(), top.end(), [](const OpKernel& a, const OpKernel& b) {
      return a.gpu_ns != b.gpu_ns ? a.gpu_ns > b.gpu_ns : a.name < b.name;
    });
    if (top.size() > kTopKernelsPerOp) top.resize(kTopKernelsPerOp);
  }
  std::sort(out.ops.begin(), out.ops.end(), [](const OpGroup& a, const OpGroup& b) {
    return std::tie(b.self_gpu_ns, b.total_gpu_ns, a.name) < std::tie(a.self_gpu_ns, a.total_gpu_ns, b.name);
  });
  return out;
}

std::vector<double> op_self_gpu_ns(const Trace& trace) {
  std::vector<double> self(trace.host_ops.size(), 0.0);
  detail::for_each_gpu_work(trace, detail::OpOfLaunch(trace), [&](uint32_t op, double ns, const Kernel*) {
    if (op != kNoOp) self[op] += ns;
  });
  return self;
}

}  // namespace gpuscope::analysis

// summarize_host_ops(): framework ops and the GPU work they launched (gpuscope/analysis_host_ops.h).
#include "gpuscope/analysis_host_ops.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

namespace gpuscope::analysis {

namespace {

constexpr uint32_t kNone = UINT32_MAX;

// (run, pid, id) as one hashable key: correlation ids and external ids are per process.
struct Key {
  uint32_t run, pid;
  uint64_t id;
  bool operator==(const Key&) const = default;
};
struct KeyHash {
  size_t operator()(const Key& k) const {
    return std::hash<uint64_t>()(k.id * 0x9E3779B97F4A7C15ULL ^ (uint64_t{k.run} << 32 | k.pid));
  }
};

// Every ProfilerStep#N is one group: the steps are one op repeated, not N different ops.
std::string group_name(const std::string& name) {
  return name.rfind("ProfilerStep#", 0) == 0 ? "ProfilerStep#*" : name;
}

// The op each op is nested in on its thread (ops sorted by start, parents first, as
// finalize_trace leaves them); kNone at the outermost level.
std::vector<uint32_t> parents(const std::vector<HostOp>& ops) {
  std::vector<uint32_t> parent(ops.size(), kNone);
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, std::vector<uint32_t>> open;  // thread -> stack
  for (uint32_t i = 0; i < ops.size(); ++i) {
    auto& stack = open[{ops[i].run_id, ops[i].pid, ops[i].tid}];
    while (!stack.empty() && ops[stack.back()].end <= ops[i].start) stack.pop_back();
    if (!stack.empty()) parent[i] = stack.back();
    stack.push_back(i);
  }
  return parent;
}

}  // namespace

HostOpSummary summarize_host_ops(const Trace& trace) {
  HostOpSummary out;
  const std::vector<HostOp>& ops = trace.host_ops;
  out.op_instances = ops.size();
  const std::vector<uint32_t> parent = parents(ops);

  // The innermost op holding each external id (an id is normally unique; if not, the deepest wins).
  std::unordered_map<Key, uint32_t, KeyHash> op_of_id;
  for (uint32_t i = 0; i < ops.size(); ++i) {
    if (!ops[i].external_id) continue;
    auto [it, inserted] = op_of_id.try_emplace({ops[i].run_id, ops[i].pid, ops[i].external_id}, i);
    if (!inserted && ops[i].depth > ops[it->second].depth) it->second = i;
  }
  std::unordered_map<Key, uint32_t, KeyHash> op_of_call;  // (run, pid, correlation) -> op
  for (const ExternalCorrelation& x : trace.external_correlations) {
    const auto op = op_of_id.find({x.run_id, x.pid, x.external_id});
    if (op != op_of_id.end()) op_of_call.emplace(Key{x.run_id, x.pid, x.correlation_id}, op->second);
  }

  std::vector<double> self(ops.size(), 0.0);
  std::vector<size_t> kernels(ops.size(), 0), activities(ops.size(), 0);
  std::map<std::pair<uint32_t, StringId>, OpKernel> kernel_time;  // (op, kernel name) -> time
  auto link = [&](uint32_t run, uint32_t pid, uint32_t correlation, TimeNs start, TimeNs end) -> uint32_t {
    const double ns = static_cast<double>(end > start ? end - start : 0);
    out.gpu_ns += ns;
    ++out.gpu_activities;
    const auto op = correlation ? op_of_call.find({run, pid, correlation}) : op_of_call.end();
    if (op == op_of_call.end()) {
      ++out.unlinked_activities;
      return kNone;
    }
    out.linked_gpu_ns += ns;
    self[op->second] += ns;
    ++activities[op->second];
    return op->second;
  };
  for (const Kernel& k : trace.kernels) {
    const uint32_t op = link(k.run_id, k.pid, k.correlation_id, k.start, k.end);
    if (op == kNone) continue;
    ++kernels[op];
    OpKernel& kt = kernel_time[{op, k.name}];
    kt.gpu_ns += static_cast<double>(k.end > k.start ? k.end - k.start : 0);
    ++kt.launches;
  }
  for (const Memcpy& m : trace.memcpys) link(m.run_id, m.pid, m.correlation_id, m.start, m.end);
  for (const Memset& m : trace.memsets) link(m.run_id, m.pid, m.correlation_id, m.start, m.end);

  // Children come after their parents: one backward pass adds each op's total into its parent's.
  std::vector<double> total = self;
  for (size_t i = ops.size(); i-- > 0;)
    if (parent[i] != kNone) total[parent[i]] += total[i];

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
    for (uint32_t p = parent[i]; p != kNone && !nested_in_same; p = parent[p]) nested_in_same = name_of(ops[p].name) == name;
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

}  // namespace gpuscope::analysis

// Collectives by kind and message size, with nccl-tests' algorithm and bus bandwidths, and the
// link peak a GPU's bus bandwidth is measured against.
#include <algorithm>
#include <map>
#include <tuple>

#include "analysis/ranks_internal.h"
#include "gpuscope/analysis_stats.h"

namespace gpuscope::analysis {
namespace {

// What each link carries per byte of the algorithm's size (nccl-tests' PERFORMANCE.md).
double bus_factor(Collective kind, uint32_t ranks) {
  if (ranks < 2) return 1;
  const double n = ranks;
  switch (kind) {
    case Collective::AllReduce: return 2 * (n - 1) / n;
    case Collective::AllGather:
    case Collective::ReduceScatter:
    case Collective::AllToAll: return (n - 1) / n;
    default: return 1;
  }
}

bool has(const std::string& name, const char* part) { return name.find(part) != std::string::npos; }

}  // namespace

// Per direction, from NVIDIA's data sheets (NVLink 4: 25 GB/s per link and direction). A name
// we do not know gets no peak: its peers may be on NVLink or on PCIe.
LinkPeak link_peak(const Device& d) {
  const std::string& n = d.name;
  if ((has(n, "H100") && (has(n, "HBM3") || has(n, "SXM"))) || (has(n, "H200") && !has(n, "NVL")))
    return {450e9, "NVLink 4, 18 links: 450 GB/s per direction (H100/H200 SXM)"};
  if (has(n, "H800")) return {200e9, "NVLink 4, 8 links: 200 GB/s per direction (H800)"};
  if (has(n, "A100") && has(n, "SXM")) return {300e9, "NVLink 3, 12 links: 300 GB/s per direction (A100 SXM)"};
  if (has(n, "B200")) return {900e9, "NVLink 5, 18 links: 900 GB/s per direction (B200)"};
  return {0, "not known for " + (n.empty() ? std::string("this GPU") : n)};
}

namespace ranks_detail {

std::vector<CollectiveSize> size_collectives(const std::vector<Operation>& ops, size_t participants, size_t& unsized) {
  // A group of calls NCCL ran in several kernels is one operation: its first kernel's kind and
  // size, the time of each of its kernels summed (each timed on the rank that arrived last).
  struct Group {
    Collective kind = Collective::None;
    uint64_t bytes = 0;
    uint32_t ranks = 0;
    double ns = 0;
    bool timed = true;
  };
  std::vector<Group> groups;
  for (const Operation& op : ops) {
    uint64_t bytes = 0;
    uint32_t ranks = 0;
    bool continues = !groups.empty();
    const CommKernel* last = op.front();
    for (const CommKernel* k : op) {
      if (!bytes) bytes = k->bytes;
      if (!ranks) ranks = k->ranks;
      continues = continues && k->continues;
      if (k->start > last->start) last = k;
    }
    if (!continues) groups.push_back({last->kind, bytes, ranks});
    Group& g = groups.back();
    g.ns += static_cast<double>(duration(last->start, last->end));
    g.timed = g.timed && last->end > last->start;
  }
  std::map<std::tuple<Collective, uint64_t, uint32_t>, std::vector<double>> times;  // (kind, bytes, ranks) -> ns
  unsized = 0;
  for (const Group& g : groups) {
    if (g.bytes == 0 || !g.timed) {
      ++unsized;
      continue;
    }
    times[{g.kind, g.bytes, g.ranks ? g.ranks : static_cast<uint32_t>(participants)}].push_back(g.ns);
  }
  std::vector<CollectiveSize> out;
  for (auto& [key, list] : times) {
    CollectiveSize s;
    std::tie(s.kind, s.bytes, s.ranks) = key;
    s.operations = list.size();
    s.median_ns = median(std::move(list));
    s.algorithm_bps = static_cast<double>(s.bytes) / s.median_ns * 1e9;
    s.bus_bps = s.algorithm_bps * bus_factor(s.kind, s.ranks);
    out.push_back(s);
  }
  // As nccl-tests prints a sweep, largest first within a kind.
  std::stable_sort(out.begin(), out.end(), [](const CollectiveSize& a, const CollectiveSize& b) {
    return a.kind != b.kind ? a.kind < b.kind : a.bytes > b.bytes;
  });
  return out;
}

}  // namespace ranks_detail
}  // namespace gpuscope::analysis

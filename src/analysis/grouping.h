// Private helper: collect durations under a key, then describe each group.
// std::map keeps keys ordered, so iteration (and thus output) is deterministic.
#pragma once

#include <algorithm>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "gpuscope/analysis.h"
#include "gpuscope/analysis_stats.h"

namespace gpuscope::analysis::detail {

template <typename Key>
class DurationGroups {
 public:
  void add(const Key& key, TimeNs ns) { samples_[key].push_back(static_cast<double>(ns)); }

  // Calls fn(key, stats) for each group in key order.
  template <typename Fn>
  void for_each(Fn&& fn) const {
    for (const auto& [key, values] : samples_) fn(key, describe(values));
  }

 private:
  std::map<Key, std::vector<double>> samples_;
};

// Records grouped by the name a report shows, found through a cheap id per record (its string
// ids): one hash lookup per record, where building the name string and searching a map of names
// costs an allocation and string compares per record (a launch storm has a million). name_of()
// is asked once per new id; ids that show the same name share a group.
class GroupsByName {
 public:
  // The record's group: 0, 1, ... in order of first appearance.
  template <typename NameOf>
  size_t group(uint64_t id, NameOf name_of) {
    if (auto it = by_id_.find(id); it != by_id_.end()) return it->second;
    const size_t g = by_name_.try_emplace(name_of(), by_name_.size()).first->second;
    by_id_.emplace(id, g);
    return g;
  }
  // name -> group, in name order.
  const std::map<std::string, size_t>& names() const { return by_name_; }

 private:
  std::unordered_map<uint64_t, size_t> by_id_;
  std::map<std::string, size_t> by_name_;
};

// A kernel's launch shape: its names, grid and block. One kernel name run at several shapes is
// different work: cuBLAS and cuDNN run one name for many problem sizes.
using LaunchShape = std::tuple<StringId, StringId, int32_t, int32_t, int32_t, int32_t, int32_t, int32_t>;
inline LaunchShape launch_shape(const Kernel& k) {
  return {k.name, k.mangled_name, k.grid[0], k.grid[1], k.grid[2], k.block[0], k.block[1], k.block[2]};
}

// "grid 64x64x1, block 128x1x1, 2048 B dynamic shared" (diff.cpp).
std::string launch_config_text(const Kernel& k);

// The name a kernel is grouped and shown under: demangled, else mangled.
inline const std::string& kernel_name(const Trace& trace, const Kernel& k) {
  static const std::string kUnnamed = "<unnamed kernel>";
  const std::string& demangled = trace.strings.get(k.name);
  if (!demangled.empty()) return demangled;
  const std::string& mangled = trace.strings.get(k.mangled_name);
  return mangled.empty() ? kUnnamed : mangled;
}

// The host end of a copy, or Unknown when the copy has no host end.
inline MemoryKind host_side(const Memcpy& m) {
  switch (m.kind) {
    case CopyKind::HtoD:
    case CopyKind::HtoA: return m.src_kind;
    case CopyKind::DtoH:
    case CopyKind::AtoH: return m.dst_kind;
    default: return MemoryKind::Unknown;
  }
}

// Whether a copy holds its call until it is done or staged: a synchronous copy, or one of
// pageable host memory (the driver stages it before the call returns, even when asynchronous).
inline bool holds_its_call(const Memcpy& m) { return !m.async || host_side(m) == MemoryKind::Pageable; }

// Whether a synchronization call blocks the host until GPU work ends (cudaStreamSynchronize,
// cuCtxSynchronize, ...), as opposed to one that only queues a wait or asks (cudaStreamWaitEvent,
// cudaEventQuery).
inline bool is_blocking_sync(std::string_view api_name) {
  return api_name.find("Synchronize") != std::string_view::npos;
}

// "HtoD (pageable)", "DtoD": direction, and the host side's kind when there is one.
inline std::string memory_label(CopyKind kind, MemoryKind host) {
  std::string label = to_string(kind);
  if (host != MemoryKind::Unknown) label += std::string(" (") + to_string(host) + ")";
  return label;
}

// The report-wide row order: total time descending, then name ascending.
template <typename Row, typename TotalFn, typename NameFn>
void sort_by_total_then_name(std::vector<Row>& rows, TotalFn total, NameFn name) {
  std::stable_sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) {
    if (total(a) != total(b)) return total(a) > total(b);
    return name(a) < name(b);
  });
}

}  // namespace gpuscope::analysis::detail

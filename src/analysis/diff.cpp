// diff_traces(): collect per-instance durations of matching items in two
// captures, then compare each item (see gpuscope/analysis_diff.h for the rules).
#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "analysis/grouping.h"
#include "gpuscope/analysis.h"
#include "gpuscope/analysis_diff.h"
#include "gpuscope/analysis_runs.h"

namespace gpuscope::analysis {
namespace {

using Key = std::pair<std::string, std::string>;  // (name, detail)

// Everything gathered for one item from both files. side 0 = base, 1 = new.
struct Gathered {
  std::vector<std::pair<uint32_t, double>> instances[2];  // (run id, ns)
  double total_ns[2] = {0, 0};
  uint64_t bytes[2] = {0, 0};
  std::set<std::string> host_kinds[2];  // memory items: host kinds seen on each side
  std::string kinds_text;               // memory items not split by kind: "pageable -> pinned"
};

using Groups = std::map<Key, Gathered>;

void add(Gathered& g, int side, uint32_t run_id, TimeNs ns, uint64_t bytes = 0) {
  g.instances[side].push_back({run_id, static_cast<double>(ns)});
  g.total_ns[side] += static_cast<double>(ns);
  g.bytes[side] += bytes;
}

// Copies are matched within power-of-two size classes: a 4-byte row_ptr copy
// and a 32 MB matrix copy are different operations, and comparing a mixture of
// them would only measure the mixture. Label: "[16 MiB, 32 MiB)".
std::string size_class(uint64_t bytes) {
  if (bytes == 0) return "0 B";
  int k = 63 - __builtin_clzll(bytes);
  auto power = [](int e) {
    static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    return std::to_string(1ull << (e % 10)) + " " + units[e / 10];
  };
  return "[" + power(k) + ", " + power(k + 1) + ")";
}

// (pid, correlation id) of each copy -> "HtoD [16 MiB, 32 MiB)", so the API
// call that issued a copy is matched with the calls that issued the same kind of copy.
std::map<std::pair<uint32_t, uint32_t>, std::string> copy_of_call(const Trace& trace) {
  std::map<std::pair<uint32_t, uint32_t>, std::string> out;
  for (const Memcpy& m : trace.memcpys)
    if (m.correlation_id != 0) out[{m.pid, m.correlation_id}] = std::string(to_string(m.kind)) + " " + size_class(m.bytes);
  for (const Memset& m : trace.memsets)
    if (m.correlation_id != 0) out[{m.pid, m.correlation_id}] = "Memset " + size_class(m.bytes);
  return out;
}

std::string config_text(const Kernel& k) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "grid %dx%dx%d, block %dx%dx%d", k.grid[0], k.grid[1], k.grid[2],
                k.block[0], k.block[1], k.block[2]);
  std::string text = buf;
  if (k.dynamic_shared_bytes > 0) text += ", " + std::to_string(k.dynamic_shared_bytes) + " B dynamic shared";
  return text;
}

void gather_kernels(const Trace* traces[2], Groups& groups) {
  // Names that run with several configurations in either file are split by configuration.
  std::map<std::string, std::set<std::string>> configs[2];
  for (int side = 0; side < 2; ++side)
    for (const Kernel& k : traces[side]->kernels) configs[side][detail::kernel_name(*traces[side], k)].insert(config_text(k));
  auto split = [&](const std::string& name) {
    for (int side = 0; side < 2; ++side) {
      auto it = configs[side].find(name);
      if (it != configs[side].end() && it->second.size() > 1) return true;
    }
    return false;
  };
  for (int side = 0; side < 2; ++side)
    for (const Kernel& k : traces[side]->kernels) {
      std::string name = detail::kernel_name(*traces[side], k);
      std::string config = split(name) ? config_text(k) : "";
      add(groups[{std::move(name), std::move(config)}], side, k.run_id, duration(k.start, k.end));
    }
}

void gather_memory(const Trace* traces[2], Groups& groups) {
  std::map<CopyKind, std::set<MemoryKind>> kinds[2];
  for (int side = 0; side < 2; ++side)
    for (const Memcpy& m : traces[side]->memcpys) kinds[side][m.kind].insert(detail::host_side(m));
  for (int side = 0; side < 2; ++side) {
    for (const Memcpy& m : traces[side]->memcpys) {
      const MemoryKind host = detail::host_side(m);
      const bool split = kinds[0][m.kind].size() > 1 || kinds[1][m.kind].size() > 1;
      Gathered& g = groups[{std::string(to_string(m.kind)) + " " + size_class(m.bytes), split ? to_string(host) : ""}];
      add(g, side, m.run_id, duration(m.start, m.end), m.bytes);
      if (host != MemoryKind::Unknown) g.host_kinds[side].insert(to_string(host));
    }
    for (const Memset& m : traces[side]->memsets)
      add(groups[{"Memset " + size_class(m.bytes), ""}], side, m.run_id, duration(m.start, m.end), m.bytes);
  }
  // An unsplit direction names its host kinds, e.g. "pageable -> pinned".
  for (auto& [key, g] : groups) {
    if (!key.second.empty() || (g.host_kinds[0].empty() && g.host_kinds[1].empty())) continue;
    auto join = [](const std::set<std::string>& s) {
      std::string out;
      for (const std::string& k : s) out += (out.empty() ? "" : "+") + k;
      return out.empty() ? std::string("-") : out;
    };
    const std::string a = join(g.host_kinds[0]), b = join(g.host_kinds[1]);
    g.kinds_text = a == b ? a : a + " -> " + b;
  }
}

void gather_api(const Trace* traces[2], Groups& groups) {
  for (int side = 0; side < 2; ++side) {
    const auto copies = copy_of_call(*traces[side]);
    for (const ApiCall& c : traces[side]->api_calls) {
      const std::string& name = traces[side]->strings.get(c.name);
      std::string detail = c.domain == ApiDomain::Driver ? "driver" : "";
      if (auto it = copies.find({c.pid, c.correlation_id}); c.correlation_id != 0 && it != copies.end())
        detail += (detail.empty() ? "" : ", ") + it->second;
      add(groups[{name.empty() ? "<unnamed call>" : name, detail}], side, c.run_id, duration(c.start, c.end));
    }
  }
}

void gather_nvtx(const Trace* traces[2], Groups& groups) {
  for (int side = 0; side < 2; ++side)
    for (const NvtxRange& r : traces[side]->nvtx_ranges) {
      if (r.end <= r.start) continue;  // never closed: no duration (the report counts these)
      add(groups[{traces[side]->strings.get(r.name), traces[side]->strings.get(r.domain)}], side, r.run_id,
          r.end - r.start);
    }
}

// Per-instance durations, or with by_runs one value per run: the median of
// that run's instances (whole runs are the independent measurements then).
std::vector<double> samples_of(const Gathered& g, int side, bool by_runs) {
  if (by_runs) return per_run_medians(g.instances[side]);
  std::vector<double> values;
  for (const auto& [run, ns] : g.instances[side]) values.push_back(ns);
  return values;
}

void append_items(DiffCategory category, Groups& groups, const CompareOptions& options, bool by_runs,
                  std::vector<DiffItem>& out) {
  std::vector<DiffItem> items;
  for (auto& [key, g] : groups) {
    DiffItem item;
    item.category = category;
    item.name = key.first;
    item.detail = key.second;
    if (item.detail.empty()) item.detail = g.kinds_text;
    item.cmp = compare_samples(samples_of(g, 0, by_runs), samples_of(g, 1, by_runs), options);
    item.base_total_ns = g.total_ns[0];
    item.new_total_ns = g.total_ns[1];
    if (category == DiffCategory::Memory) {
      item.base_bytes = g.bytes[0];
      item.new_bytes = g.bytes[1];
      if (g.total_ns[0] > 0) item.base_bandwidth_bps = static_cast<double>(g.bytes[0]) / (g.total_ns[0] * 1e-9);
      if (g.total_ns[1] > 0) item.new_bandwidth_bps = static_cast<double>(g.bytes[1]) / (g.total_ns[1] * 1e-9);
    }
    items.push_back(std::move(item));
  }
  detail::sort_by_total_then_name(
      items, [](const DiffItem& i) { return std::max(i.base_total_ns, i.new_total_ns); },
      [](const DiffItem& i) { return std::make_pair(i.name, i.detail); });
  for (DiffItem& i : items) out.push_back(std::move(i));
}

// Totals: one value per file for single captures (shown, never judged), one
// value per run for benches (judged like any other item).
void append_totals(const Trace& base, const Trace& next, const CompareOptions& options, bool by_runs,
                   std::vector<DiffItem>& out) {
  const Trace* traces[2] = {&base, &next};
  std::vector<RunRow> rows[2];
  for (int side = 0; side < 2; ++side) {
    if (by_runs) {
      rows[side] = summarize_bench(*traces[side]).runs;
      continue;
    }
    const ExecutiveSummary s = summarize_executive(*traces[side]);
    rows[side].push_back({0, s.wall_ns, s.gpu_busy_ns, s.kernel_ns, s.api_ns, s.memcpy_ns, s.kernel_count, 0, 0});
  }
  const std::pair<const char*, TimeNs RunRow::*> totals[] = {
      {"Wall time", &RunRow::wall_ns},     {"GPU busy", &RunRow::gpu_busy_ns}, {"Kernel time", &RunRow::kernel_ns},
      {"CUDA API time", &RunRow::api_ns}, {"Copy time", &RunRow::memcpy_ns},
  };
  for (const auto& [name, member] : totals) {
    std::vector<double> values[2];
    double sums[2] = {0, 0};
    for (int side = 0; side < 2; ++side)
      for (const RunRow& r : rows[side]) {
        values[side].push_back(static_cast<double>(r.*member));
        sums[side] += static_cast<double>(r.*member);
      }
    if (sums[0] == 0 && sums[1] == 0) continue;
    DiffItem item;
    item.category = DiffCategory::Total;
    item.name = name;
    item.cmp = compare_samples(values[0], values[1], options);
    item.base_total_ns = describe(values[0]).median;  // a single capture's value, or the median run
    item.new_total_ns = describe(values[1]).median;
    out.push_back(std::move(item));
  }
}

}  // namespace

const char* to_string(DiffCategory category) {
  switch (category) {
    case DiffCategory::Total: return "total";
    case DiffCategory::Kernel: return "kernel";
    case DiffCategory::Memory: return "memory";
    case DiffCategory::Api: return "api";
    case DiffCategory::Nvtx: return "nvtx";
  }
  return "?";
}

DiffResult diff_traces(const Trace& base, const Trace& next, const CompareOptions& options) {
  DiffResult result;
  result.options = options;
  result.base_runs = base.runs.size();
  result.new_runs = next.runs.size();
  // Whole runs are the unit when both files are benches of at least two runs.
  const bool by_runs = result.by_runs = base.runs.size() >= 2 && next.runs.size() >= 2;
  const Trace* traces[2] = {&base, &next};
  append_totals(base, next, options, by_runs, result.items);
  Groups kernels, memory, api, nvtx;
  gather_kernels(traces, kernels);
  append_items(DiffCategory::Kernel, kernels, options, by_runs, result.items);
  gather_memory(traces, memory);
  append_items(DiffCategory::Memory, memory, options, by_runs, result.items);
  gather_api(traces, api);
  append_items(DiffCategory::Api, api, options, by_runs, result.items);
  gather_nvtx(traces, nvtx);
  append_items(DiffCategory::Nvtx, nvtx, options, by_runs, result.items);
  return result;
}

std::vector<const DiffItem*> regressions_over(const DiffResult& diff, double limit_percent) {
  std::vector<const DiffItem*> out;
  for (const DiffItem& item : diff.items)
    if (item.cmp.verdict == Verdict::Slower && item.cmp.change_percent > limit_percent) out.push_back(&item);
  return out;
}

}  // namespace gpuscope::analysis

// diff_traces(): collect per-instance durations of matching items in two
// captures, then compare each item (see gpuscope/analysis_diff.h for the rules).
// Each instance is tagged with its sample unit: its run, or with
// --iteration-range the iteration it belongs to (analysis_iterations.h).
#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "analysis/diff_internal.h"
#include "analysis/grouping.h"
#include "common/error.h"
#include "gpuscope/analysis.h"
#include "gpuscope/analysis_diff.h"
#include "gpuscope/analysis_host_ops.h"
#include "gpuscope/analysis_iterations.h"
#include "gpuscope/analysis_nvtx_gpu.h"
#include "gpuscope/analysis_profiler_time.h"
#include "gpuscope/analysis_runs.h"

namespace gpuscope::analysis {
namespace {

using Key = std::pair<std::string, std::string>;  // (name, detail)

// Everything gathered for one item from both files. side 0 = base, 1 = new.
struct Gathered {
  std::vector<std::pair<uint32_t, double>> instances[2];  // (unit: run id or iteration index, ns)
  double total_ns[2] = {0, 0};
  uint64_t bytes[2] = {0, 0};
  std::set<std::string> host_kinds[2];  // memory items: host kinds seen on each side
  std::string kinds_text;               // memory items not split by kind: "pageable -> pinned"
};

using Groups = std::map<Key, Gathered>;

enum class Mode { Instances, Runs, Iterations };

// The sample unit of each record: its run id, or with iterations the index of
// the iteration it belongs to (nullopt: outside every iteration, left out).
struct SampleUnits {
  Mode mode = Mode::Instances;
  const Iterations* iterations[2] = {nullptr, nullptr};

  std::optional<uint32_t> call(int side, const ApiCall& c) const {
    return iterations[side] ? iterations[side]->of_call(c) : c.run_id;
  }
  template <typename GpuOp>  // Kernel, Memcpy, Memset: by their launching call
  std::optional<uint32_t> gpu(int side, const GpuOp& op) const {
    return iterations[side] ? iterations[side]->of_gpu(op.run_id, op.pid, op.correlation_id) : op.run_id;
  }
  std::optional<uint32_t> range(int side, const NvtxRange& r) const {
    return iterations[side] ? iterations[side]->of_range(r) : r.run_id;
  }
};

void add(Gathered& g, int side, uint32_t unit, TimeNs ns, uint64_t bytes = 0) {
  g.instances[side].push_back({unit, static_cast<double>(ns)});
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
    if (m.correlation_id != 0)
      out[{m.pid, m.correlation_id}] = std::string(to_string(m.kind)) + " " + size_class(m.bytes);
  for (const Memset& m : trace.memsets)
    if (m.correlation_id != 0) out[{m.pid, m.correlation_id}] = "Memset " + size_class(m.bytes);
  return out;
}

void gather_kernels(const Trace* traces[2], const SampleUnits& units, Groups& groups) {
  const detail::KernelKeys keys(*traces[0], *traces[1]);
  for (int side = 0; side < 2; ++side)
    for (const Kernel& k : traces[side]->kernels)
      if (const std::optional<uint32_t> unit = units.gpu(side, k))
        add(groups[keys.of(*traces[side], k)], side, *unit, duration(k.start, k.end));
}

void gather_memory(const Trace* traces[2], const SampleUnits& units, Groups& groups) {
  std::map<CopyKind, std::set<MemoryKind>> kinds[2];
  for (int side = 0; side < 2; ++side)
    for (const Memcpy& m : traces[side]->memcpys) kinds[side][m.kind].insert(detail::host_side(m));
  for (int side = 0; side < 2; ++side) {
    for (const Memcpy& m : traces[side]->memcpys) {
      const MemoryKind host = detail::host_side(m);
      const bool split = kinds[0][m.kind].size() > 1 || kinds[1][m.kind].size() > 1;
      const std::optional<uint32_t> unit = units.gpu(side, m);
      if (!unit) continue;
      Gathered& g = groups[{std::string(to_string(m.kind)) + " " + size_class(m.bytes), split ? to_string(host) : ""}];
      add(g, side, *unit, duration(m.start, m.end), m.bytes);
      if (host != MemoryKind::Unknown) g.host_kinds[side].insert(to_string(host));
    }
    for (const Memset& m : traces[side]->memsets)
      if (const auto unit = units.gpu(side, m))
        add(groups[{"Memset " + size_class(m.bytes), ""}], side, *unit, duration(m.start, m.end), m.bytes);
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

void gather_api(const Trace* traces[2], const SampleUnits& units, Groups& groups) {
  for (int side = 0; side < 2; ++side) {
    const auto copies = copy_of_call(*traces[side]);
    for (const ApiCall& c : traces[side]->api_calls) {
      const std::optional<uint32_t> unit = units.call(side, c);
      if (!unit) continue;
      const std::string& name = traces[side]->strings.get(c.name);
      std::string detail = c.domain == ApiDomain::Driver ? "driver" : "";
      if (auto it = copies.find({c.pid, c.correlation_id}); c.correlation_id != 0 && it != copies.end())
        detail += (detail.empty() ? "" : ", ") + it->second;
      add(groups[{name.empty() ? "<unnamed call>" : name, detail}], side, *unit, duration(c.start, c.end));
    }
  }
}

void gather_nvtx(const Trace* traces[2], const SampleUnits& units, Groups& groups) {
  for (int side = 0; side < 2; ++side)
    for (const NvtxRange& r : traces[side]->nvtx_ranges) {
      const std::optional<uint32_t> unit = units.range(side, r);
      if (r.end <= r.start || !unit) continue;  // never closed: no duration (the report counts these)
      add(groups[{traces[side]->strings.get(r.name), traces[side]->strings.get(r.domain)}], side, *unit,
          r.end - r.start);
    }
}

// The GPU time launched inside each closed range instance (the NVTX report's GPU time column).
void gather_nvtx_gpu(const Trace* traces[2], const SampleUnits& units, Groups& groups) {
  for (int side = 0; side < 2; ++side) {
    const Trace& trace = *traces[side];
    const NvtxGpuProjection projection = project_nvtx_gpu(trace);
    for (size_t i = 0; i < trace.nvtx_ranges.size(); ++i) {
      const NvtxRange& r = trace.nvtx_ranges[i];
      const std::optional<uint32_t> unit = units.range(side, r);
      if (r.end <= r.start || !unit) continue;
      add(groups[{trace.strings.get(r.name), trace.strings.get(r.domain)}], side, *unit, projection.ranges[i].gpu_ns);
    }
  }
}

// Each op instance's self GPU time, by op name; names that launched nothing in either file are
// left out (aten::empty and its kind would fill the table with zeros).
void gather_ops(const Trace* traces[2], Groups& groups) {
  for (int side = 0; side < 2; ++side) {
    const Trace& trace = *traces[side];
    const std::vector<double> self = op_self_gpu_ns(trace);
    for (size_t i = 0; i < trace.host_ops.size(); ++i) {
      const HostOp& op = trace.host_ops[i];
      if (trace.strings.get(op.category) == kModuleCategory) continue;
      add(groups[{trace.strings.get(op.name), ""}], side, op.run_id, saturated_ns(self[i]));
    }
  }
  std::erase_if(groups,
                [](const auto& group) { return group.second.total_ns[0] == 0 && group.second.total_ns[1] == 0; });
}

// Per-instance durations; by runs one value per run: the median of that run's
// instances (whole runs are the independent measurements then); by iterations
// one value per iteration: the item's summed time in it, 0 where it did not
// occur (the time the item adds to an iteration). An item absent from a side
// has no sample there (only in base / only in new).
std::vector<double> samples_of(const Gathered& g, int side, const SampleUnits& units) {
  if (units.mode == Mode::Runs) return per_run_medians(g.instances[side]);
  if (units.mode == Mode::Iterations)
    return g.instances[side].empty() ? std::vector<double>{} : units.iterations[side]->sums(g.instances[side]);
  std::vector<double> values;
  for (const auto& [run, ns] : g.instances[side]) values.push_back(ns);
  return values;
}

void append_items(DiffCategory category, Groups& groups, const CompareOptions& options, const SampleUnits& units,
                  std::vector<DiffItem>& out) {
  std::vector<DiffItem> items;
  for (auto& [key, g] : groups) {
    DiffItem item;
    item.category = category;
    item.name = key.first;
    item.detail = key.second;
    if (item.detail.empty()) item.detail = g.kinds_text;
    item.cmp = compare_samples(samples_of(g, 0, units), samples_of(g, 1, units), options);
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

void append_total(const char* name, const std::vector<double> values[2], const CompareOptions& options,
                  std::vector<DiffItem>& out) {
  if (describe(values[0]).total == 0 && describe(values[1]).total == 0) return;
  DiffItem item;
  item.category = DiffCategory::Total;
  item.name = name;
  item.cmp = compare_samples(values[0], values[1], options);
  item.base_total_ns = describe(values[0]).median;  // a single capture's value, or the median run / iteration
  item.new_total_ns = describe(values[1]).median;
  out.push_back(std::move(item));
}

// Totals: one value per file for single captures (shown, never judged), one
// value per run for benches (judged like any other item).
void append_run_totals(const Trace* traces[2], const CompareOptions& options, bool by_runs,
                       std::vector<DiffItem>& out) {
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
      {"Wall time", &RunRow::wall_ns},    {"GPU busy", &RunRow::gpu_busy_ns}, {"Kernel time", &RunRow::kernel_ns},
      {"CUDA API time", &RunRow::api_ns}, {"Copy time", &RunRow::memcpy_ns},
  };
  for (const auto& [name, member] : totals) {
    std::vector<double> values[2];
    for (int side = 0; side < 2; ++side)
      for (const RunRow& r : rows[side]) values[side].push_back(static_cast<double>(r.*member));
    append_total(name, values, options, out);
  }
}

// Totals per iteration, judged: the iteration's own duration, and the summed
// time of its kernels, API calls and memory operations (as attributed).
void append_iteration_totals(const SampleUnits& units, const Groups& kernels, const Groups& memory, const Groups& api,
                             const CompareOptions& options, std::vector<DiffItem>& out) {
  std::vector<double> durations[2] = {units.iterations[0]->durations(), units.iterations[1]->durations()};
  append_total("Iteration time", durations, options, out);
  const std::pair<const char*, const Groups*> sums[] = {
      {"Kernel time", &kernels}, {"CUDA API time", &api}, {"Copy and memset time", &memory}};
  for (const auto& [name, groups] : sums) {
    std::vector<double> values[2];
    for (int side = 0; side < 2; ++side) {
      std::vector<std::pair<uint32_t, double>> all;
      for (const auto& [key, g] : *groups) all.insert(all.end(), g.instances[side].begin(), g.instances[side].end());
      values[side] = units.iterations[side]->sums(all);
    }
    append_total(name, values, options, out);
  }
}

}  // namespace

namespace detail {

std::string launch_config_text(const Kernel& k) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "grid %dx%dx%d, block %dx%dx%d", k.grid[0], k.grid[1], k.grid[2], k.block[0],
                k.block[1], k.block[2]);
  std::string text = buf;
  if (k.dynamic_shared_bytes > 0) text += ", " + std::to_string(k.dynamic_shared_bytes) + " B dynamic shared";
  return text;
}

KernelKeys::KernelKeys(const Trace& base, const Trace& next) {
  for (const Trace* trace : {&base, &next}) {
    std::map<std::string, std::set<std::string>> configs;
    for (const Kernel& k : trace->kernels) configs[kernel_name(*trace, k)].insert(launch_config_text(k));
    for (const auto& [name, seen] : configs)
      if (seen.size() > 1) split_.insert(name);
  }
}

std::pair<std::string, std::string> KernelKeys::of(const Trace& trace, const Kernel& k) const {
  std::string name = kernel_name(trace, k);
  std::string config = split_.count(name) ? launch_config_text(k) : "";
  return {std::move(name), std::move(config)};
}

}  // namespace detail

const char* to_string(DiffCategory category) {
  switch (category) {
    case DiffCategory::Total: return "total";
    case DiffCategory::Kernel: return "kernel";
    case DiffCategory::Memory: return "memory";
    case DiffCategory::Api: return "api";
    case DiffCategory::Nvtx: return "nvtx";
    case DiffCategory::NvtxGpu: return "nvtx_gpu";
    case DiffCategory::Op: return "op";
  }
  return "?";
}

DiffResult diff_traces(const Trace& base_capture, const Trace& new_capture, const CompareOptions& options,
                       const IterationSpec& base_iterations, const IterationSpec& new_iterations) {
  // The programs' timelines, without the profiler's time (captures made with --metrics).
  const AnalysisView base_view(base_capture), new_view(new_capture);
  const Trace& base = base_view.trace();
  const Trace& next = new_view.trace();
  DiffResult result;
  result.options = options;
  result.base_runs = base.runs.size();
  result.new_runs = next.runs.size();
  result.base_api_traces = api_traces(base);
  result.new_api_traces = api_traces(next);
  const Trace* traces[2] = {&base, &next};
  SampleUnits units;
  std::optional<Iterations> found[2];
  if (!base_iterations.range.empty() || !new_iterations.range.empty()) {
    // Every item needs min_samples iterations a side for a verdict: fewer is an error, not a quiet "too few".
    for (int side = 0; side < 2; ++side) {
      IterationSpec spec = side == 0 ? base_iterations : new_iterations;
      if (spec.range.empty()) throw Error("an iteration range is needed for both files");
      spec.min_kept = std::max(spec.min_kept, options.min_samples);
      if (spec.label.empty()) spec.label = side == 0 ? "the base capture" : "the new capture";
      found[side] = find_iterations(*traces[side], spec);
      units.iterations[side] = &*found[side];
    }
    units.mode = Mode::Iterations;
    result.by_iterations = true;
    result.base_iterations = found[0]->summary;
    result.new_iterations = found[1]->summary;
  } else if (base.runs.size() >= 2 && next.runs.size() >= 2) {
    units.mode = Mode::Runs;  // whole runs are the unit when both files are benches of at least two runs
    result.by_runs = true;
  }
  Groups kernels, memory, api, nvtx, nvtx_gpu, ops;
  gather_kernels(traces, units, kernels);
  gather_memory(traces, units, memory);
  gather_api(traces, units, api);
  gather_nvtx(traces, units, nvtx);
  gather_nvtx_gpu(traces, units, nvtx_gpu);
  if (!result.by_iterations) gather_ops(traces, ops);
  if (result.by_iterations) append_iteration_totals(units, kernels, memory, api, options, result.items);
  else append_run_totals(traces, options, result.by_runs, result.items);
  append_items(DiffCategory::Kernel, kernels, options, units, result.items);
  append_items(DiffCategory::Memory, memory, options, units, result.items);
  append_items(DiffCategory::Api, api, options, units, result.items);
  append_items(DiffCategory::Nvtx, nvtx, options, units, result.items);
  append_items(DiffCategory::NvtxGpu, nvtx_gpu, options, units, result.items);
  append_items(DiffCategory::Op, ops, options, units, result.items);
  result.base_has_metrics = !base.kernel_metrics.empty();
  result.new_has_metrics = !next.kernel_metrics.empty();
  result.metrics = detail::diff_kernel_metrics(base, next, base.runs.size() >= 2 && next.runs.size() >= 2, options);
  result.base_has_samples = !base.gpu_metric_samples.empty();
  result.new_has_samples = !next.gpu_metric_samples.empty();
  result.base_has_pc_samples = has_pc_samples(base);
  result.new_has_pc_samples = has_pc_samples(next);
  result.utilization = detail::diff_utilization(base, next, options);
  result.ranks = diff_ranks(analyze_ranks(base), analyze_ranks(next));
  return result;
}

std::vector<const DiffItem*> regressions_over(const DiffResult& diff, double limit_percent) {
  std::vector<const DiffItem*> out;
  for (const DiffItem& item : diff.items)
    if (item.cmp.verdict == Verdict::Slower && item.cmp.change_percent > limit_percent) out.push_back(&item);
  return out;
}

}  // namespace gpuscope::analysis

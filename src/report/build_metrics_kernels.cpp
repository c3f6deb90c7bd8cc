// Kernel-metric sections, part 1: speed of light with the bound verdict, memory workload and
// achieved occupancy; and the entry point that emits every metric section that has data, in
// report order. Rows are kernel groups in kernel-time order, cut by --top. docs/metrics.md.
#include <fmt/format.h>

#include <cmath>

#include "report/build_metrics.h"
#include "report/units.h"

namespace gpuscope::report {
namespace {

const std::optional<double> kNone;

// What each verdict asks for, once per verdict present in the table.
const char* bound_guidance(analysis::Bound b) {
  switch (b) {
    case analysis::Bound::Latency:
      return "latency: neither SM nor memory reaches 60% of peak; the warps wait (Warp stalls says on what) or too few "
             "are resident (Achieved occupancy).";
    case analysis::Bound::Memory:
      return "memory: moving fewer bytes or reusing them from cache is what makes it faster (Memory workload).";
    case analysis::Bound::Compute:
      return "compute: fewer or cheaper instructions, tensor cores for matrix math (Tensor cores, Roofline).";
    case analysis::Bound::Balanced:
      return "compute and memory: both near their peaks; only less work (fewer instructions and fewer bytes) helps.";
  }
  return "";
}

}  // namespace

std::optional<Section> build_sol_section(const std::vector<KernelMetrics>& kernels, size_t top) {
  Table t;
  t.key = "speed_of_light";
  t.title = "Throughput, % of peak";
  t.columns = {kernel_column(),
               num_column("profiled", "Profiled", Unit::Count),
               num_column("duration", "Duration", Unit::Ns),
               num_column("sm", "SM", Unit::Percent),
               num_column("memory", "Memory", Unit::Percent),
               num_column("dram", "DRAM", Unit::Percent),
               num_column("l2", "L2", Unit::Percent),
               num_column("l1", "L1/TEX", Unit::Percent),
               text_column("busiest", "Busiest"),
               text_column("bound", "Bound")};
  bool seen[4] = {false, false, false, false};
  for (const KernelMetrics& k : kernels) {
    if (!k.sol) continue;
    const auto& s = *k.sol;
    if (top == 0 || t.rows.size() < top) seen[static_cast<int>(s.bound)] = true;
    t.rows.push_back({text(k.values.name), num(double(k.values.profiled), Unit::Count),
                      num(k.values.duration_ns(), Unit::Ns), num(s.sm_percent, Unit::Percent),
                      num(s.memory_percent, Unit::Percent), opt_num(s.dram_percent, Unit::Percent),
                      opt_num(s.l2_percent, Unit::Percent), opt_num(s.l1_percent, Unit::Percent),
                      s.busiest_unit.empty() ? Cell{} : text(s.busiest_unit), text(analysis::to_string(s.bound))});
  }
  if (t.rows.empty()) return std::nullopt;
  limit_rows(t, top);
  t.notes.push_back(
      "Medians over the profiled launches of each kernel's most common configuration. Duration: "
      "gpu__time_duration when collected, else traced. Percent of peak over the kernel's duration "
      "(L1/TEX: over its active cycles); Memory is the busiest memory unit as ncu reports it.");
  t.notes.push_back(
      "Bound: the higher of SM and Memory at >= 60% of peak decides (both within 10 points: compute and "
      "memory); neither at 60%: latency.");
  for (analysis::Bound b :
       {analysis::Bound::Latency, analysis::Bound::Memory, analysis::Bound::Compute, analysis::Bound::Balanced})
    if (seen[static_cast<int>(b)]) t.notes.push_back(std::string("Bound ") + bound_guidance(b));
  Section s;
  s.key = "speed_of_light";
  s.title = "Speed of light";
  s.tables.push_back(std::move(t));
  return s;
}

std::optional<Section> build_memory_workload_section(const std::vector<KernelMetrics>& kernels, size_t top) {
  Table t;
  t.key = "memory_workload";
  t.title = "DRAM and caches, per launch";
  t.columns = {kernel_column(),
               num_column("dram_read", "DRAM read", Unit::Bytes),
               num_column("dram_written", "DRAM written", Unit::Bytes),
               num_column("dram_bandwidth", "DRAM BW", Unit::BytesPerSecond),
               num_column("dram_bandwidth_percent", "% of peak", Unit::Percent),
               num_column("l1_hit", "L1 hit", Unit::Percent),
               num_column("l2_hit", "L2 hit", Unit::Percent),
               num_column("l2_read_sectors", "L2 sectors rd", Unit::Count),
               num_column("l2_write_sectors", "L2 sectors wr", Unit::Count)};
  Table c;
  c.key = "bank_conflicts";
  c.title = "Shared-memory bank conflicts, per launch";
  c.columns = {kernel_column(), num_column("load_conflicts", "Load conflicts", Unit::Count),
               num_column("store_conflicts", "Store conflicts", Unit::Count),
               num_column("cycle_percent", "% of SM cycles", Unit::Percent)};
  for (const KernelMetrics& k : kernels) {
    if (!k.memory) continue;
    const auto& m = *k.memory;
    std::optional<double> of_peak;
    if (m.dram_bandwidth && m.dram_peak_bandwidth) of_peak = *m.dram_bandwidth / *m.dram_peak_bandwidth * 100.0;
    t.rows.push_back({text(k.values.name), opt_num(m.dram_read_bytes, Unit::Bytes),
                      opt_num(m.dram_write_bytes, Unit::Bytes), opt_num(m.dram_bandwidth, Unit::BytesPerSecond),
                      opt_num(of_peak, Unit::Percent), opt_num(m.l1_hit_percent, Unit::Percent),
                      opt_num(m.l2_hit_percent, Unit::Percent), opt_num(m.l2_read_sectors, Unit::Count),
                      opt_num(m.l2_write_sectors, Unit::Count)});
    if (m.shared_load_conflicts || m.shared_store_conflicts)
      c.rows.push_back({text(k.values.name), opt_num(m.shared_load_conflicts, Unit::Count),
                        opt_num(m.shared_store_conflicts, Unit::Count),
                        opt_num(m.conflict_cycle_percent, Unit::Percent)});
  }
  if (t.rows.empty()) return std::nullopt;
  limit_rows(t, top);
  t.notes.push_back(
      "DRAM BW: DRAM bytes read + written / duration; % of peak against the DRAM peak (peak bytes per "
      "cycle x DRAM clock) when the roofline set was collected. L2 sectors: 32-byte sectors the SMs read "
      "and wrote in L2.");
  Section s;
  s.key = "memory_workload";
  s.title = "Memory workload";
  s.tables.push_back(std::move(t));
  if (!c.rows.empty()) {
    limit_rows(c, top);
    c.notes.push_back(
        "% of SM cycles: each conflict is one extra shared-memory wavefront, one cycle of the SM's "
        "shared-memory pipe; conflicts / (SM active cycles x SMs). From 5% on, shared_bank_conflicts "
        "estimates what they cost.");
    s.tables.push_back(std::move(c));
  }
  return s;
}

std::optional<Section> build_achieved_occupancy_section(const std::vector<KernelMetrics>& kernels, size_t top) {
  Table t;
  t.key = "achieved_occupancy";
  t.title = "Achieved vs theoretical occupancy";
  t.columns = {kernel_column(),
               num_column("theoretical", "Theoretical", Unit::Percent),
               num_column("achieved", "Achieved", Unit::Percent),
               num_column("of_theoretical", "Of theoretical", Unit::Percent),
               num_column("active_warps", "Warps/SM", Unit::Plain),
               text_column("limiter", "Limiter"),
               num_column("waves", "Waves", Unit::Plain)};
  std::vector<std::string> gaps;
  for (const KernelMetrics& k : kernels) {
    if (!k.occupancy) continue;
    const auto& a = *k.occupancy;
    const auto& o = a.theoretical;
    std::optional<double> warps;
    if (a.active_warps_per_sm) warps = std::round(*a.active_warps_per_sm * 100) / 100;
    t.rows.push_back({text(k.values.name), o ? num(o->occupancy_percent, Unit::Percent) : opt_num(kNone, Unit::Percent),
                      num(a.achieved_percent, Unit::Percent), opt_num(a.achieved_of_theoretical, Unit::Percent),
                      opt_num(warps, Unit::Plain), o ? text(analysis::to_string(o->limiter)) : text("unknown"),
                      o ? num(std::round(o->waves * 100) / 100, Unit::Plain) : opt_num(kNone, Unit::Plain)});
    if (a.large_gap && (top == 0 || t.rows.size() <= top))
      gaps.push_back(fmt::format("{}: achieved {} of {} theoretical: {}.", k.values.name,
                                 format_percent(a.achieved_percent), format_percent(o->occupancy_percent),
                                 a.explanation));
  }
  if (t.rows.empty()) return std::nullopt;
  limit_rows(t, top);
  t.notes.push_back(
      "Achieved: warps resident per SM over its active cycles (sm__warps_active), as a share of the "
      "maximum; theoretical, limiter and waves as in Launch configuration. Below 80% of theoretical and "
      "10+ points lower is a large gap: uneven work, a tail, or a grid or kernel too small to fill the GPU.");
  for (std::string& g : gaps) t.notes.push_back(std::move(g));
  Section s;
  s.key = "achieved_occupancy";
  s.title = "Achieved occupancy";
  s.tables.push_back(std::move(t));
  return s;
}

std::vector<Section> build_kernel_metric_sections(const Trace& trace, size_t top) {
  const std::vector<KernelMetrics> kernels = analysis::analyze_kernel_metrics(trace);
  std::vector<Section> out;
  if (kernels.empty()) return out;
  using Builder = std::optional<Section> (*)(const std::vector<KernelMetrics>&, size_t);
  for (Builder b : {&build_sol_section, &build_memory_workload_section, &build_achieved_occupancy_section,
                    &build_warp_stall_section, &build_tensor_section, &build_roofline_section})
    if (auto s = b(kernels, top)) out.push_back(std::move(*s));
  if (out.empty()) return out;
  // Said once, in the first metric section: which kernels have no metrics, or only of other configurations.
  const size_t groups = analysis::summarize_kernels(trace).size();
  if (groups > kernels.size())
    out.front().notes.push_back(
        fmt::format("{} without metrics (not profiled, or their measurement failed: see Data "
                    "quality).",
                    plural(groups - kernels.size(), "kernel", "kernels")));
  for (const KernelMetrics& k : kernels)
    if (k.values.all_configs)
      out.front().notes.push_back(
          fmt::format("{}: no launch of its most common configuration was measured; its "
                      "medians are over its other configurations.",
                      k.values.name));
  return out;
}

}  // namespace gpuscope::report

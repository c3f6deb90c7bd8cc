// Speed of light, memory workload and achieved occupancy of one kernel group, from the medians
// of its metrics (metrics_values.cpp). Thresholds and definitions: docs/metrics.md.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "gpuscope/analysis_metrics.h"

namespace gpuscope::analysis {
namespace {

constexpr double kSectorBytes = 32;  // DRAM and L2 sectors

std::optional<double> sum_if_any(const std::optional<double>& a, const std::optional<double>& b) {
  if (!a && !b) return std::nullopt;
  return a.value_or(0) + b.value_or(0);
}

std::optional<double> scaled(const std::optional<double>& v, double factor) {
  if (!v) return std::nullopt;
  return *v * factor;
}

}  // namespace

const char* to_string(Bound bound) {
  switch (bound) {
    case Bound::Compute: return "compute";
    case Bound::Memory: return "memory";
    case Bound::Balanced: return "compute and memory";
    case Bound::Latency: return "latency";
  }
  return "unknown";
}

std::optional<SpeedOfLight> speed_of_light(const KernelMetricValues& k) {
  const auto sm = k.get("sm__throughput.avg.pct_of_peak_sustained_elapsed");
  if (!sm) return std::nullopt;
  SpeedOfLight s;
  s.sm_percent = *sm;
  s.dram_percent = k.get("dram__throughput.avg.pct_of_peak_sustained_elapsed");
  s.l2_percent = k.get("lts__throughput.avg.pct_of_peak_sustained_elapsed");
  s.l1_percent = k.get("l1tex__throughput.avg.pct_of_peak_sustained_active");
  // The busiest memory unit; ties keep the first (DRAM, then L2, then L1/TEX).
  const std::pair<const char*, std::optional<double>> units[] = {
      {"DRAM", s.dram_percent}, {"L2", s.l2_percent}, {"L1/TEX", s.l1_percent}};
  for (const auto& [name, pct] : units)
    if (pct && (s.busiest_unit.empty() || *pct > s.busiest_percent)) s.busiest_unit = name, s.busiest_percent = *pct;

  const auto memory = k.get("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed");
  if (!memory && s.busiest_unit.empty()) return std::nullopt;
  s.memory_percent = memory ? *memory : s.busiest_percent;

  const double high = std::max(s.sm_percent, s.memory_percent);
  if (high < kSolHighPercent) s.bound = Bound::Latency;
  else if (std::min(s.sm_percent, s.memory_percent) >= kSolHighPercent &&
           std::fabs(s.sm_percent - s.memory_percent) < kSolBalancedPoints)
    s.bound = Bound::Balanced;
  else s.bound = s.sm_percent >= s.memory_percent ? Bound::Compute : Bound::Memory;
  return s;
}

std::optional<MemoryWorkload> memory_workload(const KernelMetricValues& k) {
  MemoryWorkload m;
  m.duration_ns = k.duration_ns();
  m.dram_read_bytes = k.get("dram__bytes_read.sum");
  if (!m.dram_read_bytes) m.dram_read_bytes = scaled(k.get("dram__sectors_read.sum"), kSectorBytes);
  m.dram_write_bytes = k.get("dram__bytes_write.sum");
  if (!m.dram_write_bytes) m.dram_write_bytes = scaled(k.get("dram__sectors_write.sum"), kSectorBytes);
  // dram__bytes.sum (roofline set) when the split is missing.
  std::optional<double> dram_bytes = sum_if_any(m.dram_read_bytes, m.dram_write_bytes);
  if (!dram_bytes) dram_bytes = k.get("dram__bytes.sum");
  if (dram_bytes && m.duration_ns > 0) m.dram_bandwidth = *dram_bytes / (m.duration_ns * 1e-9);
  const auto peak = k.get("dram__bytes.sum.peak_sustained");
  const auto clock = k.get("dram__cycles_elapsed.avg.per_second");
  if (peak && clock && *peak > 0 && *clock > 0) m.dram_peak_bandwidth = *peak * *clock;

  m.l1_hit_percent = k.get("l1tex__t_sector_hit_rate.pct");
  m.l2_hit_percent = k.get("lts__t_sector_hit_rate.pct");
  m.l2_read_sectors = k.get("lts__t_sectors_srcunit_tex_op_read.sum");
  m.l2_write_sectors = k.get("lts__t_sectors_srcunit_tex_op_write.sum");
  m.shared_load_conflicts = k.get("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum");
  m.shared_store_conflicts = k.get("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum");

  const auto conflicts = sum_if_any(m.shared_load_conflicts, m.shared_store_conflicts);
  auto sm_cycles = k.get("sm__cycles_active.avg");
  if (!sm_cycles) sm_cycles = k.get("gpc__cycles_elapsed.max");
  const uint32_t sms = k.device ? k.device->sm_count : 0;
  if (conflicts && sm_cycles && *sm_cycles > 0 && sms > 0)
    m.conflict_cycle_percent = *conflicts / (*sm_cycles * sms) * 100.0;

  const bool any = dram_bytes || m.l1_hit_percent || m.l2_hit_percent || m.l2_read_sectors || m.l2_write_sectors ||
                   conflicts;
  if (!any) return std::nullopt;
  return m;
}

std::optional<AchievedOccupancy> achieved_occupancy(const KernelMetricValues& k) {
  const auto achieved = k.get("sm__warps_active.avg.pct_of_peak_sustained_active");
  if (!achieved) return std::nullopt;
  AchievedOccupancy a;
  a.achieved_percent = *achieved;
  a.active_warps_per_sm = k.get("sm__warps_active.avg.per_cycle_active");
  const OccupancyInput in = occupancy_input(k.config);
  const uint64_t blocks = in.blocks;
  if (k.device) a.theoretical = compute_occupancy(*k.device, in);
  if (!a.theoretical || a.theoretical->occupancy_percent <= 0) return a;
  const Occupancy& o = *a.theoretical;
  a.achieved_of_theoretical = a.achieved_percent / o.occupancy_percent * 100.0;
  a.large_gap = a.achieved_percent < kOccupancyGapRatio * o.occupancy_percent &&
                o.occupancy_percent - a.achieved_percent >= kOccupancyGapPoints;
  if (!a.large_gap) return a;

  // Why the SMs held fewer warps than fit: the grid, its last wave, or uneven work.
  const uint32_t sms = k.device->sm_count;
  if (o.waves > 0 && o.waves < 1.0 && sms > 0) {
    // An SM that runs at all holds at least one block; the metric averages over active cycles.
    const double per_sm = std::max(1.0, static_cast<double>(blocks) / sms);
    a.cause = OccupancyGapCause::SmallGrid;
    a.explanation = fmt::format(
        "the grid is smaller than one wave: {} blocks on {} SMs are {:.1f} per active SM where {} "
        "fit, so the SMs never fill (at most {:.1f}% occupancy)",
        blocks, sms, per_sm, o.blocks_per_sm, 100.0 * per_sm * o.warps_per_block / k.device->max_warps_per_sm);
  } else {
    // Equal-length waves: the SM slots are filled waves / ceil(waves) of the time, so a partial
    // last wave alone would lower achieved occupancy to about theoretical x that fill.
    const double whole = std::ceil(o.waves);
    const double fill = whole > 0 ? o.waves / whole : 1.0;
    const bool partial = o.waves > 1.0 && o.last_wave_percent < 100.0;
    a.cause = partial && a.achieved_percent >= kOccupancyGapRatio * o.occupancy_percent * fill
                  ? OccupancyGapCause::Tail
                  : OccupancyGapCause::UnevenWork;
    if (a.cause == OccupancyGapCause::Tail)
      a.explanation = fmt::format(
          "{:.2f} waves: the last one fills {:.0f}% of the SM slots, so the SMs run part-empty "
          "at the end (tail)",
          o.waves, o.last_wave_percent);
    else
      a.explanation = fmt::format(
          "warps or blocks finish at different times (uneven work per block or warp, early "
          "exits), or the kernel is too short for the SMs to fill up{}",
          partial ? fmt::format("; its partial last wave ({:.0f}% full) explains at most "
                                "{:.1f} points",
                                o.last_wave_percent, o.occupancy_percent * (1.0 - fill))
                  : std::string());
  }
  return a;
}

}  // namespace gpuscope::analysis

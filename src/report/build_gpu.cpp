// GPU-side sections: kernels (timing + launch configuration) and memory
// operations by direction.
#include <fmt/format.h>

#include "report/builder.h"

namespace gpuscope::report {
namespace {

std::string dims(const std::array<int32_t, 3>& d) { return fmt::format("{},{},{}", d[0], d[1], d[2]); }

}  // namespace

Section build_kernel_section(const std::vector<analysis::KernelGroup>& groups, size_t top) {
  Section s;
  s.key = "kernels";
  s.title = "Kernels";
  double all_kernels_ns = 0;
  for (const auto& g : groups) all_kernels_ns += g.duration.total;

  // Two tables rather than one 16-column table, so the text report fits 120 columns.
  Table timing;
  timing.key = "kernel_time";
  timing.title = "Kernel time";
  timing.columns = {text_column("name", "Kernel", TextStyle::Identifier),
                    num_column("time_percent", "Time %", Unit::Percent), num_column("total", "Total", Unit::Ns),
                    num_column("count", "Count", Unit::Count)};
  add_stats_columns(timing, true);

  Table config;
  config.key = "kernel_launch";
  config.title = "Kernel launch configuration";
  config.columns = {text_column("name", "Kernel", TextStyle::Identifier),
                    text_column("grid", "Grid"),
                    text_column("block", "Block"),
                    num_column("registers_per_thread", "Regs/thread", Unit::Count),
                    num_column("static_shared", "Static smem", Unit::Bytes),
                    num_column("dynamic_shared", "Dynamic smem", Unit::Bytes),
                    num_column("configs", "Configs", Unit::Count)};
  bool any_varies = false;  // among the rows shown

  for (size_t i = 0; i < groups.size(); ++i) {
    const auto& g = groups[i];
    std::vector<Cell> row = {text(g.name),
                             opt_num(analysis::share_percent(g.duration.total, all_kernels_ns), Unit::Percent),
                             num(g.duration.total, Unit::Ns), num(static_cast<double>(g.duration.count), Unit::Count)};
    add_stats_cells(row, g.duration, true);
    timing.rows.push_back(std::move(row));

    const auto& c = g.config;
    config.rows.push_back({text(g.name), text(dims(c.grid)), text(dims(c.block)),
                           num(c.registers_per_thread, Unit::Count), num(c.static_shared_bytes, Unit::Bytes),
                           num(c.dynamic_shared_bytes, Unit::Bytes),
                           num(static_cast<double>(g.distinct_configs), Unit::Count)});
    if (top == 0 || i < top) any_varies |= g.distinct_configs > 1;
  }
  if (!groups.empty()) timing.notes.push_back("Time %: share of the summed time of all kernels.");
  if (any_varies)
    config.notes.push_back("Configs > 1: launch configuration varies between launches; the most common one is shown.");
  limit_rows(timing, top);
  limit_rows(config, top);
  s.tables.push_back(std::move(timing));
  s.tables.push_back(std::move(config));
  return s;
}

Section build_memory_section(const Trace& trace, size_t top) {
  Section s;
  s.key = "memory";
  s.title = "Memory operations";
  Table t;
  t.key = "memory_ops";
  t.title = "By direction and host memory kind";
  t.columns = {text_column("operation", "Operation"),
               num_column("count", "Count", Unit::Count),
               num_column("bytes", "Total bytes", Unit::Bytes),
               num_column("avg_bytes", "Avg size", Unit::Bytes),
               num_column("time", "Total time", Unit::Ns),
               num_column("avg_time", "Avg time", Unit::Ns),
               num_column("bandwidth", "Bandwidth", Unit::BytesPerSecond)};
  for (const auto& g : analysis::summarize_memory_ops(trace)) {
    const double n = static_cast<double>(g.count);
    t.rows.push_back({text(g.label), num(n, Unit::Count), num(static_cast<double>(g.bytes), Unit::Bytes),
                      num(static_cast<double>(g.bytes) / n, Unit::Bytes), num(static_cast<double>(g.time_ns), Unit::Ns),
                      num(static_cast<double>(g.time_ns) / n, Unit::Ns),
                      opt_num(g.bandwidth_bps, Unit::BytesPerSecond)});
  }
  if (!t.rows.empty()) t.notes.push_back("Bandwidth: total bytes / total GPU-side time of the group.");
  mark_not_in_source(t, trace, kGapCopyMemoryKinds);
  limit_rows(t, top);
  s.tables.push_back(std::move(t));
  return s;
}

}  // namespace gpuscope::report

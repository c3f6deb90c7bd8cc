// "Launch configuration": theoretical occupancy, its limiter and waves for
// the top kernels (src/analysis/occupancy.cpp has the rules and constants).
#include <fmt/format.h>

#include "gpuscope/analysis_occupancy.h"
#include "report/builder.h"

namespace gpuscope::report {

Section build_launch_config_section(const Trace& trace, const std::vector<analysis::KernelGroup>& groups, size_t top) {
  Section s;
  s.key = "launch_configuration";
  s.title = "Launch configuration";
  Table t;
  t.key = "occupancy";
  t.title = "Theoretical occupancy and waves";
  t.columns = {
      text_column("name", "Kernel", TextStyle::Identifier),  num_column("threads", "Threads/blk", Unit::Count),
      num_column("registers", "Regs/thr", Unit::Count),      num_column("shared_alloc", "Smem/blk", Unit::Bytes),
      num_column("blocks_per_sm", "Blocks/SM", Unit::Count), text_column("limiter", "Limiter"),
      num_column("occupancy", "Occupancy", Unit::Percent),   num_column("waves", "Waves", Unit::Plain),
      num_column("last_wave", "Last wave", Unit::Percent)};
  const auto nan = std::optional<double>();
  mark_not_in_source(t, trace, kGapLaunchConfig);
  // Without launch configurations every row would be zeros: the table says why it is empty.
  const auto kernels = trace.lacks(kGapLaunchConfig) ? std::vector<analysis::KernelOccupancy>{}
                                                     : analysis::kernel_occupancy(trace, groups, top);
  for (const auto& k : kernels) {
    const auto& c = k.config;
    std::vector<Cell> row = {text(k.name), num(double(c.block[0]) * c.block[1] * c.block[2], Unit::Count),
                             num(c.registers_per_thread, Unit::Count)};
    if (k.occupancy) {
      const auto& o = *k.occupancy;
      row.insert(row.end(),
                 {num(o.shared_per_block, Unit::Bytes), num(o.blocks_per_sm, Unit::Count),
                  text(analysis::to_string(o.limiter)), num(o.occupancy_percent, Unit::Percent),
                  num(std::round(o.waves * 100) / 100, Unit::Plain), num(o.last_wave_percent, Unit::Percent)});
    } else {
      row.insert(row.end(), {opt_num(nan, Unit::Bytes), opt_num(nan, Unit::Count), text("unknown"),
                             opt_num(nan, Unit::Percent), opt_num(nan, Unit::Plain), opt_num(nan, Unit::Percent)});
    }
    t.rows.push_back(std::move(row));
  }
  if (!t.rows.empty())
    t.notes.push_back(
        "Most common configuration per kernel. Smem/blk: static + dynamic + 1 KB reserved per block, "
        "rounded to 128 B. Registers: per warp in units of 256. Waves: blocks / (blocks/SM x SMs).");
  s.tables.push_back(std::move(t));
  return s;
}

}  // namespace gpuscope::report

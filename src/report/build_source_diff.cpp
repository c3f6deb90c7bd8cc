// The diff's "Source lines" section: per line of the kernels sampled in both captures, the time
// its warps spent there in each and the change (analysis_source.h, diff_source_lines).
#include <fmt/format.h>

#include "gpuscope/analysis_source.h"
#include "report/builder.h"
#include "report/units.h"

namespace gpuscope::report {
namespace {

Cell stall_cell(const std::string& reason, double percent) {
  return reason.empty() ? Cell{} : text(fmt::format("{} {}", reason, format_percent(percent)));
}

}  // namespace

Section build_source_diff_section(const std::vector<analysis::SourceLineDiff>& lines, size_t top) {
  Section s;
  s.key = "source_lines";
  s.title = "Source lines (PC samples)";
  s.empty_text = "no line of a kernel sampled in both captures (a line table needs nvcc -lineinfo)";
  if (lines.empty()) return s;
  Table t;
  t.key = "source_lines";
  t.title = "Time on each line: the lines that changed most first";
  t.columns = {text_column("kernel", "Kernel", TextStyle::Identifier),
               text_column("line", "Line", TextStyle::Identifier),
               num_column("base", "Base", Unit::Ns),
               num_column("new", "New", Unit::Ns),
               num_column("change", "Change", Unit::Ns),
               num_column("base_share", "Base share", Unit::Percent),
               num_column("new_share", "New share", Unit::Percent),
               text_column("base_stall", "Base top stall"),
               text_column("new_stall", "New top stall")};
  for (const analysis::SourceLineDiff& l : lines)
    t.rows.push_back({text(l.kernel), text(l.place), num(l.base_ns, Unit::Ns), num(l.new_ns, Unit::Ns),
                      num(l.new_ns - l.base_ns, Unit::Ns), num(l.base_share, Unit::Percent),
                      num(l.new_share, Unit::Percent), stall_cell(l.base_stall, l.base_stall_percent),
                      stall_cell(l.new_stall, l.new_stall_percent)});
  t.notes.push_back(
      "Time on a line: the kernel's traced time x the line's share of the kernel's samples, in each capture (a "
      "sample is a warp at an instruction at an instant). Lines match by file name and number, kernels by name: "
      "after an edit that moves lines, a line number names different code in each capture. One number per "
      "capture: shown, not judged.");
  limit_rows(t, top);
  s.tables.push_back(std::move(t));
  return s;
}

}  // namespace gpuscope::report

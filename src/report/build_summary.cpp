// Executive summary: where the wall time went, in one screen.
#include <fmt/format.h>

#include "report/builder.h"
#include "report/units.h"

namespace gpuscope::report {

Section build_summary_section(const analysis::ExecutiveSummary& e, const analysis::DataQuality& quality,
                              const analysis::ProfilerTime& cut, const std::string& source_tool) {
  using analysis::share_percent;
  Section s;
  s.key = "summary";
  s.title = "Executive summary";
  const double wall = static_cast<double>(e.wall_ns);

  std::string wall_note;
  switch (e.wall_source) {
    // An imported file's run times are its first and last record: no launcher was there.
    case analysis::WallSource::Run:
      wall_note = source_tool.empty() ? "launcher start to exit" : "first to last record " + source_tool + " wrote";
      break;
    case analysis::WallSource::Windows: wall_note = "the capture range's windows (see Run)"; break;
    case analysis::WallSource::EventSpan: wall_note = "first to last captured event (no launcher times)"; break;
    case analysis::WallSource::None: wall_note = "nothing captured"; break;
  }
  // The analysed timeline is the program's: what kernel replay for --metrics added is cut out.
  if (cut.total_ns() > 0)
    wall_note += ", less " + format_duration(static_cast<double>(cut.total_ns())) +
                 " of metric collection (Data quality)";
  s.lines.push_back(
      {"wall_time", "Wall time",
       e.wall_source == analysis::WallSource::None ? opt_num(std::nullopt, Unit::Ns) : num(wall, Unit::Ns), wall_note});

  s.lines.push_back({"gpu_busy_time", "GPU busy time", num(static_cast<double>(e.gpu_busy_ns), Unit::Ns),
                     "union of kernel, copy and memset intervals, " + plural(e.busy_devices, "device", "devices")});
  s.lines.push_back({"gpu_busy_share", "GPU busy / wall",
                     opt_num(share_percent(static_cast<double>(e.gpu_busy_ns), wall), Unit::Percent), ""});
  s.lines.push_back({"kernel_time", "Kernel time", num(static_cast<double>(e.kernel_ns), Unit::Ns),
                     "sum over " + plural(e.kernel_count, "launch", "launches")});
  s.lines.push_back({"kernel_share", "Kernel time / wall",
                     opt_num(share_percent(static_cast<double>(e.kernel_ns), wall), Unit::Percent), ""});
  s.lines.push_back({"api_time", "CUDA API time", num(static_cast<double>(e.api_ns), Unit::Ns),
                     "sum over " +
                         plural(e.api_count, std::string(to_string(e.api_domain)) + " API call",
                                std::string(to_string(e.api_domain)) + " API calls") +
                         ", all threads"});
  s.lines.push_back({"memory_op_time", "Memory-op time",
                     num(static_cast<double>(e.memcpy_ns) + static_cast<double>(e.memset_ns), Unit::Ns),
                     plural(e.memcpy_count, "copy", "copies") + ", " + plural(e.memset_count, "memset", "memsets")});
  s.lines.push_back({"bytes_copied", "Bytes copied", num(static_cast<double>(e.memcpy_bytes), Unit::Bytes), ""});
  s.lines.push_back({"sync_wait_time", "Sync wait time", num(static_cast<double>(e.sync_wait_ns), Unit::Ns),
                     "CPU waiting in " + plural(e.sync_count, "synchronization", "synchronizations")});
  s.lines.push_back(
      {"data_quality", "Data quality", text(quality.grade()), quality.complete() ? "" : "see Data quality below"});
  return s;
}

}  // namespace gpuscope::report

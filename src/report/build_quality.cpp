// Data quality: dropped records, truncated processes, capture problems and
// CUPTI's own overhead. Always present, so an incomplete capture is never silent.
#include <fmt/format.h>

#include "report/builder.h"
#include "report/units.h"

namespace gpuscope::report {
namespace {

std::string join_pids(const std::vector<uint32_t>& pids) {
  std::string out;
  for (uint32_t pid : pids) out += (out.empty() ? "" : ", ") + std::to_string(pid);
  return out;
}

}  // namespace

Section build_quality_section(const analysis::DataQuality& q, TimeNs wall_ns, size_t top) {
  Section s;
  s.key = "data_quality";
  s.title = "Data quality";
  const char* status_note = !q.complete()        ? ""
                            : q.no_cuda_activity ? "no loss recorded, and no CUDA call or GPU work either"
                                                 : "no loss, truncation or capture problem recorded";
  s.lines.push_back({"status", "Status", text(q.grade()), status_note});

  s.lines.push_back(
      {"truncated_processes", "Truncated processes", num(static_cast<double>(q.truncated_pids.size()), Unit::Count),
       q.truncated_pids.empty() ? "" : "no clean shutdown, tail lost: pid " + join_pids(q.truncated_pids)});

  std::string problems;
  for (const auto& p : q.capture_problems)
    problems += (problems.empty() ? "" : "; ") + fmt::format("pid {}: {}", p.pid, p.status);
  s.lines.push_back({"capture_problems", "Capture problems",
                     num(static_cast<double>(q.capture_problems.size()), Unit::Count), problems});

  for (const auto& silence : q.shared_cupti_silences) {
    const std::string duration = format_duration(static_cast<double>(silence.silent_ns));
    const std::string what =
        silence.calls_went_on
            ? fmt::format("its CUDA calls went on for {} after its last GPU record reached gpuscope", duration)
            : fmt::format("no CUDA activity reached gpuscope in the last {} before it ended", duration);
    s.lines.push_back({"shared_cupti_silence", "Possible loss", num(static_cast<double>(silence.silent_ns), Unit::Ns),
                       fmt::format("pid {} loaded CUPTI itself and {}: if it ran torch.profiler (or another CUPTI "
                                   "tool) then, that tool took the activity records and this capture misses them",
                                   silence.pid, what)});
  }

  if (q.outside_run.records > 0)
    s.lines.push_back({"outside_run", "Outside the run", num(static_cast<double>(q.outside_run.records), Unit::Count),
                       "records reaching up to " + format_duration(static_cast<double>(q.outside_run.furthest_ns)) +
                           " past the launcher's start or exit: clock trouble, or a capture put together from "
                           "different runs; their times and every sum over them are suspect"});

  auto overhead_share = analysis::share_percent(static_cast<double>(q.cupti_overhead_ns), static_cast<double>(wall_ns));
  std::string overhead_note = plural(q.overhead_records, "overhead record", "overhead records");
  if (overhead_share) overhead_note += ", " + format_percent(*overhead_share) + " of wall time";
  s.lines.push_back(
      {"cupti_overhead", "CUPTI overhead", num(static_cast<double>(q.cupti_overhead_ns), Unit::Ns), overhead_note});

  Table t;
  t.key = "losses";
  t.title = "Recorded losses";
  t.empty_text = "none recorded";
  t.columns = {text_column("what", "What"), num_column("count", "Count", Unit::Count), text_column("pids", "PIDs"),
               text_column("detail", "Detail", TextStyle::Prose)};
  for (const auto& loss : q.losses)
    t.rows.push_back({text(loss.what), num(static_cast<double>(loss.count), Unit::Count), text(join_pids(loss.pids)),
                      text(loss.detail)});
  limit_rows(t, top);
  s.tables.push_back(std::move(t));
  return s;
}

}  // namespace gpuscope::report

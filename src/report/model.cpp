// Report model helpers shared by the builders.
#include "report/model.h"

#include "report/units.h"

namespace gpuscope::report {

Table without_machine_columns(const Table& table) {
  Table out = table;
  for (size_t c = out.columns.size(); c-- > 0;) {
    if (!out.columns[c].for_machines) continue;
    out.columns.erase(out.columns.begin() + static_cast<std::ptrdiff_t>(c));
    for (auto& row : out.rows)
      if (c < row.size()) row.erase(row.begin() + static_cast<std::ptrdiff_t>(c));
  }
  return out;
}

void limit_rows(Table& table, size_t top) {
  if (top == 0 || table.rows.size() <= top) return;
  table.omitted_rows = table.rows.size() - top;
  table.rows.resize(top);
  table.notes.push_back(plural(table.omitted_rows, "more row", "more rows") + " not shown (--top 0 shows all).");
}

void mark_not_in_source(Table& table, const Trace& trace, std::string_view what) {
  const SourceGap* gap = trace.gap(what);
  if (!gap) return;
  table.empty_text = "not in the source (" + gap->detail + ")";
  if (!table.rows.empty()) table.notes.push_back("Not in the source: " + gap->detail);
}

void mark_lines_not_in_source(Section& section, const Trace& trace,
                              const std::vector<std::pair<std::string_view, std::string_view>>& line_gaps) {
  for (Line& line : section.lines)
    for (const auto& [key, what] : line_gaps)
      if (line.key == key && trace.lacks(what)) {
        line.value = text("not in the source");
        line.note = std::string(what);
      }
}

std::shared_ptr<const TimelineView> make_timeline_view(const Trace& trace, TimeNs profiler_time_cut) {
  auto timeline = std::make_shared<TimelineView>();
  timeline->trace = &trace;
  timeline->profiler_time_cut = profiler_time_cut;
  timeline->layout = tracks::layout_tracks(trace);
  return timeline;
}

std::string plural(size_t n, const std::string& one, const std::string& many) {
  return format_count(static_cast<double>(n)) + " " + (n == 1 ? one : many);
}

}  // namespace gpuscope::report

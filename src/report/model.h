// The report model: what a report says, independent of how it is laid out.
// Analyses fill it (src/report/build_*.cpp); renderers only lay it out
// (text, markdown, JSON; HTML later). Every number is a Value that carries its
// unit, so all renderers format it through the same function (units.h) and
// the JSON renderer can emit the exact base-unit number.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "gpuscope/model.h"
#include "gpuscope/tracks.h"

namespace gpuscope::report {

enum class Unit {
  Count,           // a number of things: launches, calls, SMs
  Ns,              // duration in nanoseconds
  Bytes,           // size in bytes
  BytesPerSecond,  // bandwidth
  Percent,         // percentage points: 12.5 means 12.5 %
  Plain,           // a number without unit: ids, versions, ratios
  FlopsPerSecond,  // floating-point operations per second (roofline)
  FlopsPerByte     // arithmetic intensity: FLOPs per byte moved (roofline)
};

struct Value {
  double value = 0;
  Unit unit = Unit::Plain;
};

// A cell is empty (no value at all), text, or a number (NaN: undefined, shown as "-").
using Cell = std::variant<std::monostate, std::string, Value>;

// How a text column may be laid out.
enum class TextStyle {
  Plain,       // short words: never shortened
  Identifier,  // kernel, API and range names, command lines: markdown shows
               // them as code; the text renderer may shorten them in the middle
  Prose        // free text (details): may be shortened, not shown as code
};

struct Column {
  std::string key;           // stable machine name, used as the JSON field
  std::string title;         // header shown to people
  std::optional<Unit> unit;  // nullopt: a text column
  TextStyle style = TextStyle::Plain;
  // A number for machines and plots only (JSON, HTML): text and markdown leave the column out,
  // e.g. the bounds of a confidence interval that a text column already shows as "[-3.1%, +0.4%]".
  bool for_machines = false;
};

struct Table {
  std::string key;
  std::string title;
  std::vector<Column> columns;
  std::vector<std::vector<Cell>> rows;
  size_t omitted_rows = 0;  // rows dropped by --top; the note says so
  std::string empty_text = "none captured";
  std::vector<std::string> notes;
  std::vector<EvidenceSpan> spans;  // where the evidence lies; the HTML report zooms there
  // Data for machines and the HTML page's views only (JSON, the page's scripts): text, markdown
  // and the page's static tables leave it out, e.g. a kernel's whole SASS listing.
  bool for_machines = false;
};

// One "label: value" line, e.g. "Wall time: 228.3 ms (launcher start to exit)".
struct Line {
  std::string key;
  std::string label;
  Cell value;
  std::string note;         // short human context; may be empty
  bool identifier = false;  // a command line or name: markdown shows it as code
};

struct Section {
  std::string key;
  std::string title;
  std::vector<Line> lines;
  std::vector<Table> tables;
  std::vector<std::string> notes;
  // Shown when the section has no lines and no tables at all.
  std::string empty_text = "none captured";
};

// The run laid out for the formats that draw it (ReportFormat::draws_timeline): the trace's
// tracks and the trace they refer to, which the caller of the renderer keeps alive.
struct TimelineView {
  const Trace* trace = nullptr;
  tracks::Layout layout;
  TimeNs profiler_time_cut = 0;  // the metric collection time cut out of `trace` (the page says so)
};
std::shared_ptr<const TimelineView> make_timeline_view(const Trace& trace, TimeNs profiler_time_cut = 0);

// The steady-state steps (2..N of the launched process) that the Steps, Bottleneck and ranked
// fixes judge: where the HTML timeline opens.
struct SteadyWindow {
  uint32_t pid = 0;
  TimeNs start = 0, end = 0;
  std::string range;  // the steps' range name
  size_t steps = 0;   // the window spans steps 2..steps
};

struct Report {
  std::string title = "gpuscope report";
  std::vector<Section> sections;
  std::shared_ptr<const TimelineView> timeline;  // null unless the format draws the run
  std::optional<SteadyWindow> steady;            // none without steps
};

// ---- Helpers for the builders ----------------------------------------------

inline Cell num(double v, Unit unit) { return Value{v, unit}; }
// An undefined number (a share of zero wall time) keeps its unit as NaN:
// people read "-", JSON gets null with the unit still named.
inline Cell opt_num(const std::optional<double>& v, Unit unit) {
  return Value{v ? *v : std::numeric_limits<double>::quiet_NaN(), unit};
}
inline Cell text(std::string s) { return Cell{std::move(s)}; }

inline Column text_column(std::string key, std::string title, TextStyle style = TextStyle::Plain) {
  return Column{std::move(key), std::move(title), std::nullopt, style};
}
inline Column num_column(std::string key, std::string title, Unit unit) {
  return Column{std::move(key), std::move(title), unit, TextStyle::Plain};
}
inline Column machine_column(std::string key, std::string title, Unit unit) {
  return Column{std::move(key), std::move(title), unit, TextStyle::Plain, true};
}

// The table as people read it (text, markdown): without its for_machines columns.
Table without_machine_columns(const Table& table);

// Keeps the first `top` rows (0 = all) and records how many were dropped.
void limit_rows(Table& table, size_t top);

// An imported file whose source does not record `what` (a kGap* name): the table says "not in
// the source" and why, instead of "none captured", and a note says it even when some rows exist.
void mark_not_in_source(Table& table, const Trace& trace, std::string_view what);

// The same for lines: each (line key, kGap* name) whose data the source lacks shows "not in the
// source" with the gap's name as its note (the Run section gives the detail).
void mark_lines_not_in_source(Section& section, const Trace& trace,
                              const std::vector<std::pair<std::string_view, std::string_view>>& line_gaps);

// "1 launch" / "1,024 launches": counts in notes read as English.
std::string plural(size_t n, const std::string& one, const std::string& many);

}  // namespace gpuscope::report

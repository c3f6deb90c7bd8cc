// Public entry point for reports: a Trace in, a rendered report out.
// The CLI (`gpuscope report`, and the end of `gpuscope profile`) calls this.
// Sections, definitions and units: docs/report.md.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gpuscope/analysis_source.h"
#include "gpuscope/model.h"

namespace gpuscope {

namespace report {
struct Report;
}

// One output format of the reports: its name, what it is, and the renderer that lays out a
// report model in it. The registry (src/report/formats.cpp) is the one list of formats: the
// commands' --format choices, their --help and the parsing all come from it.
struct ReportFormat {
  std::string name;                  // "text"
  std::vector<std::string> aliases;  // other accepted names: "txt"
  std::string description;           // for --help
  // The renderer draws the run itself (the HTML timeline): report models made for it carry the
  // trace laid out as tracks (report::Report::timeline).
  bool draws_timeline = false;
  std::string (*render)(const report::Report&) = nullptr;
};

// Every format, in --help order.
const std::vector<ReportFormat>& report_formats();
// The formats' names, in order, for the CLI's choices.
std::vector<std::string> report_format_names();

struct ReportOptions {
  size_t top = 15;  // rows per table; 0 = all
  // The NVTX range (name or glob) whose instances are the steps the report leads with; empty:
  // ProfilerStep#N, else the outermost range repeating on the main thread (detect_step_range).
  std::string iteration_range;
  // Reads source lines and SASS from the capture's cubins for the Source section (PC samples);
  // null: PCs are ranked without them.
  std::shared_ptr<const analysis::SourceResolver> source;
};

// Deterministic: the same trace and options give the same bytes.
// Text fits about 120 columns (long names are shortened in the middle);
// markdown is GitHub-flavoured; JSON carries raw base-unit numbers with units.
std::string render_report(const Trace& trace, const ReportOptions& options, const ReportFormat& format);

// A format by name or alias, case-insensitive; throws gpuscope::Error naming the formats on anything else.
const ReportFormat& parse_report_format(std::string_view name);

}  // namespace gpuscope

// The report's sections, declared once and in report order (sections.cpp). A section is a row:
// its name, whether it reads the trace alone, and its builder. build_report() runs the rows that
// read the trace alone on a second thread while it computes the analyses the others share, then
// places every row's sections in table order. Adding a section is a builder and a row.
#pragma once

#include <optional>
#include <vector>

#include "report/builder.h"

namespace gpuscope::report {

// The analyses several sections share, computed once per report on the main thread.
struct SharedAnalyses {
  analysis::ExecutiveSummary summary;
  analysis::DataQuality quality;
  std::optional<analysis::StepSummary> steps;   // the run's steps, when it has a step range
  std::optional<analysis::SteadyState> steady;  // steps 2..N: what the rules judge
  analysis::RuleInputs rule_inputs;
};

struct SectionInputs {
  const Trace& trace;
  size_t top;  // rows per table; 0: all
  const analysis::ProfilerTime& cut;
  const SharedAnalyses* shared;                      // null for the rows that read the trace alone
  const analysis::SourceResolver* source = nullptr;  // ReportOptions::source (SharedAnalyses has what it read)
};

struct SectionSpec {
  const char* name;  // what the row builds, for people reading the table
  bool trace_alone;  // reads only the trace and top: built on the second thread
  std::vector<Section> (*build)(const SectionInputs& inputs);  // none, one or several sections
};

// Every section, in report order.
const std::vector<SectionSpec>& report_sections();

}  // namespace gpuscope::report

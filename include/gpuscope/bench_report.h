// `gpuscope bench` output: per-run values and across-run statistics of a bench
// capture, through the shared report model and renderers.
#pragma once

#include <string>

#include "gpuscope/analysis_runs.h"
#include "gpuscope/report.h"

namespace gpuscope {

// capture_label names the file in the output. iterations (may be null): the
// spread across iterations of `bench --iteration-range`. Deterministic.
std::string render_bench(const analysis::BenchSummary& summary, const std::string& capture_label,
                         const ReportFormat& format, const analysis::IterationBench* iterations = nullptr);

}  // namespace gpuscope

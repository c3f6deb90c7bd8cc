// Report model for `gpuscope bench`: a table of runs, and for wall time, GPU
// busy time, kernel time and each kernel the spread across runs.
#include "gpuscope/bench_report.h"

#include <fmt/format.h>

#include "report/iteration_notes.h"
#include "report/model.h"
#include "report/renderers.h"
#include "report/units.h"

namespace gpuscope {
namespace report {
namespace {

Table runs_table(const analysis::BenchSummary& s) {
  Table t;
  t.key = "runs";
  t.title = "Runs";
  t.columns = {num_column("run", "Run", Unit::Count),         num_column("wall", "Wall", Unit::Ns),
               num_column("gpu_busy", "GPU busy", Unit::Ns),  num_column("kernel_time", "Kernel time", Unit::Ns),
               num_column("kernels", "Kernels", Unit::Count), text_column("exit", "Exit")};
  for (const auto& r : s.runs)
    t.rows.push_back({num(r.run_id, Unit::Count), num(static_cast<double>(r.wall_ns), Unit::Ns),
                      num(static_cast<double>(r.gpu_busy_ns), Unit::Ns),
                      num(static_cast<double>(r.kernel_ns), Unit::Ns), num(static_cast<double>(r.kernels), Unit::Count),
                      text(r.term_signal ? fmt::format("signal {}", r.term_signal) : fmt::format("{}", r.exit_code))});
  return t;
}

// Runs or iterations: what one value of a spread row is.
struct SpreadKind {
  const char* key;
  const char* title;
  const char* count_title;  // "Runs", "Iterations"
  const char* kernel_suffix;
  const char* note;
};

const SpreadKind kAcrossRuns{"across_runs", "Across runs", "Runs", " (median per run)",
                             "95% CI: of the mean over runs (Student's t). Kernels: the median launch duration of "
                             "each run."};
const SpreadKind kAcrossIterations{
    "across_iterations", "Across iterations", "Iterations", " (per iteration)",
    "95% CI: of the mean over iterations (Student's t; iterations of one run share its clocks, so this is narrower "
    "than a run-to-run interval). Kernels: their summed time in each iteration."};

Table spread_table(const std::vector<analysis::RunMetric>& metrics, const SpreadKind& kind) {
  Table t;
  t.key = kind.key;
  t.title = kind.title;
  t.columns = {text_column("name", "Measurement", TextStyle::Identifier),
               num_column("runs", kind.count_title, Unit::Count),
               num_column("mean", "Mean", Unit::Ns),
               num_column("ci_low", "95% CI low", Unit::Ns),
               num_column("ci_high", "95% CI high", Unit::Ns),
               num_column("stddev", "StdDev", Unit::Ns),
               num_column("cv", "CV %", Unit::Percent),
               num_column("min", "Min", Unit::Ns),
               num_column("median", "Median", Unit::Ns),
               num_column("max", "Max", Unit::Ns),
               text_column("stability", "Stability")};
  bool any_unstable = false;
  for (const auto& m : metrics) {
    const auto& st = m.stats;
    t.rows.push_back(
        {text(m.per_kernel ? m.name + kind.kernel_suffix : m.name), num(static_cast<double>(st.count), Unit::Count),
         num(st.mean, Unit::Ns), num(m.mean_ci.low, Unit::Ns), num(m.mean_ci.high, Unit::Ns), num(st.stddev, Unit::Ns),
         num(st.cv_percent, Unit::Percent), num(st.min, Unit::Ns), num(st.median, Unit::Ns), num(st.max, Unit::Ns),
         text(st.count < 2 ? "one value"
              : m.unstable ? "UNSTABLE"
                           : "stable")});
    any_unstable |= m.unstable;
  }
  t.notes.push_back(kind.note);
  if (any_unstable)
    t.notes.push_back(
        fmt::format("UNSTABLE: run-to-run CV above {:g}%: changes of a few percent cannot be seen in it; "
                    "check clocks, other load on the GPU and host, and warm-up.",
                    analysis::kUnstableCvPercent));
  return t;
}

}  // namespace
}  // namespace report

std::string render_bench(const analysis::BenchSummary& summary, const std::string& capture_label,
                         const ReportFormat& format, const analysis::IterationBench* iterations) {
  using namespace report;
  Report r;
  r.title = "gpuscope bench";
  Section s;
  s.key = "bench";
  s.title = "Bench";
  s.empty_text = "no bench runs in this capture";
  s.lines.push_back({"capture", "Capture", text(capture_label), "", true});
  s.lines.push_back({"runs", "Runs", num(static_cast<double>(summary.runs.size()), Unit::Count), "", false});
  if (!summary.runs.empty()) {
    s.tables.push_back(runs_table(summary));
    s.tables.push_back(spread_table(summary.metrics, kAcrossRuns));
  }
  if (iterations) {
    const auto& it = iterations->summary;
    s.lines.push_back({"iterations", "Iterations",
                       text(fmt::format("NVTX range '{}': {} ({} found, {} warm-up skipped) in {} process{}", it.range,
                                        it.kept, it.found, it.skipped, it.processes, it.processes == 1 ? "" : "es")),
                       "", false});
    Table t = spread_table(iterations->metrics, kAcrossIterations);
    t.notes.push_back(kIterationAttributionNote);
    for (std::string& note : iteration_notes(it, "")) t.notes.push_back(std::move(note));
    s.tables.push_back(std::move(t));
  }
  r.sections.push_back(std::move(s));
  return render_as(r, format);
}

}  // namespace gpuscope

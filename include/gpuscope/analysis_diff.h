// Baseline vs new: match the items of two captures and compare each one with
// the two-sample statistics of analysis_compare.h. Pure and deterministic.
//
// Matching (docs/diff.md):
//   kernels  by demangled name; when a name runs with more than one launch
//            configuration (grid, block, dynamic shared memory) in either file,
//            by name and configuration;
//   memory   copies by direction and power-of-two size class ("HtoD [16 MiB,
//            32 MiB)"); when a direction has more than one host memory kind
//            (pageable, pinned) in either file, also by kind, else a pageable ->
//            pinned fix stays one item; memsets by size class;
//   API      by function name and domain (runtime, driver); a call that issued
//            a copy or memset also by that operation's direction and size class;
//   NVTX     by domain and range name, on each instance's duration; and again (NvtxGpu) on the
//            GPU time launched inside it (union of its GPU intervals, analysis_nvtx_gpu.h);
//   ops      framework ops (analysis_host_ops.h) by name, on each instance's self GPU time (the
//            work it launched itself); module ranges left out. Not with iterations (ops are not
//            placed in iterations): then there are no op items;
//   totals   wall, GPU busy, kernel, API and copy time: one number per file, so
//            their verdict is always "too few samples" (change shown, no claim).
// Per item the sample is the per-instance duration in ns; when both files are
// benches (`gpuscope bench`, >= 2 runs each), it is one value per run instead:
// the median of the item's instances in that run, and each total per run.
// With an iteration range (--iteration-range, analysis_iterations.h) it is one
// value per iteration: the item's summed time in that iteration (0 where it did
// not occur), and the totals are the iteration's duration and its summed
// kernel, API and memory time; records outside every iteration are left out.
//
// Kernel metrics (when both files have them): per kernel group, as kernels are
// matched, and per metric, the values of its launches (one median per run when
// both files are benches), compared with the same statistics. A metric is not
// better when lower or higher, so its verdicts read "higher" / "lower".
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "gpuscope/analysis_compare.h"
#include "gpuscope/analysis_iterations.h"
#include "gpuscope/analysis_ranks.h"
#include "gpuscope/analysis_source.h"
#include "gpuscope/model.h"

namespace gpuscope::analysis {

enum class DiffCategory { Total, Kernel, Memory, Api, Nvtx, NvtxGpu, Op };
const char* to_string(DiffCategory category);

struct DiffItem {
  DiffCategory category = DiffCategory::Kernel;
  std::string name;    // kernel / API / NVTX name, memory direction, total's name
  std::string detail;  // launch configuration, host memory kind, API or NVTX domain; may be empty
  Comparison cmp;      // over per-instance durations (ns)
  double base_total_ns = 0, new_total_ns = 0;
  // Memory items only: bytes moved and aggregate bandwidth (bytes / summed time).
  uint64_t base_bytes = 0, new_bytes = 0;
  std::optional<double> base_bandwidth_bps, new_bandwidth_bps;
};

// One hardware metric of one kernel group (diff_metrics.cpp).
struct MetricDiffItem {
  std::string kernel;  // as DiffItem::name of the kernel
  std::string detail;  // as DiffItem::detail: launch configuration when the name is split
  std::string metric;  // full Perfworks name, e.g. "dram__bytes_read.sum"
  // Over the per-launch values (per-run medians when by_runs), in the metric's own unit.
  // Slower / Faster mean significantly higher / lower (metric_verdict). With a base
  // median of 0 the change is NaN and the verdict rests on the rank test alone.
  Comparison cmp;
};

// One GPU-wide sampled metric (`--gpu-metrics`) of the whole run (diff_utilization.cpp).
struct UtilizationDiffItem {
  std::string metric;  // e.g. "gpm__sm_active.pct"
  // Over one value per run: the run's mean of the metric over all its samples, weighted by
  // their windows (all GPUs and processes of the run together). A single capture is one run,
  // so comparing two of them is TooFew: benches (`bench --gpu-metrics`) give the test.
  Comparison cmp;
};

// Two multi-rank captures side by side (diff_ranks.cpp): each rank's GPU time, compute,
// communication, hidden communication and waits, matched by rank_number (the rank; by position
// in pid order when either capture lacks the ranks), and the straggler of each. One number per
// capture and rank: shown with its change, never judged.
struct RankDiffRow {
  int32_t number = -1;
  std::optional<RankSummary> base, next;  // nullopt: no such rank in that capture
};
struct RanksDiff {
  bool by_pid_order = false;
  std::vector<RankDiffRow> ranks;  // by number
  JobTotals base_job, new_job;
  std::optional<Straggler> base_straggler, new_straggler;
  double base_late_per_step_ns = 0, new_late_per_step_ns = 0;  // straggler_late_per_step_ns
};
// nullopt unless both captures have two or more GPU processes (analyze_ranks).
std::optional<RanksDiff> diff_ranks(const std::optional<RanksAnalysis>& base, const std::optional<RanksAnalysis>& next);

// "higher", "lower", or the verdict's own text for the others.
const char* metric_verdict(Verdict verdict);

struct DiffResult {
  CompareOptions options;
  // Both files are benches (>= 2 runs each): every item's sample is one value
  // per run (the median of its instances in that run), totals included.
  bool by_runs = false;
  size_t base_runs = 0, new_runs = 0;
  // An iteration range was given: every item's sample is one value per
  // iteration (of all runs, for benches), totals included.
  bool by_iterations = false;
  IterationSummary base_iterations, new_iterations;
  // Totals are judged (not shown as one number per file) by runs and by iterations.
  bool totals_judged() const { return by_runs || by_iterations; }
  std::vector<DiffItem> items;  // by category, then by larger total time descending, then name
  // Kernel metrics, only when both files have them: kernels by larger kernel time
  // descending, then name and configuration; metrics in metric-set order, others by name.
  // Per launch, or per run when both files are benches, whether or not iterations are compared
  // (a metric value such as a percentage does not add up over an iteration).
  std::vector<MetricDiffItem> metrics;
  bool base_has_metrics = false, new_has_metrics = false;
  // GPU utilization, only when both files have GPU-wide samples, in report order.
  std::vector<UtilizationDiffItem> utilization;
  bool base_has_samples = false, new_has_samples = false;
  // Source lines, only when both captures have PC samples (`profile --source`): filled by the
  // caller, which holds the SourceResolver (diff_source_lines).
  std::vector<SourceLineDiff> source_lines;
  bool base_has_pc_samples = false, new_has_pc_samples = false;
  // Ranks, only when both captures have several GPU processes.
  std::optional<RanksDiff> ranks;
  // Which CUDA API traces each file recorded (api_traces()): when they differ, API rows of calls
  // that only one trace records compare nothing.
  std::set<std::string> base_api_traces, new_api_traces;
};

// Iteration specs with an empty range: compare instances (or whole runs).
// Otherwise compare iterations (each spec's label names its file in errors);
// throws gpuscope::Error when either file lacks the range or has fewer than
// options.min_samples iterations after skipping (find_iterations).
DiffResult diff_traces(const Trace& base, const Trace& next, const CompareOptions& options,
                       const IterationSpec& base_iterations = {}, const IterationSpec& new_iterations = {});

// Items judged slower whose change exceeds limit_percent: what --fail-if-slower
// and the baseline rules of `gpuscope check` fail on.
std::vector<const DiffItem*> regressions_over(const DiffResult& diff, double limit_percent);

}  // namespace gpuscope::analysis

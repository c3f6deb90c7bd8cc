// Report model for `gpuscope diff`: a summary section (files, rules, counts of
// verdicts, the regressions) and one table per category. Renderers lay it out.
#include "gpuscope/diff_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <algorithm>
#include <cmath>
#include <map>

#include "gpuscope/analysis_stats.h"
#include "gpuscope/metric_sets.h"
#include "report/builder.h"
#include "report/iteration_notes.h"
#include "report/metric_units.h"
#include "report/model.h"
#include "report/renderers.h"
#include "report/units.h"

namespace gpuscope {
namespace report {
namespace {

using analysis::DiffCategory;
using analysis::DiffItem;
using analysis::Verdict;

std::string signed_percent(double v) { return (v > 0 ? "+" : "") + format_percent(v); }

// "[-3.1%, +0.4%]"; "-" when not computed.
std::string ci_text(const analysis::ChangeInterval& ci) {
  if (std::isnan(ci.low) || std::isnan(ci.high)) return "-";
  return "[" + signed_percent(ci.low) + ", " + signed_percent(ci.high) + "]";
}

// Three significant digits, and "<0.001" below that: a p-value is a rough
// probability, more digits would only suggest precision it does not have.
std::string p_text(double p) {
  if (std::isnan(p)) return "-";
  if (p < 0.001) return "<0.001";
  return fmt::format("{:.3f}", p);
}

Cell bound(double percent) {
  return opt_num(std::isnan(percent) ? std::nullopt : std::optional(percent), Unit::Percent);
}

Cell ns_or_blank(const DiffItem& item, bool base) {
  const size_t n = base ? item.cmp.base_count : item.cmp.new_count;
  return n == 0 ? Cell{} : num(base ? item.cmp.base_median : item.cmp.new_median, Unit::Ns);
}

struct CategoryInfo {
  const char* key;
  const char* title;
  const char* name_title;
  const char* detail_title;
};

CategoryInfo info_of(DiffCategory c) {
  switch (c) {
    case DiffCategory::Total: return {"totals", "Totals", "Total", "Detail"};
    case DiffCategory::Kernel: return {"kernels", "Kernels", "Kernel", "Launch configuration"};
    case DiffCategory::Memory: return {"memory", "Memory operations", "Operation", "Host memory"};
    case DiffCategory::Api: return {"api", "CUDA API", "Function", "Domain"};
    case DiffCategory::Nvtx: return {"nvtx", "NVTX ranges", "Range", "Domain"};
    case DiffCategory::NvtxGpu: return {"nvtx_gpu", "NVTX ranges, GPU time launched inside", "Range", "Domain"};
    case DiffCategory::Op: return {"ops", "Ops, self GPU time", "Op", "Detail"};
  }
  return {"?", "?", "?", "?"};
}

// Totals are single numbers per file: base, new, change; no statistics.
Table totals_table(const std::vector<const DiffItem*>& items) {
  Table t;
  t.key = "totals";
  t.title = "Totals per file";
  t.columns = {text_column("name", "Total"), num_column("base", "Base", Unit::Ns), num_column("new", "New", Unit::Ns),
               num_column("change", "Change", Unit::Percent), text_column("verdict", "Verdict")};
  for (const DiffItem* i : items)
    t.rows.push_back({text(i->name), num(i->base_total_ns, Unit::Ns), num(i->new_total_ns, Unit::Ns),
                      opt_num(std::isnan(i->cmp.change_percent) ? std::nullopt : std::optional(i->cmp.change_percent),
                              Unit::Percent),
                      text("one value per file: not judged")});
  return t;
}

// What one sample value is, for table titles.
const char* sample_text(const analysis::DiffResult& diff) {
  if (diff.by_iterations) return ": time per iteration";
  return diff.by_runs ? ": median per run" : ": duration per instance";
}

Table items_table(DiffCategory category, const std::vector<const DiffItem*>& items, const analysis::DiffResult& diff) {
  const CategoryInfo ci = info_of(category);
  Table t;
  t.key = ci.key;
  t.title = std::string(ci.title) + sample_text(diff);
  t.empty_text = "none in either capture";
  // Memory and total rows are short labels ("HtoD [16 MiB, 32 MiB)"): never shortened.
  const bool label = category == DiffCategory::Memory || category == DiffCategory::Total;
  const TextStyle name_style = label ? TextStyle::Plain : TextStyle::Identifier;
  t.columns = {text_column("name", ci.name_title, name_style), text_column("detail", ci.detail_title),
               num_column("base_count", "Base n", Unit::Count), num_column("new_count", "New n", Unit::Count),
               num_column("base_median", "Base median", Unit::Ns), num_column("new_median", "New median", Unit::Ns),
               num_column("change", "Change", Unit::Percent), text_column("ci95", "95% CI"),
               text_column("p_value", "p"), num_column("cliffs_delta", "Cliff's d", Unit::Plain),
               text_column("verdict", "Verdict"),
               // The interval's bounds as numbers, for JSON and the HTML forest plot.
               machine_column("ci_low", "95% CI low", Unit::Percent),
               machine_column("ci_high", "95% CI high", Unit::Percent)};
  const bool memory = category == DiffCategory::Memory;
  if (memory) {
    t.columns.push_back(num_column("base_bandwidth", "Base BW", Unit::BytesPerSecond));
    t.columns.push_back(num_column("new_bandwidth", "New BW", Unit::BytesPerSecond));
  }
  bool bytes_differ = false;
  for (const DiffItem* i : items) {
    const auto& c = i->cmp;
    const bool both = c.base_count > 0 && c.new_count > 0;
    const bool judged = both && c.verdict != Verdict::TooFew;
    std::vector<Cell> row = {
        text(i->name),
        text(i->detail),
        num(static_cast<double>(c.base_count), Unit::Count),
        num(static_cast<double>(c.new_count), Unit::Count),
        ns_or_blank(*i, true),
        ns_or_blank(*i, false),
        both ? opt_num(std::isnan(c.change_percent) ? std::nullopt : std::optional(c.change_percent), Unit::Percent)
             : Cell{},
        text(ci_text(c.ci)),
        text(p_text(c.test.p_value)),
        judged ? num(c.cliffs_delta, Unit::Plain) : Cell{},
        text(to_string(c.verdict)),
        both ? bound(c.ci.low) : Cell{},
        both ? bound(c.ci.high) : Cell{}};
    if (memory) {
      row.push_back(opt_num(i->base_bandwidth_bps, Unit::BytesPerSecond));
      row.push_back(opt_num(i->new_bandwidth_bps, Unit::BytesPerSecond));
      bytes_differ |= both && i->base_bytes != i->new_bytes;
    }
    t.rows.push_back(std::move(row));
  }
  // A detail column with nothing in it only takes width from the names.
  const bool any_detail = std::any_of(items.begin(), items.end(), [](const DiffItem* i) { return !i->detail.empty(); });
  if (!any_detail) {
    t.columns.erase(t.columns.begin() + 1);
    for (auto& row : t.rows) row.erase(row.begin() + 1);
  }
  if (memory) t.notes.push_back("Compared: duration per operation. BW: bytes moved / summed time, per file.");
  if (bytes_differ)
    t.notes.push_back("Bytes moved differ between the files for some rows: durations compare different work.");
  return t;
}

// "Base iterations: 4 (1 warm-up skipped, in 1 process)".
Line iterations_line(const char* key, const char* label, const analysis::IterationSummary& s) {
  return {key, label, num(static_cast<double>(s.kept), Unit::Count),
          fmt::format("{} warm-up skipped, in {} process{}", s.skipped, s.processes, s.processes == 1 ? "" : "es"),
          false};
}

void add_iteration_notes(const analysis::DiffResult& diff, Section& s) {
  s.notes.push_back(kIterationAttributionNote);
  for (const auto& [who, summary] : {std::pair{"base", &diff.base_iterations}, std::pair{"new", &diff.new_iterations}})
    for (std::string& note : report::iteration_notes(*summary, who)) s.notes.push_back(std::move(note));
}

Section summary_section(const analysis::DiffResult& diff, const DiffReportInfo& info) {
  Section s;
  s.key = "comparison";
  s.title = "Comparison";
  s.lines.push_back({"base", "Base", text(info.base_label), "", true});
  s.lines.push_back({"new", "New", text(info.new_label), "", true});
  s.lines.push_back({"compared", "Compared",
                     text(diff.by_iterations ? std::string("iterations: per item, its summed time in each iteration")
                          : diff.by_runs ? fmt::format("whole runs: {} base runs vs {} new runs (per item, the median "
                                                       "of each run)",
                                                       diff.base_runs, diff.new_runs)
                                         : std::string("instances within one run of each file")),
                     "", false});
  if (diff.by_iterations) {
    s.lines.push_back({"iteration_range", "Iteration range", text(diff.base_iterations.range), "NVTX", true});
    s.lines.push_back(iterations_line("base_iterations", "Base iterations", diff.base_iterations));
    s.lines.push_back(iterations_line("new_iterations", "New iterations", diff.new_iterations));
  }
  std::map<Verdict, size_t> counts;
  for (const DiffItem& i : diff.items)
    if (i.category != DiffCategory::Total || diff.totals_judged()) ++counts[i.cmp.verdict];
  for (Verdict v :
       {Verdict::Faster, Verdict::Slower, Verdict::NoChange, Verdict::TooFew, Verdict::OnlyBase, Verdict::OnlyNew}) {
    std::string label = to_string(v);
    label[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(label[0])));
    s.lines.push_back(
        {std::string("verdict_") + to_string(v), label, num(static_cast<double>(counts[v]), Unit::Count), "", false});
  }
  const auto& o = diff.options;
  s.notes.push_back(fmt::format(
      "Significant: Mann-Whitney p < {:g} on the {}, the {:g}% bootstrap CI of the change of medians excludes 0, "
      "and |change| >= {:g}%. Fewer than {} {} on a side: too few samples.",
      o.alpha,
      diff.by_iterations ? "per-iteration values"
      : diff.by_runs     ? "per-run values"
                         : "per-instance durations",
      o.ci_level * 100, o.min_change_percent, o.min_samples,
      diff.by_iterations ? "iterations"
      : diff.by_runs     ? "runs"
                         : "instances"));
  if (diff.by_iterations) add_iteration_notes(diff, s);
  if (diff.base_api_traces != diff.new_api_traces && !diff.base_api_traces.empty() && !diff.new_api_traces.empty())
    s.notes.push_back(fmt::format(
        "The files recorded different CUDA API traces (base: {}, new: {}): CUDA API rows of functions that only "
        "one of them records (the core trace leaves out cudaGetDevice, cudaGetLastError, ...) compare the "
        "capture, not the program.",
        fmt::join(diff.base_api_traces, ", "), fmt::join(diff.new_api_traces, ", ")));
  if (info.fail_if_slower_percent) {
    const auto regressions = analysis::regressions_over(diff, *info.fail_if_slower_percent);
    std::string line = fmt::format("Gate --fail-if-slower {:g}%: ", *info.fail_if_slower_percent);
    if (regressions.empty()) line += "passed.";
    for (size_t k = 0; k < regressions.size(); ++k)
      line += (k ? "; " : "FAILED: ") + std::string(to_string(regressions[k]->category)) + " " + regressions[k]->name +
              (regressions[k]->detail.empty() ? "" : " [" + regressions[k]->detail + "]") + " " +
              signed_percent(regressions[k]->cmp.change_percent);
    s.notes.push_back(line);
  }
  return s;
}

// Rows of the first `top` kernels (0 = all): a kernel's metrics stay together.
void limit_kernels(Table& t, const std::vector<analysis::MetricDiffItem>& items, size_t top) {
  if (top == 0) return;
  size_t kernels = 0, kept = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    const bool first = i == 0 || items[i].kernel != items[i - 1].kernel || items[i].detail != items[i - 1].detail;
    if (first && ++kernels > top) break;
    ++kept;
  }
  t.omitted_rows = t.rows.size() - kept;
  t.rows.resize(kept);
}

// The columns of one compared metric (kernel metrics, GPU utilization): its label, the two
// sides' counts and medians, the statistics, the verdict, and last its full name (the text
// renderer shortens the last column to fit; JSON and markdown keep it whole).
void append_metric_columns(Table& t, const char* count_title, const char* median_title) {
  t.columns.push_back(text_column("label", "Metric"));
  t.columns.push_back(num_column("base_count", fmt::format("Base {}", count_title), Unit::Count));
  t.columns.push_back(num_column("new_count", fmt::format("New {}", count_title), Unit::Count));
  t.columns.push_back(num_column("base_median", fmt::format("Base {}", median_title), Unit::Plain));
  t.columns.push_back(num_column("new_median", fmt::format("New {}", median_title), Unit::Plain));
  t.columns.push_back(num_column("change", "Change", Unit::Percent));
  t.columns.push_back(text_column("ci95", "95% CI"));
  t.columns.push_back(text_column("p_value", "p"));
  t.columns.push_back(text_column("verdict", "Verdict"));
  t.columns.push_back(text_column("metric", "Metric name", TextStyle::Identifier));
}

void append_metric_cells(std::vector<Cell>& row, const std::string& metric, const analysis::Comparison& c) {
  const MetricInfo* info = find_metric(metric);
  const Unit unit = metric_unit(metric);
  const bool both = c.base_count > 0 && c.new_count > 0;
  const std::optional<double> change = std::isnan(c.change_percent) ? std::nullopt : std::optional(c.change_percent);
  row.insert(row.end(),
             {text(info ? info->label : metric), num(static_cast<double>(c.base_count), Unit::Count),
              num(static_cast<double>(c.new_count), Unit::Count), c.base_count ? num(c.base_median, unit) : Cell{},
              c.new_count ? num(c.new_median, unit) : Cell{}, both ? opt_num(change, Unit::Percent) : Cell{},
              text(ci_text(c.ci)), text(p_text(c.test.p_value)), text(analysis::metric_verdict(c.verdict)),
              text(metric)});
}

// "Kernel metrics": per kernel group and metric, the medians and the same statistics as durations.
Section metrics_section(const analysis::DiffResult& diff, size_t top) {
  Section s;
  s.key = "kernel_metrics";
  s.title = "Kernel metrics";
  Table t;
  t.key = "kernel_metrics";
  t.title = diff.by_runs ? "Kernel metrics: median per run" : "Kernel metrics: value per launch";
  t.columns = {text_column("kernel", "Kernel", TextStyle::Identifier), text_column("detail", "Launch configuration")};
  append_metric_columns(t, "n", "median");
  for (const analysis::MetricDiffItem& m : diff.metrics) {
    t.rows.push_back({text(m.kernel), text(m.detail)});
    append_metric_cells(t.rows.back(), m.metric, m.cmp);
  }
  if (std::none_of(diff.metrics.begin(), diff.metrics.end(), [](const auto& m) { return !m.detail.empty(); })) {
    t.columns.erase(t.columns.begin() + 1);
    for (auto& row : t.rows) row.erase(row.begin() + 1);
  }
  limit_kernels(t, diff.metrics, top);
  t.notes.push_back(
      "Higher / lower: significant by the same rule as durations (Comparison); neither is better in itself (more DRAM "
      "bytes is worse, "
      "more SM throughput for the same work is better). With a base median of 0 the change is undefined and "
      "the rank test alone decides.");
  t.notes.push_back("Metric values whose kernel record is missing are left out (data loss 'metrics_unmatched').");
  s.tables.push_back(std::move(t));
  return s;
}

// "GPU utilization": each GPU-wide sampled metric, one value per run (its window-weighted mean).
Section utilization_section(const analysis::DiffResult& diff) {
  Section s;
  s.key = "gpu_utilization";
  s.title = "GPU utilization";
  Table t;
  t.key = "gpu_utilization";
  t.title = "GPU-wide samples: mean per run";
  append_metric_columns(t, "runs", "mean");
  for (const analysis::UtilizationDiffItem& u : diff.utilization) {
    t.rows.emplace_back();
    append_metric_cells(t.rows.back(), u.metric, u.cmp);
  }
  t.notes.push_back(
      "Each run's value is the mean of its samples weighted by their windows (all GPUs of the run); "
      "with several runs the columns show the median of those means. A single capture is one run: "
      "two of them give the means without a test ('too few'); benches (gpuscope bench "
      "--gpu-metrics) give one value per run and the test.");
  s.tables.push_back(std::move(t));
  return s;
}

// "Ranks": two multi-rank captures side by side, rank by rank and for the job (analysis_diff.h,
// RanksDiff). One number per capture: base, new and the change, never a verdict.
std::string change_text(double base, double next, bool points) {
  if (points) return fmt::format("{:+.1f} pt", next - base);
  if (base == next) return "0";
  if (base == 0) return "new";
  return signed_percent(100.0 * (next - base) / base);
}

void add_rank_rows(Table& t, const std::string& who, const std::optional<analysis::RankSummary>& b,
                   const std::optional<analysis::RankSummary>& n) {
  using analysis::RankSummary;
  const auto ns_row = [&](const char* measure, TimeNs RankSummary::*field) {
    const std::optional<double> bv = b ? std::optional(static_cast<double>((*b).*field)) : std::nullopt;
    const std::optional<double> nv = n ? std::optional(static_cast<double>((*n).*field)) : std::nullopt;
    t.rows.push_back({text(who), text(measure), opt_num(bv, Unit::Ns), opt_num(nv, Unit::Ns),
                      text(bv && nv ? change_text(*bv, *nv, false)
                           : b      ? "only in base"
                                    : "only in new")});
  };
  ns_row("GPU busy", &RankSummary::gpu_busy_ns);
  ns_row("Compute", &RankSummary::compute_ns);
  ns_row("Comm", &RankSummary::comm_ns);
  const auto hidden = [](const std::optional<RankSummary>& r) -> std::optional<double> {
    if (!r) return std::nullopt;
    return analysis::share_percent(static_cast<double>(r->overlap_ns), static_cast<double>(r->comm_ns));
  };
  const std::optional<double> bh = hidden(b), nh = hidden(n);
  t.rows.push_back({text(who), text("Comm hidden %"), opt_num(bh, Unit::Percent), opt_num(nh, Unit::Percent),
                    text(bh && nh ? change_text(*bh, *nh, true) : "-")});
  ns_row("Waited", &RankSummary::waited_ns);
}

std::string straggler_text(const std::optional<analysis::Straggler>& s, double late_per_step_ns) {
  if (!s) return "none";
  std::string who = s->rank >= 0 ? fmt::format("rank {} (pid {})", s->rank, s->pid) : fmt::format("pid {}", s->pid);
  return who +
         fmt::format(", {} late {}", format_duration(late_per_step_ns),
                     s->steps > 0 ? "per " + s->step_range : std::string("over the run")) +
         (s->cause ? "; " + std::string(to_string(s->cause->kind)) : std::string());
}

// Every rank is listed (no --top): the rows are few, and a rank left out could hide the straggler.
Section ranks_section(const analysis::RanksDiff& d) {
  Section s;
  s.key = "ranks";
  s.title = "Ranks";
  s.lines.push_back(
      {"straggler_base", "Straggler, base", text(straggler_text(d.base_straggler, d.base_late_per_step_ns)), ""});
  s.lines.push_back(
      {"straggler_new", "Straggler, new", text(straggler_text(d.new_straggler, d.new_late_per_step_ns)), ""});
  Table t;
  t.key = "ranks";
  t.title = "Per rank and for the job: one number per capture";
  t.columns = {text_column("rank", "Rank"), text_column("measure", "Measure"), num_column("base", "Base", Unit::Ns),
               num_column("new", "New", Unit::Ns), text_column("change", "Change")};
  for (const analysis::RankDiffRow& r : d.ranks) {
    std::string who = fmt::format("rank {}", r.number);
    if (d.by_pid_order)
      who = fmt::format("#{} (pid {} / {})", r.number, r.base ? std::to_string(r.base->pid) : "-",
                        r.next ? std::to_string(r.next->pid) : "-");
    add_rank_rows(t, who, r.base, r.next);
  }
  analysis::RankSummary bj, nj;  // the job as one row set
  bj.gpu_busy_ns = d.base_job.gpu_busy_ns, bj.compute_ns = d.base_job.compute_ns, bj.comm_ns = d.base_job.comm_ns;
  bj.overlap_ns = d.base_job.overlap_ns, bj.waited_ns = d.base_job.waited_ns;
  nj.gpu_busy_ns = d.new_job.gpu_busy_ns, nj.compute_ns = d.new_job.compute_ns, nj.comm_ns = d.new_job.comm_ns;
  nj.overlap_ns = d.new_job.overlap_ns, nj.waited_ns = d.new_job.waited_ns;
  add_rank_rows(t, "job", bj, nj);
  const auto job_row = [&](const char* measure, double b, double n) {
    t.rows.push_back({text("job"), text(measure), num(b, Unit::Ns), num(n, Unit::Ns), text(change_text(b, n, false))});
  };
  job_row("Max waited", static_cast<double>(d.base_job.max_waited_ns), static_cast<double>(d.new_job.max_waited_ns));
  job_row("Straggler late per step", d.base_late_per_step_ns, d.new_late_per_step_ns);
  t.notes.push_back(d.by_pid_order ? "Ranks matched by position in pid order (a capture does not record the ranks)."
                                   : "Ranks matched by rank.");
  t.notes.push_back(
      "job: every rank's time summed; Comm hidden %: communication during which compute ran too; "
      "Waited: time its collectives waited for a later rank. One number per capture: not judged.");
  s.tables.push_back(std::move(t));
  return s;
}

// One file with kernel metrics or GPU samples and one without: say why there is no section.
void add_metrics_note(const analysis::DiffResult& diff, Section& s) {
  if (diff.base_has_metrics != diff.new_has_metrics)
    s.notes.push_back(
        fmt::format("Kernel metrics are only in the {} capture: not compared (capture both with "
                    "'gpuscope profile --metrics ...').",
                    diff.base_has_metrics ? "base" : "new"));
  if (diff.base_has_pc_samples != diff.new_has_pc_samples)
    s.notes.push_back(
        fmt::format("PC samples are only in the {} capture: source lines not compared (capture both with "
                    "'gpuscope profile --source').",
                    diff.base_has_pc_samples ? "base" : "new"));
  if (diff.base_has_samples != diff.new_has_samples)
    s.notes.push_back(
        fmt::format("GPU-wide samples are only in the {} capture: not compared (capture both with "
                    "--gpu-metrics).",
                    diff.base_has_samples ? "base" : "new"));
}

}  // namespace
}  // namespace report

std::string render_diff(const analysis::DiffResult& diff, const DiffReportInfo& info, const ReportFormat& format) {
  using namespace report;
  Report r;
  r.title = "gpuscope diff";
  r.sections.push_back(summary_section(diff, info));
  add_metrics_note(diff, r.sections.back());
  for (DiffCategory c : {DiffCategory::Total, DiffCategory::Kernel, DiffCategory::Op, DiffCategory::Memory,
                         DiffCategory::Api, DiffCategory::Nvtx, DiffCategory::NvtxGpu}) {
    std::vector<const analysis::DiffItem*> items;
    for (const auto& i : diff.items)
      if (i.category == c) items.push_back(&i);
    // Ops and NVTX GPU time exist only for traces with ops or ranges: no empty section otherwise.
    if (items.empty() && (c == DiffCategory::Op || c == DiffCategory::NvtxGpu)) continue;
    Section s;
    s.key = info_of(c).key;
    s.title = info_of(c).title;
    s.empty_text = "none in either capture";
    if (!items.empty()) {
      // Totals of single captures are one number per file: a plain table, no statistics.
      s.tables.push_back(c == DiffCategory::Total && !diff.totals_judged() ? totals_table(items)
                                                                           : items_table(c, items, diff));
      limit_rows(s.tables.back(), info.top);
    }
    r.sections.push_back(std::move(s));
  }
  if (!diff.metrics.empty()) r.sections.push_back(metrics_section(diff, info.top));
  if (!diff.utilization.empty()) r.sections.push_back(utilization_section(diff));
  if (diff.base_has_pc_samples && diff.new_has_pc_samples)
    r.sections.push_back(build_source_diff_section(diff.source_lines, info.top));
  if (diff.ranks) r.sections.push_back(ranks_section(*diff.ranks));
  return render_as(r, format);
}

}  // namespace gpuscope

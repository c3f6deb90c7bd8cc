// gpuscope's command line: the one place that reads flags and environment
// variables. Errors from any command become one line on stderr and exit code 2.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>
#include <iostream>

#include "cli/commands.h"
#include "cli/compare_commands.h"
#include "common/error.h"
#include "common/names.h"
#include "gpuscope/export.h"
#include "gpuscope/report.h"

namespace {

using namespace gpuscope::cli;

// --format for every command that renders a report model; the choices are the format registry's.
void add_format_flag(CLI::App& command, std::string& format, const std::string& what) {
  command.add_option("--format", format, what + ": " + gpuscope::or_list(gpuscope::report_format_names()))
      ->check(CLI::IsMember(gpuscope::report_format_names(), CLI::ignore_case));
}

void add_report_flags(CLI::App& command, ReportSettings& settings) {
  add_format_flag(command, settings.format, "Report format");
  command.add_option("--top", settings.top, "Rows per table (0 = all)");
}

void add_stats_flags(CLI::App& command, StatsSettings& settings) {
  command.add_option("--alpha", settings.alpha, "Significance level of the rank test (default 0.05)")
      ->check(CLI::Range(1e-9, 0.5));
  command.add_option("--min-change", settings.min_change_percent,
                     "Changes of the median smaller than PCT % are 'no change' (default 2)")
      ->check(CLI::Range(0.0, 1000.0));
}

void add_iteration_flags(CLI::App& command, IterationSettings& settings, const std::string& what) {
  auto* range = command.add_option(
      "--iteration-range", settings.range,
      "Each instance of this NVTX range (name or glob, e.g. 'ProfilerStep#*') is one iteration: " + what +
          " (docs/diff.md, Iterations)");
  command.add_option("--skip-iterations", settings.skip, "Leave out the first K iterations of each process (warm-up; default 0)")
      ->needs(range);
}

// What every command that reads a capture accepts (docs/import.md).
const char* const kInputHelp =
    "A .gpuscope capture, or another profiler's file: an nsys SQLite export, a torch.profiler "
    "(Kineto) JSON trace (.json or .json.gz) or an ncu CSV; read in memory, nothing is written";

void add_metrics_from_flag(CLI::App& command, std::vector<std::string>& files) {
  command.add_option("--metrics-from", files,
                     "Attach per-kernel metrics from this ncu CSV (--csv --page raw or details) to the "
                     "capture's kernels, matched by kernel name and launch order (repeatable)");
}

std::string env_or_empty(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

// `gpuscope profile [opts] -- CMD ARGS`: the words after the first "--" that
// follows "profile" are the program's, verbatim, whatever they look like.
std::vector<std::string> split_program_args(std::vector<std::string>& args) {
  auto profile = std::find_if(args.begin(), args.end(),
                              [](const std::string& a) { return a == "profile" || a == "bench"; });
  if (profile == args.end()) return {};
  auto separator = std::find(profile, args.end(), "--");
  if (separator == args.end()) return {};
  std::vector<std::string> program(separator + 1, args.end());
  args.erase(separator, args.end());
  return program;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "gpuscope: capture a CUDA program's timeline into one SQLite file and explain it.\n"
      "Everything but `profile` runs on any machine, with or without a GPU."};
  app.name("gpuscope");  // parse() gets a vector without argv[0], so name the usage line
  app.set_version_flag("--version", "gpuscope " GPUSCOPE_VERSION);
  app.require_subcommand(1);

  ProfileOptions profile;
  auto* profile_cmd = app.add_subcommand(
      "profile",
      "Run a program under capture: gpuscope profile [options] -- CMD ARGS.\n"
      "Writes NAME.gpuscope, prints the report on stderr, exits with the program's status.");
  profile_cmd->add_option("-o,--output", profile.output,
                          "Capture name (NAME or NAME.gpuscope); default: the program's name");
  profile_cmd->add_flag("-f,--force", profile.force, "Overwrite an existing capture");
  profile_cmd->add_flag("--driver-api", profile.driver_api,
                        "Also trace every CUDA driver API call (without it, only the driver's launch functions)");
  profile_cmd->add_flag("--no-driver-launches", [&](int64_t) { profile.driver_launches = false; },
                        "Do not trace the driver API's launch functions (library kernels then have no launch call; "
                        "docs/capture.md)");
  profile_cmd->add_flag("--no-nccl-calls", [&](int64_t) { profile.nccl_calls = false; },
                        "Do not record NCCL's calls (the sizes behind the collectives' bandwidth; docs/capture.md)");
  profile_cmd->add_option("--flush-ms", profile.flush_ms,
                          "How often captured records reach the disk, in ms (default 500)");
  profile_cmd->add_option("--sync-flush-ms", profile.sync_flush_ms,
                          "Hand CUPTI's finished records over when a synchronization returns, at most every N "
                          "ms (default 10; 0: at every one), so a GPU fault keeps the times of what ran before it");
  profile_cmd->add_flag("--no-report", [&](int64_t) { profile.print_report = false; },
                        "Do not print the report when done");
  profile_cmd->add_option("--metrics", profile.metric_sets,
                          "Per-kernel hardware metrics (kernel replay): sets sol, memory, compute, occupancy, "
                          "stalls, roofline or full, comma-separated (docs/metrics.md)");
  profile_cmd->add_option("--metric", profile.raw_metrics, "Also collect this raw metric (repeatable), e.g. "
                                                           "dram__bytes_read.sum; see `gpuscope metrics --list`");
  profile_cmd->add_option("--kernel", profile.kernel_regex,
                          "Metrics only for kernels whose name matches this regex (mangled or demangled)");
  profile_cmd->add_option("--launch-skip", profile.launch_skip,
                          "Metrics: skip the first N matching kernel launches")
      ->check(CLI::NonNegativeNumber);
  profile_cmd->add_option("--launch-count", profile.launch_count, "Metrics: measure at most N launches")
      ->check(CLI::PositiveNumber);
  profile_cmd
      ->add_option("--gpu-metrics", profile.gpu_metrics_hz,
                   "Sample GPU-wide counters (GPU, SM, occupancy, tensor and FP pipes, DRAM, PCIe) over the run "
                   "with NVML GPM, at most RATE samples/s (default 10; GPM's counters advance every ~100 ms "
                   "on an H100, so faster rates give no more). Hopper or newer; not with --metrics")
      ->expected(0, 1)
      ->default_str("10")
      ->check(CLI::Range(1, 20000));
  profile_cmd->add_option("--api", profile.api,
                          "full (default): record every CUDA API call; lean: pure-query calls (cudaGetDevice, "
                          "cudaGetLastError, ...) are counted and timed, not recorded one by one (smaller traces, "
                          "not faster: docs/performance.md)")
      ->check(CLI::IsMember({"full", "lean"}));
  profile_cmd
      ->add_option("--pytorch", profile.pytorch,
                   "Python programs using PyTorch: name every kernel's op (ops), with input shapes (shapes), "
                   "and nn.Module paths (modules); no change to the program (docs/capture.md)")
      ->expected(0, 1)
      ->default_str("ops");
  profile_cmd->add_option("--capture-range", profile.capture_range,
                          "Record only between cudaProfilerStart/Stop (cudaProfilerApi, e.g. torch.cuda.profiler."
                          "start/stop) or inside an NVTX push/pop range (nvtx:NAME or nvtx:NAME@DOMAIN)");
  profile_cmd->add_option("--capture-range-end", profile.capture_range_end,
                          "After the first range: stop recording (stop, default), or record every later range too "
                          "(repeat, or repeat:N for at most N ranges)");
  profile_cmd->add_option("--delay", profile.delay_s, "Record only from S seconds after CUDA starts")
      ->check(CLI::Range(0.0, 86400.0));
  profile_cmd->add_option("--duration", profile.duration_s, "Record for S seconds only (with or without --delay)")
      ->check(CLI::Range(0.0, 86400.0));
  profile_cmd->add_flag("--keep-spools", profile.keep_spools,
                        "Keep the per-process spool files after import");
  add_report_flags(*profile_cmd, profile.report);
  // Everything from the program name on belongs to the program (CLI11's
  // prefix mode). A "--" is split off before parsing, see split_program_args.
  profile_cmd->prefix_command();

  ReportOptions report;
  auto* report_cmd = app.add_subcommand("report", "Explain a capture: where the time goes");
  report_cmd->add_option("file", report.input, kInputHelp)->required();
  add_metrics_from_flag(*report_cmd, report.metrics_from);
  report_cmd->add_option("-o,--output", report.output, "Write the report here instead of stdout");
  add_report_flags(*report_cmd, report.report);
  report_cmd->add_option("--iteration-range", report.report.iteration_range,
                         "The NVTX range (name or glob) whose instances are the steps the report leads with; default: "
                         "'ProfilerStep#*', else the outermost range repeating 3+ times on the main thread. With "
                         "steps, the Bottleneck and the Recommendations judge steps 2..N (the steady state)");

  ImportOptions import;
  auto* import_cmd = app.add_subcommand(
      "import", "Make a capture from another profiler's file (nsys SQLite export, torch.profiler JSON, ncu CSV)\n"
                "or from spool files (NAME.<pid>.spool) left behind; the format is told by content");
  import_cmd->add_option("inputs", import.inputs, "One file of another profiler, or the spools of one run")->required();
  add_metrics_from_flag(*import_cmd, import.metrics_from);
  import_cmd->add_option("-o,--output", import.output, "Capture name")->required();
  import_cmd->add_flag("-f,--force", import.force, "Overwrite an existing capture");

  MergeOptions merge;
  auto* merge_cmd = app.add_subcommand(
      "merge", "Merge captures of one distributed job (one file per rank: captures, torch.profiler traces, nsys\n"
               "exports) into one capture, with every process, so the report's Ranks section covers all ranks;\n"
               "a file from another (or an unknown) host is shifted onto the first file's clock, measured on the\n"
               "NCCL collectives they share (docs/merge.md)");
  merge_cmd->add_option("inputs", merge.inputs, "Two or more files, each anything `report` reads")->required();
  merge_cmd->add_option("-o,--output", merge.output, "Capture name")->required();
  merge_cmd->add_flag("-f,--force", merge.force, "Overwrite an existing capture");
  merge_cmd->add_flag("--no-align", [&](int64_t) { merge.align = false; },
                      "Never shift an input's times: only measure and print its clock offset");
  merge_cmd->add_option("--offset", merge.offsets,
                        "FILE=NS: shift the input FILE (as given, not the first) by NS nanoseconds, whatever was "
                        "measured (repeatable)")
      ->allow_extra_args(false);  // one FILE=NS per --offset: the inputs after it stay inputs

  ExportOptions exporting;
  auto* export_cmd = app.add_subcommand(
      "export", "Write a capture as a trace for other viewers (Perfetto UI, chrome://tracing, torch.profiler tools)");
  export_cmd->add_option("file", exporting.input, kInputHelp)->required();
  export_cmd->add_option("--format", exporting.format, "Trace format: " + gpuscope::or_list(gpuscope::export_format_names()))
      ->required()
      ->check(CLI::IsMember(gpuscope::export_format_names(), CLI::ignore_case));
  export_cmd->add_option("-o,--output", exporting.output, "Write the trace here (a name ending in .gz is gzipped)")
      ->required();
  export_cmd->add_option("--run", exporting.run, "Bench captures: only bench run N (default: every run, a group each)")
      ->check(CLI::PositiveNumber);
  export_cmd->add_flag("--gzip", exporting.gzip, "Gzip the output whatever its name");
  export_cmd->add_flag("--no-details", [&](int64_t) { exporting.details = false; },
                       "Leave out the GPU work's arguments (launch configurations, bytes): a smaller file");
  export_cmd->add_flag("--per-rank", exporting.per_rank,
                       "A job of several ranks: one file per rank, OUT with _rankN before its extension "
                       "(job.json.gz -> job_rank0.json.gz ...), each with its own distributedInfo (HTA)");
  export_cmd->add_flag("-f,--force", exporting.force, "Overwrite an existing output file");

  QueryOptions query;
  auto* query_cmd = app.add_subcommand(
      "query", "Run read-only SQL on a capture; rows are printed tab-separated");
  query_cmd->add_option("file", query.input, "A .gpuscope capture")->required();
  query_cmd->add_option("sql", query.sql, "SQL, e.g. \"SELECT COUNT(*) FROM kernels\"")->required();
  query_cmd->add_flag("--header", query.header, "Print column names first");

  DiffOptions diff;
  double fail_if_slower = 0;
  auto* diff_cmd = app.add_subcommand(
      "diff", "Compare two captures (baseline, new) item by item, with statistics (docs/diff.md)");
  diff_cmd->add_option("base", diff.base, "Baseline: a capture or another profiler's file")->required();
  diff_cmd->add_option("new", diff.next, "New: a capture or another profiler's file")->required();
  diff_cmd->add_option("-o,--output", diff.output, "Write the comparison here instead of stdout");
  add_format_flag(*diff_cmd, diff.format, "Comparison format");
  diff_cmd->add_option("--top", diff.top, "Rows per table (default 0 = all)");
  auto* fail_opt = diff_cmd->add_option("--fail-if-slower", fail_if_slower,
                                        "Exit 1 when any significant regression exceeds PCT %");
  add_stats_flags(*diff_cmd, diff.stats);
  add_iteration_flags(*diff_cmd, diff.iterations, "compare one value per iteration per item");

  CheckOptions check;
  auto* check_cmd = app.add_subcommand(
      "check", "CI gates: check a capture against TOML rules; exit 0 pass, 1 a gate failed, 2 bad input");
  check_cmd->add_option("file", check.input, kInputHelp)->required();
  check_cmd->add_option("--rules", check.rules, "Rules file (TOML, see docs/diff.md)")->required();
  check_cmd->add_option("--baseline", check.baseline, "Baseline capture (or another profiler's file) for [[baseline]] rules");
  add_metrics_from_flag(*check_cmd, check.metrics_from);
  add_format_flag(*check_cmd, check.format, "Gates format");
  check_cmd->add_option("--junit", check.junit, "Also write JUnit XML here");
  add_stats_flags(*check_cmd, check.stats);
  add_iteration_flags(*check_cmd, check.iterations, "[[baseline]] rules compare one value per iteration per item");

  BenchOptions bench;
  auto* bench_cmd = app.add_subcommand(
      "bench",
      "Run a program several times under capture: gpuscope bench [-n RUNS] [--warmup K] -- CMD ARGS.\n"
      "Keeps every measured run in one capture (a run id on every record) and prints the spread across runs.");
  bench_cmd->add_option("-n,--runs", bench.runs, "Measured runs (default 10)");
  bench_cmd->add_option("--warmup", bench.warmup, "Runs before the measured ones, not kept (default 1)");
  bench_cmd->add_option("-o,--output", bench.output, "Capture name; default: <program>-bench");
  bench_cmd->add_flag("-f,--force", bench.force, "Overwrite an existing capture");
  bench_cmd->add_flag("--driver-api", bench.driver_api,
                        "Also trace every CUDA driver API call (without it, only the driver's launch functions)");
  bench_cmd->add_option("--flush-ms", bench.flush_ms, "How often captured records reach the disk, in ms");
  bench_cmd->add_option("--seed-env", bench.seed_env, "Set this environment variable to the run number in each run");
  bench_cmd
      ->add_option("--gpu-metrics", bench.gpu_metrics_hz,
                   "Sample GPU-wide counters with NVML GPM in every run, at most RATE samples/s (default 10), as "
                   "profile --gpu-metrics; diff then compares GPU utilization run by run")
      ->expected(0, 1)
      ->default_str("10")
      ->check(CLI::Range(1, 20000));
  add_format_flag(*bench_cmd, bench.format, "Summary format");
  add_iteration_flags(*bench_cmd, bench.iterations, "also print the spread across iterations");
  bench_cmd->prefix_command();

  MetricsOptions metrics;
  auto* metrics_cmd = app.add_subcommand(
      "metrics",
      "Hardware metrics, from CUPTI's tables (no GPU needed with --chip): --list what a chip offers, --sets\n"
      "gpuscope's named sets, --check a list's validity and replay passes, --chips the chips CUPTI knows");
  metrics_cmd->add_flag("--list", metrics.list, "List the metrics the chip supports (description, unit, type)");
  metrics_cmd->add_flag("--sets", metrics.sets, "List gpuscope's metric sets (profile --metrics) and their metrics");
  metrics_cmd->add_flag("--check", metrics.check, "Validate --metrics/--metric on the chip and print the replay passes");
  metrics_cmd->add_flag("--chips", metrics.chips, "List the chips this CUPTI supports");
  metrics_cmd->add_option("--chip", metrics.chip, "Chip name, e.g. GH100; default: the local GPU's");
  metrics_cmd->add_flag("--sampling", metrics.sampling,
                        "CUPTI PM sampling instead of per-kernel range profiling (profile --gpu-metrics "
                        "samples with NVML GPM, not this)");
  metrics_cmd->add_option("--filter", metrics.filter, "--list: only names containing SUBSTR (case-insensitive)");
  metrics_cmd->add_flag("--submetrics", metrics.submetrics, "--list: also each metric's rollups and submetrics");
  metrics_cmd->add_option("--metrics", metrics.metric_sets,
                          "--check: sets, comma-separated: sol, memory, compute, occupancy, stalls, roofline, full");
  metrics_cmd->add_option("--metric", metrics.raw_metrics, "--check: also this raw metric (repeatable)");
  metrics_cmd->add_option("--format", metrics.format, "text or json")->check(CLI::IsMember({"text", "json"}));

  std::vector<std::string> args(argv + 1, argv + argc);
  std::vector<std::string> program = split_program_args(args);
  try {
    std::reverse(args.begin(), args.end());  // CLI11 takes a reversed vector
    app.parse(args);
  } catch (const CLI::ParseError& error) {
    return app.exit(error) == 0 ? 0 : 2;
  }

  try {
    if (*profile_cmd) {
      profile.command = profile_cmd->remaining();
      profile.command.insert(profile.command.end(), program.begin(), program.end());
      profile.inject_library = env_or_empty("GPUSCOPE_INJECT_LIB");
      return run_profile(profile);
    }
    if (*report_cmd) return run_report(report);
    if (*import_cmd) return run_import(import);
    if (*export_cmd) return run_export(exporting);
    if (*merge_cmd) return run_merge(merge);
    if (*query_cmd) return run_query(query);
    if (*metrics_cmd) {
      metrics.host_library = env_or_empty("GPUSCOPE_CUPTI_HOST_LIB");
      return run_metrics(metrics);
    }
    if (*diff_cmd) {
      if (*fail_opt) diff.fail_if_slower_percent = fail_if_slower;
      return run_diff(diff);
    }
    if (*check_cmd) return run_check(check);
    if (*bench_cmd) {
      bench.command = bench_cmd->remaining();
      bench.command.insert(bench.command.end(), program.begin(), program.end());
      bench.inject_library = env_or_empty("GPUSCOPE_INJECT_LIB");
      return run_bench(bench);
    }
  } catch (const gpuscope::Error& error) {
    std::cerr << "gpuscope: " << error.what() << "\n";
    return 2;
  } catch (const std::filesystem::filesystem_error& error) {
    // A path the system refuses (too long, no permission, not a directory): the path and why,
    // not "internal error: filesystem error: ...".
    const std::string path = error.path1().empty() ? "" : error.path1().string() + ": ";
    std::cerr << "gpuscope: " << gpuscope::printable(path + error.code().message()) << "\n";
    return 2;
  } catch (const std::exception& error) {
    std::cerr << "gpuscope: internal error: " << gpuscope::printable(error.what()) << "\n";  // one line, like Error
    return 2;
  }
  return 2;
}

// `gpuscope bench [-n RUNS] [--warmup K] -- CMD ARGS`: run the program K + RUNS
// times under capture, exactly as `profile` does, and keep the measured runs in
// one capture, every record stamped with its run id (docs/schema.md, `run_id`).
// Prints the across-run statistics on stderr (the program's stdout stays its
// own). Exit: 0 when every run exited 0, else the first failing run's status.
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>

#include "cli/capture_files.h"
#include "importers/importer.h"
#include "importers/validate.h"
#include "cli/capture_launch.h"
#include "cli/compare_commands.h"
#include "cli/launcher.h"
#include "common/error.h"
#include "gpuscope/analysis_runs.h"
#include "gpuscope/bench_report.h"
#include "gpuscope/runs.h"
#include "gpuscope/store.h"

namespace fs = std::filesystem;

namespace gpuscope::cli {
namespace {

struct OneRun {
  BenchRun times;
  Trace trace;
};

// Runs the program once under capture into spools PREFIX.<pid>.spool, imports
// and deletes them.
OneRun capture_once(const BenchOptions& o, const std::string& library, const std::string& prefix, int index) {
  if (!find_spools(prefix).empty())
    throw Error("spools of an earlier run are in the way (" + prefix + ".*.spool): delete them");
  CaptureSettings settings;
  settings.driver_api = o.driver_api;
  settings.flush_ms = o.flush_ms;
  settings.gpu_metrics_hz = o.gpu_metrics_hz;
  auto env = injection_environment(settings, library, prefix);
  if (!o.seed_env.empty()) env[o.seed_env] = std::to_string(index);
  OneRun run;
  run.times.start = realtime_ns();
  const ExitStatus status = run_program(o.command, env);
  run.times.end = realtime_ns();
  run.times.exit_code = status.exit_code;
  run.times.term_signal = status.signal;
  const std::vector<std::string> spools = find_spools(prefix);
  run.trace = import_spools(spools);
  if (spools.empty())
    run.trace.data_loss.push_back({0, "no_capture", 1, "no process initialised CUDA with the gpuscope library loaded"});
  for (const auto& spool : spools) std::remove(spool.c_str());
  return run;
}

std::string choose_output(const BenchOptions& o) {
  const std::string name = o.output.empty() ? fs::path(o.command.front()).filename().string() + "-bench" : o.output;
  const std::string path = capture_path(name);
  refuse_existing_output(path, o.force, ", or -o another name");
  return path;
}

}  // namespace

int run_bench(const BenchOptions& o) {
  if (o.command.empty()) throw Error("no program given: gpuscope bench [options] -- CMD ARGS");
  if (o.runs < 2 || o.runs > 10000) throw Error("-n must be between 2 and 10000 (statistics need at least 2 runs)");
  if (o.warmup < 0 || o.warmup > 1000) throw Error("--warmup must be between 0 and 1000");
  if (o.flush_ms < 10 || o.flush_ms > 60000) throw Error("--flush-ms must be between 10 and 60000");
  const ReportFormat& format = parse_report_format(o.format);
  const std::string library = find_inject_library(o.inject_library);
  const std::string output = choose_output(o);

  Trace bench;
  bench.run.command_line = join_command(o.command);
  bench.run.host = hostname();
  bench.run.gpuscope_version = GPUSCOPE_VERSION;
  bench.run.options = "bench runs=" + std::to_string(o.runs) + " warmup=" + std::to_string(o.warmup) +
                      " driver_api=" + (o.driver_api ? "1" : "0") + " flush_ms=" + std::to_string(o.flush_ms) +
                      (o.gpu_metrics_hz ? " gpu_metrics_hz=" + std::to_string(o.gpu_metrics_hz) : "");
  int first_failure = 0;
  for (int i = 0; i < o.warmup + o.runs; ++i) {
    const bool warmup = i < o.warmup;
    const uint32_t run_id = warmup ? 0 : static_cast<uint32_t>(i - o.warmup + 1);
    const std::string prefix = spool_prefix(output) + ".run" + std::to_string(i);
    OneRun run = capture_once(o, library, prefix, static_cast<int>(run_id));
    const ExitStatus status{run.times.exit_code, run.times.term_signal};
    std::cerr << "gpuscope: bench " << (warmup ? "warm-up " + std::to_string(i + 1) : "run " + std::to_string(run_id))
              << " of " << (warmup ? o.warmup : o.runs) << ": program " << status.describe() << ", "
              << (run.times.end - run.times.start) / 1000000 << " ms\n";
    if (status.shell_code() != 0 && first_failure == 0) {
      first_failure = status.shell_code();
      bench.run.exit_code = status.exit_code;  // the whole bench reports its first failing run
      bench.run.term_signal = status.signal;
    }
    if (warmup) continue;
    run.times.run_id = run_id;
    append_run(bench, run.trace, run_id);
    bench.runs.push_back(run.times);
    if (run_id == 1) bench.run.start = run.times.start;
    bench.run.end = run.times.end;
  }
  if (first_failure == 0) bench.run.exit_code = 0;
  validate_trace(bench);  // with the runs' window known (as profile does)
  write_trace(output, bench);
  std::cerr << "gpuscope: " << o.runs << " runs written to " << output << "\n" << std::flush;
  // A missing or overlapping iteration range is bad input (exit 2), but the runs are kept above.
  std::optional<analysis::IterationBench> iterations;
  if (!o.iterations.range.empty()) iterations = analysis::summarize_iterations(bench, iteration_spec(o.iterations, output));
  std::cerr << render_bench(analysis::summarize_bench(bench), output, format, iterations ? &*iterations : nullptr)
            << std::flush;
  return first_failure;
}

}  // namespace gpuscope::cli

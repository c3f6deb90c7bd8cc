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
#include "cli/capture_flags.h"
#include "cli/capture_launch.h"
#include "cli/compare_commands.h"
#include "cli/launcher.h"
#include "common/error.h"
#include "gpuscope/analysis_runs.h"
#include "gpuscope/bench_report.h"
#include "gpuscope/runs.h"
#include "gpuscope/store.h"
#include "importers/importer.h"
#include "importers/validate.h"

namespace fs = std::filesystem;

namespace gpuscope::cli {
namespace {

struct BenchOptions {
  int runs = 10;       // measured runs
  int warmup = 1;      // runs first, captured but not kept (caches, JIT, clocks)
  std::string output;  // capture name; empty: <program>-bench
  bool force = false;
  CaptureFlags::Program program;  // the program and the capture options
  std::string seed_env;           // when set: this variable = the run's index (1..runs; warm-ups 0) in its environment
  std::string format = "text";
  IterationSettings iterations;  // also print the spread across iterations
};

struct OneRun {
  BenchRun times;
  Trace trace;
};

// Runs the program once under capture into spools PREFIX.<pid>.spool, imports
// and deletes them.
OneRun capture_once(const BenchOptions& o, const std::string& library, const std::string& prefix, int index) {
  if (!find_spools(prefix).empty())
    throw Error("spools of an earlier run are in the way (" + prefix + ".*.spool): delete them");
  auto env = injection_environment(o.program.capture, library, prefix);
  if (!o.seed_env.empty()) env[o.seed_env] = std::to_string(index);
  OneRun run;
  run.times.start = realtime_ns();
  const ExitStatus status = run_program(o.program.command, env);
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
  const std::string name = o.output.empty() ? fs::path(o.program.command.front()).filename().string() + "-bench"
                                            : o.output;
  const std::string path = capture_path(name);
  refuse_existing_output(path, o.force, ", or -o another name");
  return path;
}

int run_bench(const BenchOptions& o) {
  if (o.program.command.empty()) throw Error("no program given: gpuscope bench [options] -- CMD ARGS");
  if (o.runs < 2 || o.runs > 10000) throw Error("-n must be between 2 and 10000 (statistics need at least 2 runs)");
  if (o.warmup < 0 || o.warmup > 1000) throw Error("--warmup must be between 0 and 1000");
  const ReportFormat& format = parse_report_format(o.format);
  const std::string library = find_inject_library(o.program.inject_library);
  const std::string output = choose_output(o);

  Trace bench;
  bench.run.command_line = join_command(o.program.command);
  bench.run.host = hostname();
  bench.run.gpuscope_version = GPUSCOPE_VERSION;
  const std::string described = capture::describe(o.program.capture);
  bench.run.options = "bench runs=" + std::to_string(o.runs) + " warmup=" + std::to_string(o.warmup) +
                      (described.empty() ? "" : " " + described);
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
  if (!o.iterations.range.empty())
    iterations = analysis::summarize_iterations(bench, iteration_spec(o.iterations, output));
  std::cerr << render_bench(analysis::summarize_bench(bench), output, format, iterations ? &*iterations : nullptr)
            << std::flush;
  return first_failure;
}

}  // namespace

Command add_bench_command(CLI::App& app) {
  auto options = std::make_shared<BenchOptions>();
  BenchOptions& o = *options;
  CLI::App* command = app.add_subcommand(
      "bench",
      "Run a program several times under capture: gpuscope bench [-n RUNS] [--warmup K] -- CMD ARGS.\n"
      "Keeps every measured run in one capture (a run id on every record) and prints the spread across runs.");
  command->add_option("-n,--runs", o.runs, "Measured runs (default 10)");
  command->add_option("--warmup", o.warmup, "Runs before the measured ones, not kept (default 1)");
  command->add_option("-o,--output", o.output, "Capture name; default: <program>-bench");
  command->add_flag("-f,--force", o.force, "Overwrite an existing capture");
  auto flags = std::make_shared<CaptureFlags>(*command, capture::OptionScope::Capture);
  command->add_option("--seed-env", o.seed_env, "Set this environment variable to the run number in each run");
  add_format_flag(*command, o.format, "Summary format");
  add_iteration_flags(*command, o.iterations, "also print the spread across iterations");
  command->prefix_command();
  return {command, [options, flags, command](const std::vector<std::string>& program) {
            options->program = flags->program(*command, program);
            return run_bench(*options);
          }};
}

}  // namespace gpuscope::cli

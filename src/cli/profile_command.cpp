// `gpuscope profile -- CMD ARGS`: run the program with our capture library
// injected, turn its spools into NAME.gpuscope, report, and exit with the
// program's own exit status.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <regex>

#include "cli/capture_files.h"
#include "importers/importer.h"
#include "importers/validate.h"
#include "cli/capture_launch.h"
#include "cli/commands.h"
#include "cli/launcher.h"
#include "common/error.h"
#include "gpuscope/metric_sets.h"
#include "gpuscope/store.h"

namespace fs = std::filesystem;

namespace gpuscope::cli {

namespace {

// An explicit -o must not silently overwrite; the default name counts up
// (bsr_spmm.gpuscope, bsr_spmm-2.gpuscope, ...) so repeated runs just work.
std::string choose_output(const ProfileOptions& options) {
  if (!options.output.empty()) {
    const std::string path = capture_path(options.output);
    refuse_existing_output(path, options.force, ", or -o another name");
    return path;
  }
  const std::string stem = fs::path(options.command.front()).filename().string();
  for (int n = 1; n < 10000; ++n) {
    const std::string path = capture_path(n == 1 ? stem : stem + "-" + std::to_string(n));
    if (!path_taken(path) && find_spools(spool_prefix(path)).empty()) return path;
  }
  throw Error("too many captures named " + stem + "*.gpuscope here; use -o NAME");
}

void finish_capture(const Run& run, const std::string& output, const std::string& prefix,
                    const ProfileOptions& options) {
  const std::vector<std::string> spools = find_spools(prefix);
  Trace trace = import_spools(spools);
  trace.run = run;
  // Again, now that the run's window is known: GPU records whose times CUPTI never filled in (0,
  // after a GPU fault) leave the capture here, counted, instead of in every reader.
  validate_trace(trace);
  if (spools.empty()) {
    std::cerr << "gpuscope: no CUDA activity was captured: the program made no CUDA calls, or "
                 "CUDA could not initialise (is a GPU visible? try nvidia-smi)\n";
    trace.data_loss.push_back({0, "no_capture", 1,
                               "no process initialised CUDA with the gpuscope library loaded"});
  }
  write_trace(output, trace);
  if (!options.keep_spools)
    for (const auto& spool : spools) std::remove(spool.c_str());
  const ExitStatus status{run.exit_code, run.term_signal};
  std::cerr << "gpuscope: program " << status.describe() << "; capture written to " << output
            << "\n";
  if (options.print_report) std::cerr << render(trace, options.report) << std::flush;
}

CaptureSettings capture_settings(const ProfileOptions& options) {
  CaptureSettings settings;
  settings.driver_api = options.driver_api;
  settings.driver_launches = options.driver_launches;
  settings.nccl_calls = options.nccl_calls;
  settings.flush_ms = options.flush_ms;
  settings.sync_flush_ms = options.sync_flush_ms;
  parse_capture_scope(options.api, options.pytorch, options.capture_range, options.capture_range_end,
                      options.delay_s, options.duration_s, settings);
  const bool wants_metrics = !options.metric_sets.empty() || !options.raw_metrics.empty();
  if (!wants_metrics && (!options.kernel_regex.empty() || options.launch_skip > 0 || options.launch_count > 0))
    throw Error("--kernel, --launch-skip and --launch-count choose kernels for --metrics/--metric; give one of those");
  // Kernel replay serializes the GPU and replays each kernel many times: GPU-wide samples of
  // such a run would describe the replay, not the program.
  if (options.gpu_metrics_hz > 0 && wants_metrics)
    throw Error("--gpu-metrics and --metrics/--metric cannot be combined: kernel replay changes what the GPU does "
                "over time; profile twice");
  std::string error;
  if (wants_metrics && !expand_metric_sets(options.metric_sets, options.raw_metrics, settings.metrics, error))
    throw Error(error);
  settings.required_metrics = options.raw_metrics;  // the sets adapt to the chip; these do not
  // CUPTI leaves the timestamps of a replayed kernel's record empty; its measured duration is
  // what the importer places it on the timeline with, so it is always collected.
  const std::string duration = "gpu__time_duration.sum";
  if (wants_metrics && std::find(settings.metrics.begin(), settings.metrics.end(), duration) == settings.metrics.end())
    settings.metrics.insert(settings.metrics.begin(), duration);
  if (!options.kernel_regex.empty()) {
    try {
      std::regex check(options.kernel_regex, std::regex::ECMAScript);
    } catch (const std::regex_error&) {
      throw Error("--kernel '" + options.kernel_regex + "' is not a valid regular expression");
    }
  }
  settings.kernel_regex = options.kernel_regex;
  settings.launch_skip = options.launch_skip;
  settings.launch_count = options.launch_count;
  settings.gpu_metrics_hz = options.gpu_metrics_hz;
  return settings;
}

// The capture options as the user gave them, for the run header.
std::string describe(const ProfileOptions& options) {
  std::string text = std::string("driver_api=") + (options.driver_api ? "1" : "0") +
                     " flush_ms=" + std::to_string(options.flush_ms);
  if (!options.metric_sets.empty()) text += " metrics=" + options.metric_sets;
  for (const std::string& raw : options.raw_metrics) text += " metric=" + raw;
  if (!options.kernel_regex.empty()) text += " kernel=" + options.kernel_regex;
  if (options.launch_skip > 0) text += " launch_skip=" + std::to_string(options.launch_skip);
  if (options.launch_count > 0) text += " launch_count=" + std::to_string(options.launch_count);
  if (options.gpu_metrics_hz > 0) text += " gpu_metrics_hz=" + std::to_string(options.gpu_metrics_hz);
  if (options.sync_flush_ms != 10) text += " sync_flush_ms=" + std::to_string(options.sync_flush_ms);
  if (options.api != "full") text += " api=" + options.api;
  if (!options.driver_launches) text += " driver_launches=0";
  if (!options.nccl_calls) text += " nccl_calls=0";
  if (!options.pytorch.empty()) text += " pytorch=" + options.pytorch;
  if (!options.capture_range.empty()) text += " capture_range=" + options.capture_range + " end=" + options.capture_range_end;
  if (options.delay_s > 0) text += " delay_s=" + std::to_string(options.delay_s);
  if (options.duration_s > 0) text += " duration_s=" + std::to_string(options.duration_s);
  return text;
}

}  // namespace

int run_profile(const ProfileOptions& options) {
  if (options.command.empty()) throw Error("no program given: gpuscope profile [options] -- CMD ARGS");
  if (options.flush_ms < 10 || options.flush_ms > 60000)
    throw Error("--flush-ms must be between 10 and 60000");
  if (options.sync_flush_ms < 0 || options.sync_flush_ms > 60000)
    throw Error("--sync-flush-ms must be between 0 and 60000");
  const CaptureSettings settings = capture_settings(options);  // option errors first
  const std::string library = find_inject_library(options.inject_library);
  const std::string output = choose_output(options);
  const std::string prefix = spool_prefix(output);
  if (!find_spools(prefix).empty())
    throw Error("spools of an earlier run are in the way (" + prefix +
                ".*.spool): turn them into a capture with 'gpuscope import' or delete them");
  if (access(fs::path(output).parent_path().c_str(), W_OK) != 0)
    throw Error("cannot write to " + fs::path(output).parent_path().string());

  Run run;
  run.command_line = join_command(options.command);
  run.host = hostname();
  run.gpuscope_version = GPUSCOPE_VERSION;
  run.options = describe(options);
  run.start = realtime_ns();
  const ExitStatus status = run_program(options.command, injection_environment(settings, library, prefix));
  run.end = realtime_ns();
  run.exit_code = status.exit_code;
  run.term_signal = status.signal;

  // The program has run; from here on a failure of ours must not change the
  // exit status the caller sees. Spools stay on disk for `gpuscope import`.
  try {
    finish_capture(run, output, prefix, options);
  } catch (const Error& error) {
    std::cerr << "gpuscope: " << error.what() << " (spools kept: " << prefix << ".*.spool)\n";
  }
  return status.shell_code();
}

}  // namespace gpuscope::cli

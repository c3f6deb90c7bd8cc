// `gpuscope profile -- CMD ARGS`: run the program with our capture library
// injected, turn its spools into NAME.gpuscope, report, and exit with the
// program's own exit status.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "cli/capture_files.h"
#include "cli/commands.h"
#include "cli/launcher.h"
#include "common/error.h"
#include "gpuscope/store.h"

namespace fs = std::filesystem;

namespace gpuscope::cli {

namespace {

int64_t realtime_ns() {
  // CLOCK_REALTIME: the clock CUPTI stamps its records with on Linux.
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string hostname() {
  char name[256] = {};
  return gethostname(name, sizeof name - 1) == 0 ? name : "";
}

std::string join_command(const std::vector<std::string>& argv) {
  std::string line;
  for (const auto& arg : argv) {
    if (!line.empty()) line += ' ';
    const bool quote = arg.empty() || arg.find_first_of(" \t\"'\\$") != std::string::npos;
    line += quote ? "'" + arg + "'" : arg;
  }
  return line;
}

// An explicit -o must not silently overwrite; the default name counts up
// (bsr_spmm.gpuscope, bsr_spmm-2.gpuscope, ...) so repeated runs just work.
std::string choose_output(const ProfileOptions& options) {
  if (!options.output.empty()) {
    const std::string path = capture_path(options.output);
    if (!options.force && fs::exists(path))
      throw Error(path + " already exists (use --force to overwrite, or -o another name)");
    return path;
  }
  const std::string stem = fs::path(options.command.front()).filename().string();
  for (int n = 1; n < 10000; ++n) {
    const std::string path = capture_path(n == 1 ? stem : stem + "-" + std::to_string(n));
    if (!fs::exists(path) && find_spools(spool_prefix(path)).empty()) return path;
  }
  throw Error("too many captures named " + stem + "*.gpuscope here; use -o NAME");
}

std::map<std::string, std::string> injection_environment(const ProfileOptions& options,
                                                         const std::string& library,
                                                         const std::string& prefix) {
  if (const char* existing = std::getenv("CUDA_INJECTION64_PATH"); existing && *existing)
    throw Error(std::string("CUDA_INJECTION64_PATH is already set (") + existing +
                "): another tool is injected; unset it to profile with gpuscope");
  std::map<std::string, std::string> env;
  env["CUDA_INJECTION64_PATH"] = library;
  // NVTX events reach CUPTI through our library, which forwards to libcupti.
  // A user's own NVTX tool wins: then NVTX ranges are not captured.
  if (!std::getenv("NVTX_INJECTION64_PATH")) env["NVTX_INJECTION64_PATH"] = library;
  env["GPUSCOPE_INJECT_CONFIG"] = "spool=" + prefix +
                                  ";driver_api=" + (options.driver_api ? "1" : "0") +
                                  ";flush_ms=" + std::to_string(options.flush_ms);
  return env;
}

void finish_capture(const Run& run, const std::string& output, const std::string& prefix,
                    const ProfileOptions& options) {
  const std::vector<std::string> spools = find_spools(prefix);
  Trace trace = import_spools(spools);
  trace.run = run;
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

}  // namespace

int run_profile(const ProfileOptions& options) {
  if (options.command.empty()) throw Error("no program given: gpuscope profile [options] -- CMD ARGS");
  if (options.flush_ms < 10 || options.flush_ms > 60000)
    throw Error("--flush-ms must be between 10 and 60000");
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
  run.options = std::string("driver_api=") + (options.driver_api ? "1" : "0") +
                " flush_ms=" + std::to_string(options.flush_ms);
  run.start = realtime_ns();
  const ExitStatus status =
      run_program(options.command, injection_environment(options, library, prefix));
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

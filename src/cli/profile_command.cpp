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
#include "cli/capture_flags.h"
#include "cli/capture_launch.h"
#include "cli/commands.h"
#include "cli/launcher.h"
#include "common/error.h"
#include "gpuscope/store.h"
#include "importers/importer.h"
#include "importers/validate.h"

namespace fs = std::filesystem;

namespace gpuscope::cli {
namespace {

struct ProfileOptions {
  std::string output;             // -o NAME; empty: named after the program
  bool force = false;             // overwrite an existing capture
  bool print_report = true;       // report on stderr when done
  bool keep_spools = false;       // keep NAME.<pid>.spool after import
  CaptureFlags::Program program;  // the program and the capture options
  ReportSettings report;
};

// An explicit -o must not silently overwrite; the default name counts up
// (bsr_spmm.gpuscope, bsr_spmm-2.gpuscope, ...) so repeated runs just work.
std::string choose_output(const ProfileOptions& options) {
  if (!options.output.empty()) {
    const std::string path = capture_path(options.output);
    refuse_existing_output(path, options.force, ", or -o another name");
    return path;
  }
  const std::string stem = fs::path(options.program.command.front()).filename().string();
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
  // The launcher knows the run (command, host, times, exit); the import, where its ops came from.
  const std::string ops_source = trace.run.host_ops_source;
  trace.run = run;
  trace.run.host_ops_source = ops_source;
  // Again, now that the run's window is known: GPU records whose times CUPTI never filled in (0,
  // after a GPU fault) leave the capture here, counted, instead of in every reader.
  validate_trace(trace);
  if (spools.empty()) {
    std::cerr << "gpuscope: no CUDA activity was captured: the program made no CUDA calls, or "
                 "CUDA could not initialise (is a GPU visible? try nvidia-smi)\n";
    trace.data_loss.push_back({0, "no_capture", 1, "no process initialised CUDA with the gpuscope library loaded"});
  }
  write_trace(output, trace);
  if (!options.keep_spools)
    for (const auto& spool : spools) std::remove(spool.c_str());
  // --source's side file of a process that died before removing it (capture.md).
  for (const auto& spool : spools) std::remove((spool + ".cubins").c_str());
  const ExitStatus status{run.exit_code, run.term_signal};
  std::cerr << "gpuscope: program " << status.describe() << "; capture written to " << output << "\n";
  if (options.print_report) std::cerr << render(trace, options.report) << std::flush;
}

int run_profile(const ProfileOptions& options) {
  if (options.program.command.empty()) throw Error("no program given: gpuscope profile [options] -- CMD ARGS");
  const std::string library = find_inject_library(options.program.inject_library);
  const std::string output = choose_output(options);
  const std::string prefix = spool_prefix(output);
  if (!find_spools(prefix).empty())
    throw Error("spools of an earlier run are in the way (" + prefix +
                ".*.spool): turn them into a capture with 'gpuscope import' or delete them");
  if (access(fs::path(output).parent_path().c_str(), W_OK) != 0)
    throw Error("cannot write to " + fs::path(output).parent_path().string());

  Run run;
  run.command_line = join_command(options.program.command);
  run.host = hostname();
  run.gpuscope_version = GPUSCOPE_VERSION;
  run.options = capture::describe(options.program.capture);
  run.start = realtime_ns();
  const ExitStatus status = run_program(options.program.command,
                                        injection_environment(options.program.capture, library, prefix));
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

}  // namespace

Command add_profile_command(CLI::App& app) {
  auto options = std::make_shared<ProfileOptions>();
  ProfileOptions& o = *options;
  CLI::App* command = app.add_subcommand(
      "profile",
      "Run a program under capture: gpuscope profile [options] -- CMD ARGS.\n"
      "Writes NAME.gpuscope, prints the report on stderr, exits with the program's status.");
  command->add_option("-o,--output", o.output, "Capture name (NAME or NAME.gpuscope); default: the program's name");
  command->add_flag("-f,--force", o.force, "Overwrite an existing capture");
  auto flags = std::make_shared<CaptureFlags>(*command, capture::OptionScope::ProfileOnly);
  command->add_flag(
      "--no-report", [options](int64_t) { options->print_report = false; }, "Do not print the report when done");
  command->add_flag("--keep-spools", o.keep_spools, "Keep the per-process spool files after import");
  add_report_flags(*command, o.report);
  // Everything from the program name on belongs to the program (CLI11's prefix mode); a "--" is
  // split off before parsing (main.cpp).
  command->prefix_command();
  return {command, [options, flags, command](const std::vector<std::string>& program) {
            options->program = flags->program(*command, program);
            return run_profile(*options);
          }};
}

}  // namespace gpuscope::cli

// `gpuscope import`: another profiler's file, or the spools a run left behind (e.g. after
// gpuscope itself was killed), into a capture file. The importer registry tells the format.
#include <filesystem>
#include <iostream>

#include "cli/capture_files.h"
#include "cli/commands.h"
#include "common/error.h"
#include "gpuscope/store.h"
#include "importers/importer.h"

namespace gpuscope::cli {
namespace {

struct ImportOptions {
  std::vector<std::string> inputs;  // spools of one run, or one file of another format
  std::vector<std::string> metrics_from;
  std::string output;
  bool force = false;
};

int run_import(const ImportOptions& options) {
  const std::string output = capture_path(options.output);
  refuse_existing_output(output, options.force);
  Trace trace = import_files(options.inputs, options.metrics_from);
  if (trace.run.source_tool.empty()) {  // spools: the run as its processes saw it
    for (const Process& p : trace.processes) {
      trace.run.start = trace.run.start ? std::min(trace.run.start, p.start) : p.start;
      trace.run.end = std::max(trace.run.end, p.end);
    }
    if (!trace.processes.empty()) trace.run.command_line = trace.processes.front().command_line;
    trace.run.options = "imported from spools";
  }
  trace.run.gpuscope_version = GPUSCOPE_VERSION;
  write_trace(output, trace);
  std::cerr << "gpuscope: wrote " << output << " (" << trace.processes.size() << " process"
            << (trace.processes.size() == 1 ? "" : "es") << ", " << trace.kernels.size() << " kernels)\n";
  return 0;
}

}  // namespace

Command add_import_command(CLI::App& app) {
  auto options = std::make_shared<ImportOptions>();
  ImportOptions& o = *options;
  CLI::App* command = app.add_subcommand(
      "import",
      "Make a capture from another profiler's file (nsys SQLite export, torch.profiler JSON, ncu CSV)\n"
      "or from spool files (NAME.<pid>.spool) left behind; the format is told by content");
  command->add_option("inputs", o.inputs, "One file of another profiler, or the spools of one run")->required();
  add_metrics_from_flag(*command, o.metrics_from);
  command->add_option("-o,--output", o.output, "Capture name")->required();
  command->add_flag("-f,--force", o.force, "Overwrite an existing capture");
  return {command, [options](const std::vector<std::string>&) { return run_import(*options); }};
}

}  // namespace gpuscope::cli

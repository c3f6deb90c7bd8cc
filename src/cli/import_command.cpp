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

}  // namespace gpuscope::cli

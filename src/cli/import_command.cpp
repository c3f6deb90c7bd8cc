// `gpuscope import`: turns spools left behind (e.g. after gpuscope itself was
// killed) into a capture file.
#include <filesystem>
#include <iostream>

#include "cli/capture_files.h"
#include "cli/commands.h"
#include "common/error.h"
#include "gpuscope/store.h"

namespace gpuscope::cli {

int run_import(const ImportOptions& options) {
  const std::string output = capture_path(options.output);
  if (!options.force && std::filesystem::exists(output))
    throw Error(output + " already exists (use --force to overwrite)");
  for (const auto& spool : options.spools)
    if (!std::filesystem::is_regular_file(spool)) throw Error(spool + ": no such spool file");
  Trace trace = import_spools(options.spools);
  if (trace.processes.empty()) throw Error("none of the spools could be read");
  for (const Process& p : trace.processes) {
    trace.run.start = trace.run.start ? std::min(trace.run.start, p.start) : p.start;
    trace.run.end = std::max(trace.run.end, p.end);
  }
  trace.run.command_line = trace.processes.front().command_line;
  trace.run.gpuscope_version = GPUSCOPE_VERSION;
  trace.run.options = "imported from spools";
  write_trace(output, trace);
  std::cerr << "gpuscope: wrote " << output << " (" << trace.processes.size() << " process"
            << (trace.processes.size() == 1 ? "" : "es") << ")\n";
  return 0;
}

}  // namespace gpuscope::cli

// `gpuscope export FILE --format chrome|perfetto -o OUT`: a capture as a trace for the viewers
// people already use (docs/export.md). The trace is the one `report` analyses: with the
// profiler's own metric-collection time cut out (gpuscope/analysis_profiler_time.h).
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>

#include "cli/capture_files.h"
#include "cli/commands.h"
#include "common/error.h"
#include "export/gzip.h"
#include "export/tracks.h"
#include "importers/importer.h"
#include "gpuscope/analysis_profiler_time.h"
#include "gpuscope/export.h"
#include "gpuscope/store.h"
#include "importers/importer.h"

namespace fs = std::filesystem;

namespace gpuscope::cli {
namespace {

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// Writes to OUT.tmp and renames it at the end, so a failed export leaves no half file behind.
void write_file(const std::string& path, bool gzip, const std::function<void(std::ostream&)>& write) {
  const std::string tmp = path + ".tmp";
  try {
    std::ofstream file(tmp, std::ios::binary | std::ios::trunc);
    if (!file) throw Error("cannot write " + path);
    if (gzip) {
      GzipOstream zipped(file);
      write(zipped);
      zipped.finish();
    } else {
      write(file);
    }
    if (!file.flush()) throw Error("cannot write " + path);
    file.close();
    fs::rename(tmp, path);
  } catch (...) {
    std::error_code ignored;
    fs::remove(tmp, ignored);
    throw;
  }
}

}  // namespace

int run_export(const ExportOptions& options) {
  const ExportFormat& format = find_export_format(options.format);
  refuse_existing_output(options.output, options.force);
  const Trace trace = load_trace(options.input);
  if (options.run) {
    bool found = false;
    for (const BenchRun& r : trace.runs) found = found || r.run_id == *options.run;
    if (trace.runs.empty())
      throw Error(options.input + " is not a bench capture; --run needs one made by `gpuscope bench`");
    if (!found)
      throw Error(options.input + " has no bench run " + std::to_string(*options.run) + " (it has " +
                  std::to_string(trace.runs.size()) + " runs)");
  }
  const analysis::AnalysisView view(trace);
  const tracks::Layout layout = tracks::layout_tracks(view.trace(), {options.run});
  const bool gzip = options.gzip || ends_with(options.output, ".gz");
  write_file(options.output, gzip, [&](std::ostream& out) { format.write(view.trace(), layout, {options.details}, out); });
  std::cerr << "gpuscope: wrote " << options.output << " (" << format.name << ", " << layout.slices << " slices, "
            << layout.flows.size() << " flows";
  if (layout.untimed) std::cerr << "; " << layout.untimed << " records without a valid time left out";
  std::cerr << ")\n";
  return 0;
}

}  // namespace gpuscope::cli

// The parts every fuzz target shares (fuzz_target.h) and libFuzzer's entry point.
#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "common/error.h"
#include "fuzz_target.h"
#include "gpuscope/analysis_profiler_time.h"
#include "gpuscope/export.h"
#include "gpuscope/report.h"
#include "gpuscope/tracks.h"
#include "importers/finalize.h"
#include "importers/importer.h"
#include "report/builder.h"

namespace gpuscope::fuzz {

namespace {

std::string scratch_path;

void remove_scratch() { unlink(scratch_path.c_str()); }

}  // namespace

const std::string& scratch_file(std::string_view bytes) {
  if (scratch_path.empty()) {
    // One file per process, made once: libFuzzer's workers are processes, and a fresh name per
    // input would cost a directory entry each run. TMPDIR decides where (campaign.sh sets it).
    scratch_path = (std::filesystem::temp_directory_path() / "gpuscope-fuzz-XXXXXX").string();
    const int fd = mkstemp(scratch_path.data());
    if (fd < 0) {
      std::perror(scratch_path.c_str());  // no scratch file: nothing this target does can be trusted
      std::abort();
    }
    close(fd);
    std::atexit(remove_scratch);
  }
  const int fd = open(scratch_path.c_str(), O_WRONLY | O_TRUNC);
  size_t written = 0;
  while (fd >= 0 && written < bytes.size()) {
    const ssize_t n = write(fd, bytes.data() + written, bytes.size() - written);
    if (n <= 0) break;
    written += static_cast<size_t>(n);
  }
  if (fd < 0 || written < bytes.size()) {
    std::perror(scratch_path.c_str());  // a short file would make false findings
    std::abort();
  }
  close(fd);
  return scratch_path;
}

Trace read_as(std::string_view format, std::string_view bytes) {
  for (const Importer& importer : importers()) {
    if (importer.name != format) continue;
    Trace trace;
    importer.read(scratch_file(bytes), trace);
    if (!importer.finalized) finalize_trace(trace);
    return trace;
  }
  std::abort();  // a target names a format the registry does not have
}

void analyse_everything(const Trace& trace) {
  // As render_report and `export` do it, but the model is built once for every format.
  const analysis::AnalysisView view(trace);
  report::Report model = report::build_report(view.trace(), ReportOptions{}, view.profiler_time());
  model.timeline = report::make_timeline_view(view.trace(), view.profiler_time().total_ns());
  for (const ReportFormat& format : report_formats()) format.render(model);
  const tracks::Layout layout = tracks::layout_tracks(view.trace());
  for (const ExportFormat& format : export_formats()) {
    std::ostringstream out;
    format.write(view.trace(), layout, ExportSettings{}, out);
  }
}

}  // namespace gpuscope::fuzz

// Bad bytes refused with gpuscope::Error are the expected answer; anything else escapes to
// libFuzzer, which reports it (an uncaught exception aborts).
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    gpuscope::fuzz::fuzz_one(std::string_view(reinterpret_cast<const char*>(data), size));
  } catch (const gpuscope::Error&) {
  }
  return 0;
}

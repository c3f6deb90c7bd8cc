// Where `gpuscope import` of an nsys export spends its time: reading the export (the importer),
// finalize_trace (sorting, nesting, correlation) and writing the capture, each timed once.
//   build/bench/nsys_read_bench EXPORT.sqlite [OUT.gpuscope]
// bench/nsys_import_bench.sh runs it on its large export.
#include <chrono>
#include <cstdio>
#include <filesystem>

#include "common/error.h"
#include "gpuscope/store.h"
#include "importers/finalize.h"
#include "importers/nsys_sqlite/nsys_export.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: nsys_read_bench EXPORT.sqlite [OUT.gpuscope]\n");
    return 2;
  }
  using Clock = std::chrono::steady_clock;
  auto seconds = [](Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); };
  const std::string out = argc > 2 ? argv[2] : "nsys_read_bench.gpuscope";
  try {
    gpuscope::Trace trace;
    const auto begin = Clock::now();
    gpuscope::read_nsys_export(argv[1], trace);
    const auto read = Clock::now();
    gpuscope::finalize_trace(trace);
    const auto finalized = Clock::now();
    std::filesystem::remove(out);
    gpuscope::write_trace(out, trace);
    const auto written = Clock::now();
    const double rows = static_cast<double>(
        trace.kernels.size() + trace.api_calls.size() + trace.memcpys.size() + trace.memsets.size() +
        trace.synchronizations.size() + trace.nvtx_ranges.size() + trace.nvtx_marks.size() + trace.overheads.size());
    std::printf("records %.0f: read %.3f s (%.2f M rows/s), finalize %.3f s, write capture %.3f s\n", rows,
                seconds(begin, read), rows / seconds(begin, read) / 1e6, seconds(read, finalized),
                seconds(finalized, written));
    std::filesystem::remove(out);
  } catch (const gpuscope::Error& e) {
    std::fprintf(stderr, "nsys_read_bench: %s\n", e.what());
    return 2;
  }
  return 0;
}

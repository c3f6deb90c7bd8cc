// timeline_bench: wall time and output size of the timeline layout, the HTML report and every
// trace export on a synthetic launch storm (tests/tools/synth.h; 1M launches = about 2M records),
// built in memory. CPU-only. Prints a markdown table (median of --reps runs) and the peak RSS.
//   build/bench/timeline_bench [--launches 1000000] [--reps 3]
#include <sys/resource.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gpuscope/analysis.h"
#include "gpuscope/export.h"
#include "gpuscope/report.h"
#include "gpuscope/tracks.h"
#include "synth.h"

namespace {

using Clock = std::chrono::steady_clock;

// Median wall time of `reps` calls, in ms.
double median_ms(int reps, const std::function<void()>& work) {
  std::vector<double> ms;
  for (int i = 0; i < reps; ++i) {
    const auto begin = Clock::now();
    work();
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - begin).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms.size() % 2 ? ms[ms.size() / 2] : (ms[ms.size() / 2 - 1] + ms[ms.size() / 2]) / 2;
}

struct Row {
  std::string step;
  double ms = 0;
  std::optional<uintmax_t> bytes;  // output size, where there is an output
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Timeline layout, HTML report and trace exports on a synthetic launch storm"};
  gpuscope::synth::StormOptions storm;
  storm.launches = 1'000'000;
  int reps = 3;
  app.add_option("--launches", storm.launches, "Launches of the synthetic storm (default 1000000)")
      ->check(CLI::PositiveNumber);
  app.add_option("--reps", reps, "Runs of each step; the median is printed (default 3)")->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);

  std::vector<Row> rows;
  gpuscope::Trace trace;
  rows.push_back(
      {"generate the trace (in memory)", median_ms(1, [&] { trace = gpuscope::synth::launch_storm(storm); }), {}});
  const size_t records = gpuscope::synth::record_count(trace);

  gpuscope::tracks::Layout layout;
  rows.push_back({"layout_tracks", median_ms(reps, [&] { layout = gpuscope::tracks::layout_tracks(trace); }), {}});

  // The NVTX section's GPU projection: every launch placed in its step and nested ranges.
  rows.push_back({"summarize_nvtx (GPU projection included)",
                  median_ms(reps, [&] { (void)gpuscope::analysis::summarize_nvtx(trace); }),
                  {}});

  std::vector<std::string> skipped;
  const auto& formats = gpuscope::report_formats();
  const auto html = std::find_if(formats.begin(), formats.end(), [](const auto& f) { return f.name == "html"; });
  if (html == formats.end()) {
    skipped.push_back("render_report html: no 'html' report format registered yet");
  } else {
    std::string page;
    const double ms = median_ms(reps, [&] { page = gpuscope::render_report(trace, {}, *html); });
    rows.push_back({"render_report html (layout included)", ms, page.size()});
  }

  if (gpuscope::export_formats().empty()) skipped.push_back("exports: no export format registered yet");
  for (const gpuscope::ExportFormat& f : gpuscope::export_formats()) {
    const auto file = std::filesystem::temp_directory_path() /
                      ("timeline_bench." + std::to_string(getpid()) + f.extension);
    const double ms = median_ms(reps, [&] {
      std::ofstream out(file, std::ios::binary | std::ios::trunc);
      f.write(trace, layout, {}, out);
    });
    rows.push_back({"export " + f.name + " (layout excluded)", ms, std::filesystem::file_size(file)});
    std::filesystem::remove(file);
  }

  std::printf("Synthetic launch storm: %llu launches, %zu records, %zu slices in the layout; median of %d runs\n\n",
              static_cast<unsigned long long>(storm.launches), records, layout.slices, reps);
  std::printf("| step | wall time | output | bytes/record |\n| --- | ---: | ---: | ---: |\n");
  for (const Row& r : rows) {
    if (r.bytes)
      std::printf("| %s | %.0f ms | %.1f MB | %.1f |\n", r.step.c_str(), r.ms, double(*r.bytes) / 1e6,
                  double(*r.bytes) / double(records));
    else std::printf("| %s | %.0f ms | | |\n", r.step.c_str(), r.ms);
  }
  std::printf("\n");
  for (const std::string& s : skipped) std::printf("skipped: %s\n", s.c_str());
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("peak RSS: %.0f MiB\n", double(usage.ru_maxrss) / 1024.0);
  return 0;
}

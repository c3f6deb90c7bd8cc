// gpuscope_synth: writes a synthetic capture (tests/tools/synth.h) for the browser tests and the
// benchmarks.
//   gpuscope_synth -o storm.gpuscope --launches 1000000 [--step 100] [--seed 1]
//   gpuscope_synth -o hostile.gpuscope --hostile
//   gpuscope_synth -o train.gpuscope --records 10000000 [--runs 3] [--seed 1]   (synth.h: scale_run)
//   gpuscope_synth -o cut.gpuscope --cut-profiler-time metrics.gpuscope
// The last writes a capture's program timeline, with the metric collection time cut out as
// report, export and the HTML page show it (gpuscope/analysis_profiler_time.h), so the browser
// tests can check such a page's times with plain SQL.
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <exception>

#include "gpuscope/analysis_profiler_time.h"
#include "gpuscope/store.h"
#include "synth.h"

int main(int argc, char** argv) {
  CLI::App app{"Write a synthetic gpuscope capture: a launch storm of N launches, or hostile names"};
  std::string output;
  gpuscope::synth::StormOptions storm;
  bool hostile = false;
  gpuscope::synth::ScaleOptions scale;
  scale.records = 0;
  app.add_option("-o,--output", output, "The capture to write")->required();
  auto* launches = app.add_option("--launches", storm.launches, "cudaLaunchKernel calls (default 1000)")
                       ->check(CLI::Range(uint64_t{1}, uint64_t{50'000'000}));
  app.add_option("--step", storm.step, "Launches per NVTX 'step' range (default 100)")->check(CLI::PositiveNumber);
  app.add_option("--seed", storm.seed, "Random seed (default 1)");
  auto* hostile_flag =
      app.add_flag("--hostile", hostile, "A small capture whose names attack HTML/JS renderers")->excludes(launches);
  auto* records = app.add_option("--records", scale.records,
                                 "A training-shaped capture of this many records (scale bench)")
                      ->excludes(launches)
                      ->excludes(hostile_flag);
  app.add_option("--runs", scale.runs, "With --records: a bench capture of this many runs (default 1)");
  std::string cut_from;
  app.add_option("--cut-profiler-time", cut_from, "Write this capture with its metric collection time cut out")
      ->excludes(launches)
      ->excludes(hostile_flag)
      ->excludes(records);
  CLI11_PARSE(app, argc, argv);
  scale.seed = storm.seed;

  try {
    const auto begin = std::chrono::steady_clock::now();
    const gpuscope::Trace trace = !cut_from.empty()
                                      ? gpuscope::analysis::cut_profiler_time(gpuscope::read_trace(cut_from))
                                  : hostile       ? gpuscope::synth::hostile()
                                  : scale.records ? gpuscope::synth::scale_run(scale)
                                                  : gpuscope::synth::launch_storm(storm);
    const auto built = std::chrono::steady_clock::now();
    gpuscope::write_trace(output, trace);
    const auto written = std::chrono::steady_clock::now();
    const auto seconds = [](auto d) { return std::chrono::duration<double>(d).count(); };
    std::fprintf(stderr, "gpuscope_synth: %s: %zu launches, %zu records (built in %.2f s, written in %.2f s)\n",
                 output.c_str(), trace.kernels.size(), gpuscope::synth::record_count(trace), seconds(built - begin),
                 seconds(written - built));
  } catch (const std::exception& error) {
    std::fprintf(stderr, "gpuscope_synth: %s\n", error.what());
    return 2;
  }
  return 0;
}

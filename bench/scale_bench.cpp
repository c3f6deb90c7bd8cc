// scale_bench: every post-processing stage of gpuscope timed on a training-shaped synthetic capture
// of N records (tests/tools/synth.h, scale_run), with the peak memory of each. CPU-only.
//
//   build/bench/scale_bench --records 10000000 [--csv scale.csv] [--dir /tmp]
//
// Stages run one after another in this process, in the order `profile` and `report` run them.
// Memory: before each stage the kernel's peak-RSS mark is reset (/proc/self/clear_refs, "5"), so
// each row's peak is the most the process held during that stage, including what it already held
// (the capture in memory): `start` is the RSS when the stage began. MiB = 2^20 bytes.
#include <malloc.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>

#include "cli/huge_pages.h"
#include "scale_stages.h"

namespace gpuscope::bench {
namespace {

// A /proc/self/status field (VmRSS, VmHWM) in MiB.
double status_mib(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const size_t n = std::strlen(field);
  while (std::getline(in, line))
    if (line.compare(0, n, field) == 0 && line[n] == ':') return std::stod(line.substr(n + 1)) / 1024.0;  // kB
  return 0;
}

// Resets VmHWM to the current RSS (Linux >= 4.0); false when the kernel refuses.
bool reset_peak() {
  std::ofstream out("/proc/self/clear_refs");
  out << "5";
  out.flush();
  return bool(out);
}

}  // namespace

// Bytes as MB (10^6), one decimal.
std::string mb(uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", double(bytes) / 1e6);
  return text;
}

Row StageTimer::time(const std::string& name, const std::function<uint64_t()>& work) {
  malloc_trim(0);  // give freed pages back, so `start` is what the process really holds
  if (!reset_peak()) peak_exact = false;
  Row r{name, 0, status_mib("VmRSS"), 0, 0};
  const auto begin = std::chrono::steady_clock::now();
  r.bytes = work();
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  r.peak_mib = status_mib("VmHWM");
  std::fprintf(stderr, "  %-44s %8.3f s %8.0f MiB\n", name.c_str(), r.seconds, r.peak_mib);
  rows.push_back(r);
  return r;
}

}  // namespace gpuscope::bench

int main(int argc, char** argv) {
  gpuscope::cli::use_huge_pages_for_large_blocks();
  CLI::App app{"Every post-processing stage of gpuscope on a training-shaped synthetic capture"};
  gpuscope::synth::ScaleOptions options;
  std::string csv, dir = std::filesystem::temp_directory_path().string();
  app.add_option("--records", options.records, "Records of the capture (default 1000000)")->check(CLI::PositiveNumber);
  app.add_option("--runs", options.runs, "Processes of a bench capture (default 1: a single run)");
  app.add_option("--csv", csv, "Append one line per stage to this CSV (header written when new)");
  app.add_option("--dir", dir, "Where the spools, captures and exports are written (then removed)");
  CLI11_PARSE(app, argc, argv);

  const std::string work = dir + "/gpuscope-scale-" + std::to_string(getpid());
  std::filesystem::create_directories(work);
  gpuscope::bench::StageTimer timer;
  size_t records = 0;
  try {
    records = gpuscope::bench::run_stages(options, work, timer);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "scale_bench: %s\n", e.what());
    std::filesystem::remove_all(work);
    return 1;
  }
  std::filesystem::remove_all(work);

  std::printf(
      "%zu records (target %llu)%s\n\n| stage | seconds | peak MiB | start MiB | output MB |\n"
      "|---|---:|---:|---:|---:|\n",
      records, static_cast<unsigned long long>(options.records),
      timer.peak_exact ? "" : "; peaks not reset per stage (clear_refs refused): running maxima");
  for (const auto& r : timer.rows)
    std::printf("| %s | %.3f | %.0f | %.0f | %s |\n", r.stage.c_str(), r.seconds, r.peak_mib, r.start_mib,
                r.bytes ? gpuscope::bench::mb(r.bytes).c_str() : "");
  if (!csv.empty()) {
    const bool fresh = !std::filesystem::exists(csv);
    std::ofstream out(csv, std::ios::app);
    if (fresh) out << "records,stage,seconds,peak_mib,start_mib,bytes\n";
    for (const auto& r : timer.rows)
      out << records << ",\"" << r.stage << "\"," << r.seconds << "," << r.peak_mib << "," << r.start_mib << ","
          << r.bytes << "\n";
  }
  return 0;
}

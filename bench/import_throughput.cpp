// Post-processing speed: how long gpuscope takes, after the program exits, to turn
// a spool into a capture and a report. Writes a launch_storm-like spool (one
// runtime API record and one kernel record per launch) with the capture library's
// own SpoolWriter, then times each stage and reports records/s and peak memory. With PROCESSES
// > 1 the launches are split over that many spools (a process each, as a multi-process job
// leaves them), imported together as `profile` imports them. Same memory policy as the CLI.
//
//   gpuscope_import_bench [LAUNCHES] [PROCESSES]   (defaults 1,000,000 and 1)
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "capture/spool_writer.h"
#include "cli/huge_pages.h"
#include "gpuscope/report.h"
#include "gpuscope/store.h"
#include "importers/importer.h"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

long peak_rss_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024;  // ru_maxrss is in KiB on Linux
}

void write_spool(const std::string& path, uint32_t pid, uint64_t launches) {
  gpuscope::capture::SpoolWriter writer;
  if (!writer.open(path, pid, 1, 1'000'000'000)) {
    std::fprintf(stderr, "cannot write %s: %s\n", path.c_str(), writer.error().c_str());
    std::exit(1);
  }
  const uint32_t kernel_name = writer.intern("_Z11tiny_kernelPfi");
  const uint32_t api_name = writer.intern("cudaLaunchKernel");
  int64_t t = 2'000'000'000;
  for (uint64_t i = 0; i < launches; ++i) {
    const auto correlation = static_cast<uint32_t>(i + 1);
    gpuscope::spool::ApiRecord api{};
    api.start_ns = t;
    api.end_ns = t + 2500;
    api.tid = pid;
    api.name = api_name;
    api.correlation_id = correlation;
    writer.add(gpuscope::spool::RecordKind::Api, api);
    gpuscope::spool::KernelRecord kernel{};
    kernel.start_ns = t + 4000;
    kernel.end_ns = t + 5500;
    kernel.stream = 7;
    kernel.name = kernel_name;
    kernel.grid[0] = kernel.block[0] = 1;
    kernel.correlation_id = correlation;
    writer.add(gpuscope::spool::RecordKind::Kernel, kernel);
    t += 3000;
  }
  writer.finish({t, 2 * launches, 0});
}

}  // namespace

int main(int argc, char** argv) {
  gpuscope::cli::use_huge_pages_for_large_blocks();
  const uint64_t launches = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1'000'000;
  const uint32_t processes = argc > 2 ? std::max(1, std::atoi(argv[2])) : 1;
  const auto dir = std::filesystem::temp_directory_path() / "gpuscope-import-bench";
  std::filesystem::create_directories(dir);
  std::vector<std::string> spools;
  const std::string capture = (dir / "bench.gpuscope").string();
  const double records = 2.0 * static_cast<double>(launches);

  auto start = Clock::now();
  uint64_t spool_bytes = 0;
  for (uint32_t p = 0; p < processes; ++p) {
    const uint32_t pid = 4242 + p;
    spools.push_back((dir / ("bench." + std::to_string(pid) + ".spool")).string());
    write_spool(spools.back(), pid, launches / processes + (p < launches % processes ? 1 : 0));
    spool_bytes += std::filesystem::file_size(spools.back());
  }
  const double t_spool = seconds_since(start);

  start = Clock::now();
  gpuscope::Trace trace = gpuscope::import_spools(spools);
  const double t_import = seconds_since(start);

  start = Clock::now();
  gpuscope::write_trace(capture, trace);
  const double t_write = seconds_since(start);

  start = Clock::now();
  const gpuscope::Trace back = gpuscope::read_trace(capture);
  const double t_read = seconds_since(start);

  start = Clock::now();
  const std::string report = gpuscope::render_report(back, {}, gpuscope::parse_report_format("text"));
  const double t_report = seconds_since(start);

  std::printf("| stage | seconds | records/s |\n|---|---:|---:|\n");
  const struct {
    const char* name;
    double seconds;
  } stages[] = {{"write spool (SpoolWriter)", t_spool},
                {"import spool", t_import},
                {"write SQLite", t_write},
                {"read SQLite", t_read},
                {"render text report", t_report}};
  for (const auto& s : stages) std::printf("| %s | %.3f | %.2fM |\n", s.name, s.seconds, records / s.seconds / 1e6);
  std::printf("\n%llu launches = %.0f records in %u spool(s); spools %.1f MB, capture %.1f MB; peak RSS %ld MB\n",
              static_cast<unsigned long long>(launches), records, processes, spool_bytes / 1e6,
              std::filesystem::file_size(capture) / 1e6, peak_rss_mb());
  std::filesystem::remove_all(dir);
  return report.empty() ? 1 : 0;
}

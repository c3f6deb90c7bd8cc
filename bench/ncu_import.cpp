// ncu CSV import speed: a large raw page (and details page) made by repeating the data rows of
// a real file (tests/data/ncu), IDs renumbered, then read as `gpuscope report big.csv` reads it
// (load_trace: read, parse, build the metrics-only capture, finalize). Reports rows/s, MB/s,
// metric values/s and peak memory.
//
//   gpuscope_ncu_import_bench RAW.csv DETAILS.csv [RAW_ROWS] [DETAILS_LAUNCHES] (defaults 2000, 20000)
//
// The CSVs are made in the temporary directory and removed; with GPUSCOPE_NCU_BENCH_DIR=DIR they
// are made in DIR and kept (bench/reader_memory.sh reads them again).
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "importers/importer.h"
#include "importers/ncu_csv/ncu_file.h"

namespace {

using Clock = std::chrono::steady_clock;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The header block (everything up to the first launch row) and the launch rows of one launch.
void split(const std::string& text, bool raw, std::string& head, std::vector<std::string>& rows) {
  size_t pos = text.find("\n\"ID\",");
  pos = text.find('\n', pos + 1) + 1;
  if (raw) pos = text.find('\n', pos) + 1;  // the units row
  head = text.substr(0, pos);
  while (pos < text.size()) {
    const size_t end = text.find('\n', pos);
    const std::string line = text.substr(pos, end - pos);
    if (line.rfind("\"0\",", 0) == 0) rows.push_back(line.substr(line.find(',')));  // without the ID
    pos = end == std::string::npos ? text.size() : end + 1;
  }
}

std::string make_file(const std::string& source, bool raw, size_t launches, const std::string& out) {
  std::string head;
  std::vector<std::string> rows;
  split(slurp(source), raw, head, rows);
  std::ofstream file(out, std::ios::binary);
  file << head;
  for (size_t id = 0; id < launches; ++id)
    for (const std::string& row : rows) file << "\"" << id << "\"" << row << "\n";
  return out;
}

void time_import(const char* what, const std::string& path, size_t rows) {
  const double mb = std::filesystem::file_size(path) / 1e6;
  auto start = Clock::now();
  const gpuscope::ncu::File file = gpuscope::ncu::read_file(path);
  const double parse_s = std::chrono::duration<double>(Clock::now() - start).count();
  size_t values = 0;
  for (const auto& l : file.launches) values += l.metrics.size();
  start = Clock::now();
  const gpuscope::Trace trace = gpuscope::load_trace(path);
  const double load_s = std::chrono::duration<double>(Clock::now() - start).count();
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("%s: %.1f MB, %zu rows, %zu launches, %zu values\n", what, mb, rows, trace.kernels.size(), values);
  std::printf("  read + parse     %.3f s  %.0f rows/s  %.0f MB/s  %.1f M values/s\n", parse_s, rows / parse_s,
              mb / parse_s, values / parse_s / 1e6);
  std::printf("  load_trace       %.3f s  %.0f rows/s  %.0f MB/s  (capture: %zu kernel metric rows)\n", load_s,
              rows / load_s, mb / load_s, trace.kernel_metrics.size());
  std::printf("  peak RSS so far  %ld MB\n", usage.ru_maxrss / 1024);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s RAW.csv DETAILS.csv [RAW_ROWS] [DETAILS_LAUNCHES]\n", argv[0]);
    return 2;
  }
  const size_t raw_rows = argc > 3 ? std::stoul(argv[3]) : 2000;
  const size_t details_launches = argc > 4 ? std::stoul(argv[4]) : 20000;
  const char* keep_in = std::getenv("GPUSCOPE_NCU_BENCH_DIR");
  const auto dir = keep_in ? std::filesystem::path(keep_in) : std::filesystem::temp_directory_path();
  try {
    const std::string raw = make_file(argv[1], true, raw_rows, (dir / "gpuscope_bench_ncu_raw.csv").string());
    time_import("raw page", raw, raw_rows);
    if (!keep_in) std::filesystem::remove(raw);
    std::string head;
    std::vector<std::string> rows;
    split(slurp(argv[2]), false, head, rows);
    const std::string details = make_file(argv[2], false, details_launches,
                                          (dir / "gpuscope_bench_ncu_details.csv").string());
    time_import("details page", details, details_launches * rows.size());
    if (!keep_in) std::filesystem::remove(details);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}

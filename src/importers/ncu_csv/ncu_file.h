// An ncu CSV read into launches: what the raw page (--page raw: a row per launch, a column per
// metric, a units row) and the details page (--page details: a row per metric of a launch) both
// say, values already in gpuscope's units (units.h) and metrics under their Perfworks names.
// The importer (ncu_import.cpp) turns it into a metrics-only capture or attaches it to one.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "importers/ncu_csv/csv_reader.h"

namespace gpuscope::ncu {

// One profiled kernel launch (one "ID" of ncu's).
struct Launch {
  uint64_t id = 0;  // ncu's result index, in profiling (launch) order
  uint32_t pid = 0;
  std::string process_name;
  std::string host;
  std::string kernel_name;  // as ncu printed it (--print-kernel-base: function, demangled or mangled)
  uint32_t context = 0, stream = 0, device = 0;
  std::string compute_capability;  // "9.0"
  int32_t grid[3] = {0, 0, 0};
  int32_t block[3] = {0, 0, 0};
  bool has_config = false;  // grid and block known
  // Values by metric: index into File::metric_names, value in gpuscope's unit.
  std::vector<std::pair<uint32_t, double>> metrics;
};

// Why values were not kept, counted for Data quality.
struct Skipped {
  uint64_t not_available = 0;  // "n/a" or empty: ncu had no value
  uint64_t not_numeric = 0;    // text where a number belongs (a metric with a unit, or known)
  std::string not_numeric_example;
  uint64_t unmapped = 0;  // details page: values under a label with no exact Perfworks name
  std::set<std::string> unmapped_labels;
};

struct File {
  std::string page;  // "raw" or "details"
  std::vector<std::string> metric_names;
  std::vector<Launch> launches;  // in file order
  // Per device: device__attribute_* values (numbers in gpuscope's units) and its display name.
  std::map<uint32_t, std::map<std::string, double>> device_attributes;
  std::map<uint32_t, std::string> device_names;
  std::map<uint32_t, std::string> command_lines;  // pid -> program, from "==PROF== Connected to process"
  uint32_t passes = 0;  // replay passes per kernel, from "==PROF== Profiling ... - N passes" (max)
  Skipped skipped;

  // The index of `name` in metric_names, added when new.
  uint32_t metric_index(const std::string& name);

 private:
  std::map<std::string, uint32_t, std::less<>> index_;
};

// True when `line` is the header of an ncu CSV: fields "ID" and "Kernel Name" and either
// "Process ID" or "Metric Name". Read leniently: a header cut short still tells.
bool is_ncu_header(std::string_view line);

// Reads an ncu CSV (plain or gzip). Throws Error with a one-line message, prefixed with `path`,
// for anything that is not one or is cut short.
File read_file(const std::string& path);

// The same from text already in memory (tests, benchmarks).
File parse_text(std::string_view text);

// The same from a reader over any source (both above come here; tests count what it reads).
File read_stream(CsvReader& reader);

}  // namespace gpuscope::ncu

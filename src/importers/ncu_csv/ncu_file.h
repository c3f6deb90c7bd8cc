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

struct File;

// Takes launches as they are read, so that a caller building from them (metrics_only.cpp) never
// holds them all: a --set full raw launch is ~2,000 values of 16 bytes each.
class LaunchSink {
 public:
  virtual ~LaunchSink() = default;
  // Before the first launch: about how many values the launches will hold in all (raw page:
  // estimated from the input's size, see raw_page.cpp; details page: counted), to size storage
  // once rather than by doubling. A hint: more or fewer may come.
  virtual void expect_values(size_t values) = 0;
  // Each launch in file order. `file` has every metric name the launch uses; what comes from
  // the rest of the file (device attributes, command lines, skipped counts) is complete only
  // once read_file returns.
  virtual void take(Launch&& launch, const File& file) = 0;
};

// Launches counted as read, for the tests that hold the importer to streaming.
struct LaunchCounts {
  uint64_t read = 0;
  uint64_t most_held = 0;  // the most in File::launches at once
};

struct File {
  std::string page;  // "raw" or "details"
  std::vector<std::string> metric_names;
  // In file order; empty where a LaunchSink took them (raw page), else all of them.
  std::vector<Launch> launches;
  LaunchCounts counts;
  // Per device: device__attribute_* values (numbers in gpuscope's units) and its display name.
  std::map<uint32_t, std::map<std::string, double>> device_attributes;
  std::map<uint32_t, std::string> device_names;
  std::map<uint32_t, std::string> command_lines;  // pid -> program, from "==PROF== Connected to process"
  uint32_t passes = 0;  // replay passes per kernel, from "==PROF== Profiling ... - N passes" (max)
  Skipped skipped;

  // The index of `name` in metric_names, added when new.
  uint32_t metric_index(const std::string& name);

  // A launch read whole: to the sink where there is one, else into `launches`.
  void add_launch(Launch&& launch);

  LaunchSink* sink = nullptr;

 private:
  std::map<std::string, uint32_t, std::less<>> index_;
};

// True when `line` is the header of an ncu CSV: fields "ID" and "Kernel Name" and either
// "Process ID" or "Metric Name". Read leniently: a header cut short still tells.
bool is_ncu_header(std::string_view line);

// Reads an ncu CSV (plain or gzip). Throws Error with a one-line message, prefixed with `path`,
// for anything that is not one or is cut short. With a `sink`, the launches go to it: the raw
// page's each as its row is read; the details page's, whose rows of one launch need not be
// together, all at the end (so held all at once).
File read_file(const std::string& path, LaunchSink* sink = nullptr);

// The same from text already in memory (tests, benchmarks).
File parse_text(std::string_view text, LaunchSink* sink = nullptr);

// The same from a reader over any source (both above come here; tests count what it reads).
File read_stream(CsvReader& reader, LaunchSink* sink = nullptr);

}  // namespace gpuscope::ncu

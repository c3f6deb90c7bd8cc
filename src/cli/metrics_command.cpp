// `gpuscope metrics`: which hardware metrics a chip has (--list), gpuscope's named sets
// (--sets), whether a list is valid and how many replay passes it costs (--check), and the
// chips CUPTI knows (--chips). Answers come from CUPTI's host API, which needs no GPU, through
// libgpuscope_cupti_host.so (src/capture/host_library.cpp): the CLI stays CUDA-free and only
// loads that library, next to its binary, when this command asks CUPTI something.

#include <algorithm>
#include <cstddef>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/cupti_host.h"
#include "common/error.h"
#include "common/names.h"
#include "gpuscope/metric_sets.h"

namespace gpuscope::cli {
namespace {

// `gpuscope metrics`: exactly one of list / sets / check / chips (metrics_command.cpp).
struct MetricsOptions {
  bool list = false;                     // --list: the metrics a chip supports
  bool sets = false;                     // --sets: gpuscope's named sets (no CUPTI needed)
  bool check = false;                    // --check: validate a list and count its replay passes
  bool chips = false;                    // --chips: the chips this CUPTI knows
  std::string chip;                      // --chip GH100; empty: the local GPU's
  bool sampling = false;                 // --sampling: PM sampling's metrics, not the range profiler's
  std::string filter;                    // --filter SUBSTR on the name, case-insensitive (list)
  bool submetrics = false;               // --submetrics: each metric's rollups/submetrics (list)
  std::string metric_sets;               // --metrics sol,stalls (check)
  std::vector<std::string> raw_metrics;  // --metric NAME, repeatable (check)
  std::string format = "text";           // text | json
  std::string host_library;              // $GPUSCOPE_CUPTI_HOST_LIB, may be empty
};

using json = nlohmann::json;

std::string resolve_chip(const MetricsOptions& options, const CuptiHost& host) {
  if (!options.chip.empty()) return options.chip;
  const json local = host.local_chip();
  if (local["chip"].is_string()) return local["chip"].get<std::string>();
  throw Error("no GPU found here (" + local.value("reason", std::string("none")) +
              "); name a chip with --chip (e.g. GH100; see `gpuscope metrics --chips`)");
}

// Rows of columns, each padded to its widest cell but the last, two spaces apart. A row of one
// cell is a free line under the row before (it sets no width).
void print_table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width;
  for (const auto& row : rows) {
    if (row.size() < 2) continue;
    width.resize(std::max(width.size(), row.size()));
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  for (const auto& row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      line += row[c];
      if (c + 1 < row.size()) line += std::string(width[c] - row[c].size() + 2, ' ');
    }
    std::cout << line << "\n";
  }
}

const char* unit_text(MetricUnit unit) {
  switch (unit) {
    case MetricUnit::Nanoseconds: return "ns";
    case MetricUnit::Percent: return "%";
    case MetricUnit::Bytes: return "bytes";
    case MetricUnit::Sectors: return "sectors";
    case MetricUnit::Count: return "count";
    case MetricUnit::Cycles: return "cycles";
    case MetricUnit::Ratio: return "ratio";
    case MetricUnit::PerCycle: return "per cycle";
    case MetricUnit::PerSecond: return "1/s";
    case MetricUnit::BytesPerSecond: return "bytes/s";
  }
  return "";
}

int list_metrics(const MetricsOptions& options, const CuptiHost& host) {
  json doc = host.metrics(resolve_chip(options, host), options.sampling, options.submetrics);
  const size_t total = doc["metrics"].size();
  const std::string needle = lowercase(options.filter);
  json kept = json::array();
  for (json& m : doc["metrics"]) {
    if (lowercase(m["name"].get<std::string>()).find(needle) != std::string::npos) kept.push_back(std::move(m));
  }
  doc["metrics"] = std::move(kept);
  if (options.format == "json") {
    std::cout << doc.dump(2) << "\n";
    return 0;
  }
  std::vector<std::vector<std::string>> rows{{"NAME", "TYPE", "UNIT", "DESCRIPTION"}};
  for (const json& m : doc["metrics"]) {
    rows.push_back({m["name"], m["type"], m["dim_unit"], m["description"]});
    if (options.submetrics) {
      std::string subs;
      for (const json& s : m["submetrics"]) subs += " " + s.get<std::string>();
      rows.push_back({"  submetrics:" + subs});
    }
  }
  print_table(rows);
  std::cout << doc["metrics"].size() << " of " << total << " base metrics on " << doc["chip"].get<std::string>() << " ("
            << doc["profiler"].get<std::string>() << ")"
            << (needle.empty() ? "" : " whose name contains '" + options.filter + "'")
            << ". A full name adds a rollup and submetric, e.g. dram__throughput.avg.pct_of_peak_sustained_elapsed"
            << (options.submetrics ? "" : " (--submetrics lists them)") << ".\n";
  return 0;
}

int list_sets(const MetricsOptions& options) {
  auto describe = [](const std::vector<MetricInfo>& metrics) {
    json out = json::array();
    for (const MetricInfo& m : metrics)
      out.push_back({{"name", m.name}, {"label", m.label}, {"unit", unit_text(m.unit)}});
    return out;
  };
  json sets = json::array();
  for (const MetricSet& set : metric_sets())
    sets.push_back({{"name", set.name}, {"description", set.description}, {"metrics", describe(set.metrics)}});
  const json gpu_samples = describe(gpm_sample_metrics());
  const json pm_sampling = describe(gpu_sample_metrics());
  if (options.format == "json") {
    std::cout << json{{"sets", sets}, {"gpu_samples", gpu_samples}, {"pm_sampling", pm_sampling}}.dump(2) << "\n";
    return 0;
  }
  auto print_metrics = [](const json& metrics) {
    std::vector<std::vector<std::string>> rows;
    for (const json& m : metrics) rows.push_back({"  " + m["label"].get<std::string>(), m["name"], m["unit"]});
    print_table(rows);
  };
  for (const json& set : sets) {
    std::cout << set["name"].get<std::string>() << ": " << set["description"].get<std::string>() << "\n";
    print_metrics(set["metrics"]);
    std::cout << "\n";
  }
  std::cout << "full: every set above\n\ngpu samples (profile --gpu-metrics: NVML GPM over the whole run):\n";
  print_metrics(gpu_samples);
  std::cout << "\nPM sampling (CUPTI; not used by profile, see docs/metrics.md; metrics --check --sampling):\n";
  print_metrics(pm_sampling);
  return 0;
}

int check_metrics(const MetricsOptions& options, const CuptiHost& host) {
  std::vector<std::string> names;
  if (options.metric_sets.empty() && options.raw_metrics.empty()) {
    // PM sampling has one list of its own; the range profiler needs to be told.
    if (!options.sampling) throw Error("--check needs metrics: --metrics SETS and/or --metric NAME");
    for (const MetricInfo& m : gpu_sample_metrics()) names.push_back(m.name);
  } else if (std::string error; !expand_metric_sets(options.metric_sets, options.raw_metrics, names, error)) {
    throw Error(error);
  }
  json doc = host.check(resolve_chip(options, host), options.sampling, names, options.raw_metrics);
  doc["names"] = names;
  if (options.format == "json") {
    std::cout << doc.dump(2) << "\n";
    return 0;
  }
  const size_t passes = doc["passes"].get<size_t>();
  const std::string chip = doc["chip"].get<std::string>();
  std::cout << chip << " (" << doc["profiler"].get<std::string>() << "): " << doc["metrics"].get<size_t>()
            << " metrics valid; " << passes << (passes == 1 ? " pass" : " passes");
  // Kernel replay: each pass reruns the kernel with another slice of the counters.
  if (!options.sampling)
    std::cout << " (each kernel runs " << (passes == 1 ? "once" : std::to_string(passes) + " times") << ")";
  std::cout << "\n";
  // The sets are written for Hopper; profile leaves out, and counts, what another chip lacks.
  const json& left_out = doc["not_on_chip"];
  if (!left_out.empty()) {
    std::cout << left_out.size() << " metrics of the sets do not exist on " << chip
              << "; profile leaves them out and counts them (metrics_not_on_chip):\n";
    for (const json& name : left_out) std::cout << "  " << name.get<std::string>() << "\n";
  }
  return 0;
}

int list_chips(const MetricsOptions& options, const CuptiHost& host) {
  const json doc = host.chips();
  if (options.format == "json") {
    std::cout << doc.dump(2) << "\n";
    return 0;
  }
  for (const json& chip : doc["chips"]) std::cout << chip.get<std::string>() << "\n";
  return 0;
}

int run_metrics(const MetricsOptions& options) {
  const int actions = int(options.list) + int(options.sets) + int(options.check) + int(options.chips);
  if (actions != 1) throw Error("metrics: name exactly one of --list, --sets, --check, --chips");
  if (options.sets) return list_sets(options);  // gpuscope's own table: no CUPTI needed
  const CuptiHost host(options.host_library);
  if (options.list) return list_metrics(options, host);
  if (options.check) return check_metrics(options, host);
  return list_chips(options, host);
}

}  // namespace

Command add_metrics_command(CLI::App& app) {
  auto options = std::make_shared<MetricsOptions>();
  MetricsOptions& o = *options;
  CLI::App* command = app.add_subcommand(
      "metrics",
      "Hardware metrics, from CUPTI's tables (no GPU needed with --chip): --list what a chip offers, --sets\n"
      "gpuscope's named sets, --check a list's validity and replay passes, --chips the chips CUPTI knows");
  command->add_flag("--list", o.list, "List the metrics the chip supports (description, unit, type)");
  command->add_flag("--sets", o.sets, "List gpuscope's metric sets (profile --metrics) and their metrics");
  command->add_flag("--check", o.check, "Validate --metrics/--metric on the chip and print the replay passes");
  command->add_flag("--chips", o.chips, "List the chips this CUPTI supports");
  command->add_option("--chip", o.chip, "Chip name, e.g. GH100; default: the local GPU's");
  command->add_flag("--sampling", o.sampling,
                    "CUPTI PM sampling instead of per-kernel range profiling (profile --gpu-metrics "
                    "samples with NVML GPM, not this)");
  command->add_option("--filter", o.filter, "--list: only names containing SUBSTR (case-insensitive)");
  command->add_flag("--submetrics", o.submetrics, "--list: also each metric's rollups and submetrics");
  command->add_option("--metrics", o.metric_sets,
                      "--check: sets, comma-separated: sol, memory, compute, occupancy, stalls, roofline, full");
  command->add_option("--metric", o.raw_metrics, "--check: also this raw metric (repeatable)");
  command->add_option("--format", o.format, "text or json")->check(CLI::IsMember({"text", "json"}));
  return {command, [options](const std::vector<std::string>&) {
            options->host_library = env_or_empty("GPUSCOPE_CUPTI_HOST_LIB");
            return run_metrics(*options);
          }};
}

}  // namespace gpuscope::cli

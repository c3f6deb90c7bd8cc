#include "importers/ncu_csv/trace_parts.h"

#include <set>

namespace gpuscope::ncu {

std::string chip_of(const std::string& cc) {
  // Compute capabilities with a single chip; the others (7.5 TU10x, 8.6 GA10x, 8.9 AD10x,
  // 12.0 GB20x) are named by their SM version rather than guessed.
  if (cc == "7.0") return "GV100";
  if (cc == "8.0") return "GA100";
  if (cc == "9.0") return "GH100";
  if (cc == "10.0") return "GB100";
  std::string sm;
  for (char c : cc)
    if (c != '.') sm += c;
  return sm.empty() ? "" : "sm_" + sm;
}

std::vector<StringId> intern_metrics(const File& file, Trace& trace) {
  std::vector<StringId> ids;
  ids.reserve(file.metric_names.size());
  for (const std::string& name : file.metric_names) ids.push_back(trace.strings.intern(name));
  return ids;
}

double launch_value(const File& file, const Launch& launch, std::string_view metric, double fallback) {
  for (const auto& [index, value] : launch.metrics)
    if (file.metric_names[index] == metric) return value;
  return fallback;
}

MetricCollection collection_row(const File& file, const std::string& path, uint32_t pid, uint64_t launches,
                                const std::string& first_compute_capability, uint32_t metrics) {
  MetricCollection c;
  c.pid = pid;
  c.kind = "kernel";
  c.status = "ok";
  c.chip = chip_of(first_compute_capability);
  c.passes = file.passes;
  c.metrics = metrics;
  c.kernels_profiled = launches;
  c.source = "ncu CSV " + path;
  return c;
}

MetricCollection collection_row(const File& file, const std::string& path, uint32_t pid, uint64_t launches) {
  std::set<uint32_t> metrics;
  for (const Launch& l : file.launches)
    for (const auto& [index, value] : l.metrics) metrics.insert(index);
  const std::string first_cc = file.launches.empty() ? "" : file.launches.front().compute_capability;
  return collection_row(file, path, pid, launches, first_cc, static_cast<uint32_t>(metrics.size()));
}

void record_skipped(const File& file, uint32_t pid, Trace& trace) {
  const Skipped& s = file.skipped;
  if (s.not_available)
    trace.data_loss.push_back({pid, "ncu_values_not_available", s.not_available,
                               "values ncu printed as n/a or left empty (not collected for that launch); left out"});
  if (s.not_numeric)
    trace.data_loss.push_back(
        {pid, "ncu_values_not_numeric", s.not_numeric,
         "text where ncu's numeric metric belongs, e.g. " + s.not_numeric_example + "; left out"});
  if (s.unmapped) {
    std::string labels;
    size_t shown = 0;
    for (const std::string& label : s.unmapped_labels) {
      if (shown++ == 5) {
        labels += " and " + std::to_string(s.unmapped_labels.size() - 5) + " more";
        break;
      }
      labels += (labels.empty() ? "" : ", ") + label;
    }
    trace.data_loss.push_back({pid, "ncu_labels_unmapped", s.unmapped,
                               "details-page values under a label with no exact Perfworks metric (" + labels +
                                   "); the raw page (--page raw) has every metric by name"});
  }
}

}  // namespace gpuscope::ncu

// --page details: a row per (launch, metric) with "Section Name", "Metric Name", "Metric Unit"
// and "Metric Value" (the row ends there); rule rows (a "Rule Name", no metric) are skipped. A metric name with "__"
// is a Perfworks name (--metrics, or --print-metric-name name); a label such as "Duration" is
// taken under the Perfworks name its section defines (details_labels.cpp), else counted.
#include <unordered_map>

#include "common/error.h"
#include "gpuscope/metric_sets.h"
#include "importers/ncu_csv/page_readers.h"
#include "importers/ncu_csv/units.h"

namespace gpuscope::ncu {

void read_details_page(const std::vector<std::string>& header, CsvReader& reader, File& file) {
  const LaunchColumns launch_columns(header);
  const int section_col = column(header, "Section Name");
  const size_t name_col = static_cast<size_t>(column(header, "Metric Name"));
  const int unit_col = column(header, "Metric Unit");
  const size_t value_col = static_cast<size_t>(column(header, "Metric Value"));

  std::unordered_map<uint64_t, size_t> launch_of;  // ncu's ID -> index in file.launches
  // Labels already looked up: (section + '\n' + label) -> metric index (-1 when unmapped) and
  // gpuscope's description of the metric (null when it has none).
  struct Mapped {
    int64_t index = -1;
    const MetricInfo* known = nullptr;
  };
  std::unordered_map<std::string, Mapped> mapped;
  std::vector<std::string> row;
  while (reader.next(row)) {
    // ncu ends a metric's row after "Metric Value" (the rule columns left out, 16 fields of 20);
    // a row without its value is cut short.
    if (row.size() <= value_col || row.size() > header.size()) check_width(row, header.size(), reader);
    row.resize(header.size());
    const std::string& label = row[name_col];
    if (label.empty()) continue;  // a rule's row
    const std::string section = section_col >= 0 ? row[static_cast<size_t>(section_col)] : std::string();

    Launch probe;
    launch_columns.fill(row, probe);
    auto [at, fresh] = launch_of.try_emplace(probe.id, file.launches.size());
    if (fresh) file.launches.push_back(std::move(probe));
    Launch& launch = file.launches[at->second];

    const std::string key = section + '\n' + label;
    auto [it, first] = mapped.try_emplace(key);
    if (first) {
      const std::string name = label.find("__") != std::string::npos ? label : perfworks_name(section, label);
      if (!name.empty()) it->second = {file.metric_index(name), find_metric(name)};
    }
    const Value v = parse_value(row[value_col]);
    if (v.kind == ValueKind::Missing) {
      ++file.skipped.not_available;
    } else if (it->second.index < 0) {
      // No exact Perfworks name: counted, never guessed. Text values (a cache configuration) too.
      ++file.skipped.unmapped;
      file.skipped.unmapped_labels.insert(section.empty() ? label : section + ": " + label);
    } else if (v.kind == ValueKind::Text) {
      if (file.skipped.not_numeric++ == 0)
        file.skipped.not_numeric_example = label + " = \"" + row[value_col] + "\" (line " +
                                           std::to_string(reader.line()) + ")";
    } else {
      const std::string unit = unit_col >= 0 ? row[static_cast<size_t>(unit_col)] : std::string();
      if (it->second.known && !unit_fits(unit, it->second.known->unit))
        throw Error("line " + std::to_string(reader.line()) + ": " + label + " in '" + unit + "', not " +
                    unit_kind(it->second.known->unit) + " (a damaged or edited file)");
      launch.metrics.emplace_back(static_cast<uint32_t>(it->second.index), v.number * unit_scale(unit));
    }
  }
}

}  // namespace gpuscope::ncu

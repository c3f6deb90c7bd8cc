// --page raw: a header of column names, a units row (the "ID" cell empty), then a row per
// launch with a column per metric. Each metric column has one unit for all its rows.
#include <algorithm>

#include "common/error.h"
#include "gpuscope/metric_sets.h"
#include "importers/ncu_csv/page_readers.h"
#include "importers/ncu_csv/units.h"

namespace gpuscope::ncu {

namespace {

constexpr std::string_view kDeviceAttribute = "device__attribute_";

struct MetricColumn {
  size_t column = 0;
  uint32_t metric = 0;  // File::metric_names index
  double scale = 1;     // unit_scale of the column's unit
  bool device_attribute = false;
  // Text in it is wrong (counted), not a text-valued metric such as a cache configuration or
  // the device's display name: it has a unit, or gpuscope knows it as a number.
  bool numeric = false;
};

// About how many values the whole page holds: its bytes times the first row's values per byte,
// a quarter over. Rows differ by their kernel name and numbers' digits (and n/a cells); a
// reservation is never written past its rows, so too much costs address space, not memory
// (RSS), while too little lets the vector double (briefly its rows twice over).
size_t estimated_values(const CsvReader& reader, size_t first_row_values) {
  const size_t input_bytes = std::min(reader.input_size_hint(), CsvReader::kMaxTotalBytes);
  const double values_per_byte = static_cast<double>(first_row_values) / std::max<size_t>(reader.record_bytes(), 1);
  return static_cast<size_t>(static_cast<double>(input_bytes) * values_per_byte * 1.25);
}

}  // namespace

void read_raw_page(const std::vector<std::string>& header, CsvReader& reader, File& file) {
  const LaunchColumns launch_columns(header);
  std::vector<std::string> row;
  const bool more = reader.next(row);
  // The units row: an empty "ID". Without one (never seen, but cheap to allow) every unit is base.
  std::vector<std::string> units(header.size());
  bool pending = more;
  if (more) {
    check_width(row, header.size(), reader);
    if (launch_columns.id >= 0 && row[static_cast<size_t>(launch_columns.id)].empty()) {
      units = row;
      pending = false;
    }
  }

  std::vector<MetricColumn> metrics;
  for (size_t c = 0; c < header.size(); ++c) {
    const std::string& name = header[c];
    // Perfworks names are unit__counter...; anything else is a launch column or one ncu added.
    if (launch_columns.is_launch_column(static_cast<int>(c)) || name.find("__") == std::string::npos) continue;
    MetricColumn m;
    m.column = c;
    m.device_attribute = name.rfind(kDeviceAttribute, 0) == 0;
    if (!m.device_attribute) m.metric = file.metric_index(name);
    m.scale = unit_scale(units[c]);
    const MetricInfo* known = m.device_attribute ? nullptr : find_metric(name);
    if (known && !unit_fits(units[c], known->unit))
      throw Error("line " + std::to_string(reader.line()) + ": " + name + " in '" + units[c] + "', not " +
                  unit_kind(known->unit) + " (a damaged or edited file)");
    m.numeric = !units[c].empty() || known != nullptr;
    metrics.push_back(m);
  }

  while (pending || reader.next(row)) {
    pending = false;
    check_width(row, header.size(), reader);
    Launch launch;
    launch_columns.fill(row, launch);
    launch.metrics.reserve(metrics.size());
    for (const MetricColumn& m : metrics) {
      const std::string& cell = row[m.column];
      const Value v = parse_value(cell);
      if (v.kind == ValueKind::Number) {
        if (m.device_attribute)
          file.device_attributes[launch.device][header[m.column].substr(kDeviceAttribute.size())] = v.number * m.scale;
        else launch.metrics.emplace_back(m.metric, v.number * m.scale);
      } else if (v.kind == ValueKind::Missing) {
        ++file.skipped.not_available;
      } else if (m.device_attribute && header[m.column] == "device__attribute_display_name") {
        file.device_names[launch.device] = cell;
      } else if (m.numeric) {
        if (file.skipped.not_numeric++ == 0)
          file.skipped.not_numeric_example = header[m.column] + " = \"" + cell + "\" (line " +
                                             std::to_string(reader.line()) + ")";
      }
    }
    if (file.sink && file.counts.read == 0) file.sink->expect_values(estimated_values(reader, launch.metrics.size()));
    file.add_launch(std::move(launch));  // to the sink, if any: launches are not held
  }
}

}  // namespace gpuscope::ncu

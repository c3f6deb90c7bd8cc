// How a hardware metric's value is shown: its unit in gpuscope/metric_sets.h mapped onto the
// report's units, for the diff and check tables. Counts of sectors, cycles and instructions
// read as counts; ratios and per-cycle or per-second rates as plain numbers (their meaning is
// in the metric's label); a metric the table does not know is a plain number.
#pragma once

#include <string_view>

#include "gpuscope/metric_sets.h"
#include "report/model.h"

namespace gpuscope::report {

inline Unit report_unit(MetricUnit unit) {
  switch (unit) {
    case MetricUnit::Nanoseconds: return Unit::Ns;
    case MetricUnit::Percent: return Unit::Percent;
    case MetricUnit::Bytes: return Unit::Bytes;
    case MetricUnit::BytesPerSecond: return Unit::BytesPerSecond;
    case MetricUnit::Sectors:
    case MetricUnit::Count:
    case MetricUnit::Cycles: return Unit::Count;
    case MetricUnit::Ratio:
    case MetricUnit::PerCycle:
    case MetricUnit::PerSecond: return Unit::Plain;
  }
  return Unit::Plain;
}

inline Unit metric_unit(std::string_view metric) {
  const MetricInfo* info = find_metric(metric);
  return info ? report_unit(info->unit) : Unit::Plain;
}

}  // namespace gpuscope::report

// The two page readers behind read_file (ncu_file.cpp), and what they share: the columns that
// say which launch a row belongs to, found by their header names.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "importers/ncu_csv/csv_reader.h"
#include "importers/ncu_csv/ncu_file.h"

namespace gpuscope::ncu {

// The position of the column called `name` in `header`; -1 when there is none.
int column(const std::vector<std::string>& header, std::string_view name);

// Where ncu's launch columns are in one header; -1 when the file has no such column.
struct LaunchColumns {
  int id = -1, pid = -1, process = -1, host = -1, kernel = -1, context = -1, stream = -1, device = -1, cc = -1,
      block = -1, grid = -1;
  explicit LaunchColumns(const std::vector<std::string>& header);
  // Fills `launch` from `row` (as many fields as the header; checked by the caller).
  void fill(const std::vector<std::string>& row, Launch& launch) const;
  bool is_launch_column(int column) const;
};

// Throws Error when `row` has a field count other than the header's (a row cut short).
void check_width(const std::vector<std::string>& row, size_t width, const CsvReader& reader);

// The raw page after its header: the units row, then a row per launch.
void read_raw_page(const std::vector<std::string>& header, CsvReader& reader, File& file);

// The details page after its header: a row per (launch, metric).
void read_details_page(const std::vector<std::string>& header, CsvReader& reader, File& file);

// The Perfworks name behind a details-page label in `section`, where ncu's section files name
// exactly one metric for it; "" when there is none (details_labels.cpp).
std::string perfworks_name(std::string_view section, std::string_view label);

}  // namespace gpuscope::ncu

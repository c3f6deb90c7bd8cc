// Report model helpers shared by the builders.
#include "report/model.h"

#include "report/units.h"

namespace gpuscope::report {

void limit_rows(Table& table, size_t top) {
  if (top == 0 || table.rows.size() <= top) return;
  table.omitted_rows = table.rows.size() - top;
  table.rows.resize(top);
  table.notes.push_back(plural(table.omitted_rows, "more row", "more rows") + " not shown (--top 0 shows all).");
}

std::string plural(size_t n, const std::string& one, const std::string& many) {
  return format_count(static_cast<double>(n)) + " " + (n == 1 ? one : many);
}

}  // namespace gpuscope::report

// Private helper: collect durations under a key, then describe each group.
// std::map keeps keys ordered, so iteration (and thus output) is deterministic.
#pragma once

#include <algorithm>
#include <map>
#include <vector>

#include "gpuscope/analysis_stats.h"

namespace gpuscope::analysis::detail {

template <typename Key>
class DurationGroups {
 public:
  void add(const Key& key, TimeNs ns) { samples_[key].push_back(static_cast<double>(ns)); }

  // Calls fn(key, stats) for each group in key order.
  template <typename Fn>
  void for_each(Fn&& fn) const {
    for (const auto& [key, values] : samples_) fn(key, describe(values));
  }

 private:
  std::map<Key, std::vector<double>> samples_;
};

// The report-wide row order: total time descending, then name ascending.
template <typename Row, typename TotalFn, typename NameFn>
void sort_by_total_then_name(std::vector<Row>& rows, TotalFn total, NameFn name) {
  std::stable_sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) {
    if (total(a) != total(b)) return total(a) > total(b);
    return name(a) < name(b);
  });
}

}  // namespace gpuscope::analysis::detail

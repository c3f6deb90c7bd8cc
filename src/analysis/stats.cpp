// Descriptive statistics and interval unions (see gpuscope/analysis_stats.h).
#include <algorithm>
#include <bit>
#include <cmath>

#include "analysis/radix_sort.h"
#include "gpuscope/analysis_stats.h"

namespace gpuscope::analysis {
namespace {

// std::sort's result, sooner for the usual sample (durations): for doubles without a sign bit
// and not NaN, the bit patterns order as the values do and equal values have equal bits, so the
// radix sort's sequence is the same, bit for bit. Anything else (negatives, -0.0, NaN) keeps
// std::sort.
void sort_values(std::vector<double>& values) {
  const bool non_negative = std::none_of(values.begin(), values.end(),
                                         [](double v) { return std::signbit(v) || std::isnan(v); });
  if (non_negative) radix_sort(values, [](double v) { return std::bit_cast<uint64_t>(v); });
  else std::sort(values.begin(), values.end());
}

}  // namespace

Stats describe(std::vector<double> values) {
  Stats s;
  if (values.empty()) return s;
  sort_values(values);
  s.count = values.size();
  for (double v : values) s.total += v;
  s.mean = s.total / static_cast<double>(s.count);
  s.min = values.front();
  s.max = values.back();
  const size_t mid = s.count / 2;
  s.median = (s.count % 2 == 1) ? values[mid] : (values[mid - 1] + values[mid]) / 2.0;
  if (s.count >= 2) {
    // Two-pass (deviations from the mean) to avoid cancellation with large ns values.
    double squares = 0;
    for (double v : values) squares += (v - s.mean) * (v - s.mean);
    s.stddev = std::sqrt(squares / static_cast<double>(s.count - 1));
  }
  if (s.mean != 0) s.cv_percent = s.stddev / std::fabs(s.mean) * 100.0;
  return s;
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  const size_t mid = values.size() / 2;
  const auto middle = values.begin() + static_cast<ptrdiff_t>(mid);
  std::nth_element(values.begin(), middle, values.end());
  if (values.size() % 2 == 1) return *middle;
  // Even count: the other middle value is the largest of the lower half.
  return (*std::max_element(values.begin(), middle) + *middle) / 2.0;
}

double percentile_sorted(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const size_t rank = static_cast<size_t>(std::ceil(q * static_cast<double>(sorted.size())));
  return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

TimeNs union_length(std::vector<Interval> intervals) {
  std::erase_if(intervals, [](const Interval& i) { return i.end <= i.start; });
  if (intervals.empty()) return 0;
  radix_sort(intervals, [](const Interval& i) { return time_key(i.start); });  // ties' order: no matter
  TimeNs covered = 0;
  TimeNs run_start = intervals.front().start;
  TimeNs run_end = intervals.front().end;
  for (const Interval& i : intervals) {
    if (i.start <= run_end) {  // overlapping or touching: extend the current run
      run_end = std::max(run_end, i.end);
    } else {
      covered += run_end - run_start;
      run_start = i.start;
      run_end = i.end;
    }
  }
  return covered + (run_end - run_start);
}

}  // namespace gpuscope::analysis

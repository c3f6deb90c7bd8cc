// Small numeric building blocks shared by every analysis: descriptive
// statistics over a sample, and the length of a union of time intervals.
// Pure functions, no CUDA, no I/O.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "gpuscope/model.h"

namespace gpuscope::analysis {

// Descriptive statistics of one sample. Values keep the unit of the input
// (ns for durations); cv_percent is unitless. An empty sample gives all zeros.
struct Stats {
  size_t count = 0;
  double total = 0;
  double mean = 0;
  double median = 0;  // mean of the two middle values when count is even
  double min = 0;
  double max = 0;
  double stddev = 0;      // sample standard deviation (n - 1); 0 when count < 2
  double cv_percent = 0;  // stddev / mean * 100; 0 when mean is 0
};

// Takes the sample by value because it sorts it (for the median).
// The total is summed in sorted order so the same multiset gives the same bits.
Stats describe(std::vector<double> values);

// A half-open interval [start, end) in ns. Intervals with end <= start are empty.
struct Interval {
  TimeNs start = 0;
  TimeNs end = 0;
};

// Total time covered by at least one interval: overlapping, nested and
// touching intervals count once. This is how "busy" time is defined.
TimeNs union_length(std::vector<Interval> intervals);

// Duration of [start, end), clamped at 0 for unfinished or inverted records.
inline TimeNs duration(TimeNs start, TimeNs end) { return end > start ? end - start : 0; }

// part / whole * 100, or nullopt when whole is not positive (share undefined).
inline std::optional<double> share_percent(double part, double whole) {
  if (!(whole > 0)) return std::nullopt;
  return part / whole * 100.0;
}

}  // namespace gpuscope::analysis

// Small numeric building blocks shared by every analysis: descriptive
// statistics over a sample, and the length of a union of time intervals.
// Pure functions, no CUDA, no I/O.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
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

// describe(values).median, without sorting the whole sample: the middle order statistics are
// the same values whatever algorithm finds them, so the result is bit-identical. 0 when empty.
double median(std::vector<double> values);

// Nearest-rank percentile of an ascending sample: the smallest value with at least the fraction
// q (0..1) of the sample at or below it. 0 when empty.
double percentile_sorted(const std::vector<double>& sorted, double q);

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

// A record with valid times: started (start > 0) and not inverted (end >= start). Records
// without them enter no time (the timeline layout, tracks.h, counts them as untimed).
inline bool timed(TimeNs start, TimeNs end) { return start > 0 && end >= start; }

// a + b, held at the int64 limits instead of overflowing. For sums of durations: validation
// (importers/validate.cpp) keeps every time within [-2^60, 2^62] ns, so one duration fits, but
// two records each lasting that whole span (1.25 * 2^62 ns) already sum past 2^63. A held sum
// (292 years) is shown as it is; it never wraps to a negative time.
inline TimeNs add_saturated(TimeNs a, TimeNs b) {
  TimeNs sum = 0;
  if (!__builtin_add_overflow(a, b, &sum)) return sum;
  return b > 0 ? std::numeric_limits<TimeNs>::max() : std::numeric_limits<TimeNs>::min();
}

// a - b, held at the int64 limits likewise.
inline TimeNs subtract_saturated(TimeNs a, TimeNs b) {
  TimeNs difference = 0;
  if (!__builtin_sub_overflow(a, b, &difference)) return difference;
  return b < 0 ? std::numeric_limits<TimeNs>::max() : std::numeric_limits<TimeNs>::min();
}

// A time computed in double (a sum or a scaled value) as TimeNs, held at the int64 limits: a
// double outside them does not convert (undefined behaviour, INT64_MIN on x86). NaN gives 0.
inline TimeNs saturated_ns(double ns) {
  constexpr double kTwoTo63 = 9223372036854775808.0;
  if (!(ns == ns)) return 0;
  if (ns >= kTwoTo63) return std::numeric_limits<TimeNs>::max();
  if (ns < -kTwoTo63) return std::numeric_limits<TimeNs>::min();
  return static_cast<TimeNs>(ns);
}

// span * part / whole for part <= whole, the product in 128 bits: span * part alone may pass 2^63.
inline TimeNs scale_ns(TimeNs span, uint64_t part, uint64_t whole) {
  return static_cast<TimeNs>(static_cast<__int128>(span) * part / whole);
}

// part / whole * 100, or nullopt when whole is not positive (share undefined).
inline std::optional<double> share_percent(double part, double whole) {
  if (!(whole > 0)) return std::nullopt;
  return part / whole * 100.0;
}

}  // namespace gpuscope::analysis

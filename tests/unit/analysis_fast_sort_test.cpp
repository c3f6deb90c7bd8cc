// The analyses' faster sorts and medians give exactly what std::sort and describe() gave
// (analysis/radix_sort.h, analysis::median): reports must not change by a bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <random>

#include "analysis/radix_sort.h"
#include "gpuscope/analysis_stats.h"

namespace gpuscope::analysis {
namespace {

// Durations as describe() gets them (whole ns), some repeated, plus fractions and zeros.
std::vector<double> sample(size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> v;
  for (size_t i = 0; i < n; ++i) {
    switch (rng() % 4) {
      case 0: v.push_back(static_cast<double>(rng() % 50'000'000)); break;
      case 1: v.push_back(static_cast<double>(rng() % 100)); break;
      case 2: v.push_back(static_cast<double>(rng() % 1'000'000) / 7.0); break;
      default: v.push_back(0.0);
    }
  }
  return v;
}

TEST(RadixSort, NonNegativeDoublesSortAsStdSortDoes) {
  for (size_t n : {0, 1, 5, 1023, 1024, 5000, 100'000}) {
    std::vector<double> expected = sample(n, static_cast<unsigned>(n));
    std::vector<double> got = expected;
    std::sort(expected.begin(), expected.end());
    radix_sort(got, [](double v) { return std::bit_cast<uint64_t>(v); });
    ASSERT_EQ(got.size(), expected.size());
    for (size_t i = 0; i < n; ++i)
      ASSERT_EQ(std::bit_cast<uint64_t>(got[i]), std::bit_cast<uint64_t>(expected[i])) << i;
  }
}

TEST(RadixSort, IntervalsByStartIncludingNegativeTimes) {
  std::mt19937_64 rng(7);
  std::vector<Interval> v;
  for (int i = 0; i < 4000; ++i) {
    const TimeNs start = static_cast<TimeNs>(rng() % 2'000'000'000) - 1'000'000'000;
    v.push_back({start, start + 10});
  }
  radix_sort(v, [](const Interval& i) { return time_key(i.start); });
  EXPECT_TRUE(
      std::is_sorted(v.begin(), v.end(), [](const Interval& a, const Interval& b) { return a.start < b.start; }));
}

TEST(AnalysisStats, DescribeOfALargeSampleSumsInSortedOrder) {
  std::vector<double> v = sample(50'000, 3);
  std::vector<double> sorted = v;
  std::sort(sorted.begin(), sorted.end());
  double total = 0;
  for (double x : sorted) total += x;
  const Stats s = describe(v);
  EXPECT_EQ(std::bit_cast<uint64_t>(s.total), std::bit_cast<uint64_t>(total));
  EXPECT_EQ(s.min, sorted.front());
  EXPECT_EQ(s.max, sorted.back());
}

TEST(AnalysisStats, DescribeWithNegativeValuesStillSorts) {
  std::vector<double> v = sample(3000, 4);
  v[10] = -5.5;
  v[20] = -0.0;
  const Stats s = describe(v);
  EXPECT_EQ(s.min, -5.5);
  EXPECT_EQ(s.count, 3000u);
}

TEST(AnalysisStats, MedianIsDescribesMedian) {
  EXPECT_EQ(median({}), 0);
  for (size_t n : {1, 2, 3, 4, 7, 1000, 1001, 40'000, 40'001}) {
    const std::vector<double> v = sample(n, static_cast<unsigned>(n) + 11);
    EXPECT_EQ(std::bit_cast<uint64_t>(median(v)), std::bit_cast<uint64_t>(describe(v).median)) << n;
  }
}

}  // namespace
}  // namespace gpuscope::analysis

// Two-sample statistics behind `gpuscope diff` and `gpuscope check`: is the
// "new" sample really different from the "base" sample, by how much, and how
// sure are we? Pure functions, no I/O, deterministic (the bootstrap uses a
// fixed-seed generator of our own, so the same input gives the same bytes on
// every machine and standard library). docs/diff.md explains the choices.
//
// Units: samples are in whatever unit the caller uses (ns for durations);
// changes are in percent of the base median.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gpuscope::analysis {

// Percentile-bootstrap confidence interval of the relative change of medians,
// 100 * (median(new) / median(base) - 1), in percent. low/high are NaN when
// undefined (an empty sample, or a base median of 0 in some resample).
struct ChangeInterval {
  double low = 0;
  double high = 0;
  size_t resamples = 0;  // bootstrap resamples actually drawn
};

inline constexpr uint64_t kBootstrapSeed = 0x9e3779b97f4a7c15ull;  // the resamples' default stream

// level is the coverage (0.95 for a 95% interval). 2000 resamples; each
// resample's median is drawn from its exact order-statistic distribution in
// O(1) (compare_stats.cpp), so the cost does not grow with the sample. seed
// selects the stream; the default is what diff uses.
ChangeInterval bootstrap_median_change(const std::vector<double>& base, const std::vector<double>& next,
                                       double level = 0.95, uint64_t seed = kBootstrapSeed);

namespace detail {
// For tests: `count` medians of bootstrap resamples of `sorted` (ascending),
// drawn the way bootstrap_median_change draws them.
std::vector<double> resampled_medians(const std::vector<double>& sorted, size_t count, uint64_t seed);
}  // namespace detail

// Wilcoxon-Mann-Whitney rank-sum test, two-sided.
struct RankTest {
  double u = 0;        // U of the new sample: pairs (new, base) with new > base, ties count 1/2
  double p_value = 1;  // two-sided; 1 when the test has no information (all values tied)
  bool exact = false;  // true: the exact permutation distribution (with ties, midranks)
};

// Exact permutation p-value when C(n1 + n2, n1) <= kExactLimit (handles ties
// exactly: the statistic is the midrank sum, enumerated over all splits);
// otherwise the normal approximation with tie correction and a 0.5 continuity
// correction. Either sample empty: U = 0, p = 1.
RankTest mann_whitney(const std::vector<double>& base, const std::vector<double>& next);
inline constexpr uint64_t kExactLimit = 200000;

// Cliff's delta: P(new > base) - P(new < base), in [-1, 1]. Positive: new tends
// to be larger (for durations: slower). 0 for an empty sample.
double cliffs_delta(const std::vector<double>& base, const std::vector<double>& next);

// Two-sided 95% confidence interval of the mean of independent measurements
// (Student's t, n - 1 degrees of freedom): for whole runs of a bench, where
// each run is one value. NaN bounds for fewer than 2 values.
struct MeanInterval {
  double low = 0, high = 0;
};
MeanInterval mean_ci95(const std::vector<double>& values);

// ---- The verdict --------------------------------------------------------------

enum class Verdict {
  Faster,    // significant and practically relevant improvement
  Slower,    // significant and practically relevant regression
  NoChange,  // no significant (or no practically relevant) difference
  TooFew,    // fewer than min_samples on one side: no claim either way
  OnlyBase,  // the item exists only in the base capture
  OnlyNew    // the item exists only in the new capture
};
const char* to_string(Verdict verdict);

struct CompareOptions {
  double alpha = 0.05;            // significance level of the rank test
  double min_change_percent = 2;  // |change of medians| below this is "no change"
  size_t min_samples = 3;         // per side; below it the verdict is TooFew
  double ci_level = 0.95;
};

// Everything diff shows for one item. Durations: lower is better; pass
// higher_is_better for throughput-like samples (bandwidth).
struct Comparison {
  size_t base_count = 0, new_count = 0;
  double base_median = 0, new_median = 0;
  double change_percent = 0;  // 100 * (new_median / base_median - 1); NaN when base median is 0
  ChangeInterval ci;          // NaN bounds when not computed (TooFew, or undefined)
  RankTest test;
  double cliffs_delta = 0;
  bool significant = false;  // p < alpha, the CI excludes 0 and |change| >= min_change_percent
  Verdict verdict = Verdict::NoChange;
};

Comparison compare_samples(const std::vector<double>& base, const std::vector<double>& next,
                           const CompareOptions& options, bool higher_is_better = false);

}  // namespace gpuscope::analysis

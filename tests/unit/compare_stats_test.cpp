// Two-sample statistics (gpuscope/analysis_compare.h) against hand-computed
// values, a brute-force permutation test, and synthetic samples with a known
// shift, ties, tiny samples, one sample and zero variance.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "gpuscope/analysis_compare.h"

namespace gpuscope::analysis {
namespace {

// Normal samples from a fixed-seed generator (test-local, so tests do not
// depend on the library's own generator).
class Normal {
 public:
  explicit Normal(uint64_t seed) : state_(seed) {}
  double operator()(double mean, double sd) {
    const double u1 = (static_cast<double>(next() >> 11) + 0.5) / 9007199254740992.0;
    const double u2 = (static_cast<double>(next() >> 11) + 0.5) / 9007199254740992.0;
    return mean + sd * std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
  }

 private:
  uint64_t next() {
    state_ = state_ * 6364136223846793005ull + 1442695040888963407ull;
    return state_ ^ (state_ >> 29);
  }
  uint64_t state_;
};

std::vector<double> normal_sample(Normal& gen, size_t n, double mean, double sd) {
  std::vector<double> v;
  for (size_t i = 0; i < n; ++i) v.push_back(gen(mean, sd));
  return v;
}

// Independent check of the exact test: enumerate every split of the pooled
// values into (base, new) groups and count rank-sum statistics as extreme as
// the observed one (U via pairwise comparisons, no ranks involved).
double brute_force_p(const std::vector<double>& base, const std::vector<double>& next) {
  std::vector<double> pooled = base;
  pooled.insert(pooled.end(), next.begin(), next.end());
  const size_t n = pooled.size(), k = next.size();
  auto u_of = [&](uint32_t mask) {
    double u = 0;
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < n; ++j)
        if ((mask >> i & 1) && !(mask >> j & 1)) u += pooled[i] > pooled[j] ? 1 : pooled[i] == pooled[j] ? 0.5 : 0;
    return u;
  };
  const double mean = static_cast<double>(k * (n - k)) / 2;
  uint32_t observed_mask = 0;
  for (size_t i = base.size(); i < n; ++i) observed_mask |= 1u << i;
  const double observed = std::fabs(u_of(observed_mask) - mean);
  double extreme = 0, total = 0;
  for (uint32_t mask = 0; mask < (1u << n); ++mask) {
    if (static_cast<size_t>(__builtin_popcount(mask)) != k) continue;
    ++total;
    if (std::fabs(u_of(mask) - mean) >= observed - 1e-9) ++extreme;
  }
  return extreme / total;
}

TEST(MannWhitney, ExactForSeparatedTinySamples) {
  RankTest t = mann_whitney({1, 2, 3, 4}, {5, 6, 7, 8});
  EXPECT_TRUE(t.exact);
  EXPECT_EQ(t.u, 16);
  EXPECT_NEAR(t.p_value, 2.0 / 70.0, 1e-12);  // only the two most extreme of C(8,4) splits
  // Three against three can never reach p < 0.05: the smallest p is 2 / C(6,3).
  EXPECT_NEAR(mann_whitney({1, 2, 3}, {4, 5, 6}).p_value, 0.1, 1e-12);
}

TEST(MannWhitney, ExactWithTiesMatchesBruteForce) {
  const std::vector<std::pair<std::vector<double>, std::vector<double>>> cases = {
      {{1, 1, 2, 2, 3}, {2, 3, 3, 4, 4}},
      {{5, 5, 5, 6}, {5, 6, 6, 6, 7}},
      {{10, 20, 20, 30, 30, 30}, {20, 30, 40, 40}},
      {{1, 2, 3, 4, 5, 6}, {3.5, 4.5, 5.5, 6.5, 7.5, 8.5}},
  };
  for (const auto& [base, next] : cases) {
    RankTest t = mann_whitney(base, next);
    EXPECT_TRUE(t.exact);
    EXPECT_NEAR(t.p_value, brute_force_p(base, next), 1e-12);
  }
}

TEST(MannWhitney, NormalApproximationWithTieCorrection) {
  std::vector<double> base, next;
  for (int i = 1; i <= 20; ++i) base.push_back(i);
  for (int i = 11; i <= 30; ++i) next.push_back(i);
  RankTest t = mann_whitney(base, next);
  EXPECT_FALSE(t.exact);  // C(40, 20) splits: too many to enumerate
  EXPECT_EQ(t.u, 350);
  // Hand computation: var = 20*20/12 * (41 - 10*(2^3-2)/(40*39)), z = (150 - 0.5)/sqrt(var).
  EXPECT_NEAR(t.p_value, 5.212549620603763e-05, 1e-12);
}

TEST(MannWhitney, AllTiedOrEmptyGivesNoInformation) {
  EXPECT_EQ(mann_whitney({7, 7, 7}, {7, 7, 7, 7}).p_value, 1);
  EXPECT_EQ(mann_whitney({}, {1, 2}).p_value, 1);
}

TEST(CliffsDelta, CountsDominancePairs) {
  EXPECT_NEAR(cliffs_delta({1, 2, 3}, {2, 3, 4}), 5.0 / 9.0, 1e-12);
  EXPECT_EQ(cliffs_delta({1, 2}, {3, 4}), 1);
  EXPECT_EQ(cliffs_delta({3, 4}, {1, 2}), -1);
  EXPECT_EQ(cliffs_delta({5, 5}, {5, 5, 5}), 0);
}

TEST(Bootstrap, CoversTheTrueShiftAndIsDeterministic) {
  Normal gen(42);
  auto base = normal_sample(gen, 60, 1000, 20);
  auto next = normal_sample(gen, 60, 1050, 20);  // +5 %
  ChangeInterval a = bootstrap_median_change(base, next);
  ChangeInterval b = bootstrap_median_change(base, next);
  EXPECT_EQ(a.low, b.low);
  EXPECT_EQ(a.high, b.high);
  EXPECT_EQ(a.resamples, 2000u);
  EXPECT_LT(a.low, 5.0);
  EXPECT_GT(a.high, 5.0);
  EXPECT_GT(a.low, 0.0);
}

// P(Binomial(n, p) >= k), summed directly.
double binomial_tail(int n, double p, int k) {
  double total = 0;
  for (int i = k; i <= n; ++i)
    total += std::exp(std::lgamma(n + 1) - std::lgamma(i + 1) - std::lgamma(n - i + 1) + i * std::log(p) +
                      (n - i) * std::log1p(-p));
  return total;
}

// The O(1) resampled median must have the distribution of "resample n values,
// take the median": for odd n, P(median <= x_(j)) = P(Binomial(n, j/n) >= (n+1)/2).
TEST(Bootstrap, ResampledMediansHaveTheExactDistribution) {
  std::vector<double> odd;
  for (int i = 1; i <= 21; ++i) odd.push_back(i);
  const auto medians = detail::resampled_medians(odd, 100000, 1);
  for (int j : {6, 9, 11, 13, 16}) {
    const double empirical = std::count_if(medians.begin(), medians.end(), [&](double m) { return m <= j; }) / 1e5;
    EXPECT_NEAR(empirical, binomial_tail(21, j / 21.0, 11), 0.01) << j;
  }
  // Even n: the mean of two order statistics, checked against plain resampling.
  std::vector<double> even;
  for (int i = 1; i <= 20; ++i) even.push_back(i * i);  // skewed, so the two middles matter
  const auto fast = detail::resampled_medians(even, 100000, 2);
  std::vector<double> slow;
  uint64_t state = 99;
  for (int r = 0; r < 100000; ++r) {
    std::vector<double> sample;
    for (int i = 0; i < 20; ++i) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      sample.push_back(even[(state >> 33) % 20]);
    }
    std::sort(sample.begin(), sample.end());
    slow.push_back((sample[9] + sample[10]) / 2);
  }
  auto quantile = [](std::vector<double> v, double q) {
    std::sort(v.begin(), v.end());
    return v[static_cast<size_t>(q * (v.size() - 1))];
  };
  for (double q : {0.025, 0.25, 0.5, 0.75, 0.975}) EXPECT_NEAR(quantile(fast, q), quantile(slow, q), 6.0) << q;
  double mean_fast = 0, mean_slow = 0;
  for (size_t i = 0; i < fast.size(); ++i) mean_fast += fast[i] / 1e5, mean_slow += slow[i] / 1e5;
  EXPECT_NEAR(mean_fast, mean_slow, 1.0);
}

TEST(Bootstrap, LargeSamplesAreCheap) {
  Normal gen(5);
  auto base = normal_sample(gen, 200000, 1000, 30);
  auto next = normal_sample(gen, 200000, 1010, 30);
  ChangeInterval ci = bootstrap_median_change(base, next);
  EXPECT_EQ(ci.resamples, 2000u);
  EXPECT_LT(ci.low, 1.0);
  EXPECT_GT(ci.high, 1.0);
  EXPECT_LT(ci.high - ci.low, 0.2);
}

TEST(Bootstrap, ConstantSamplesGiveAPointInterval) {
  ChangeInterval ci = bootstrap_median_change({100, 100, 100}, {110, 110, 110, 110});
  EXPECT_NEAR(ci.low, 10.0, 1e-9);
  EXPECT_NEAR(ci.high, 10.0, 1e-9);
  EXPECT_TRUE(std::isnan(bootstrap_median_change({0, 0, 0}, {1, 1, 1}).low));  // change undefined
  EXPECT_TRUE(std::isnan(bootstrap_median_change({}, {1}).low));
}

TEST(CompareSamples, KnownShiftIsSlowerWithTheRightNumbers) {
  Normal gen(7);
  auto base = normal_sample(gen, 50, 1000, 10);
  auto next = normal_sample(gen, 50, 1050, 10);
  Comparison c = compare_samples(base, next, {});
  EXPECT_EQ(c.verdict, Verdict::Slower);
  EXPECT_NEAR(c.change_percent, 5.0, 0.6);
  EXPECT_LT(c.test.p_value, 1e-6);
  EXPECT_GT(c.cliffs_delta, 0.9);
  // Bandwidth-like samples: larger is better.
  EXPECT_EQ(compare_samples(base, next, {}, /*higher_is_better=*/true).verdict, Verdict::Faster);
  EXPECT_EQ(compare_samples(next, base, {}).verdict, Verdict::Faster);
}

TEST(CompareSamples, SmallRealShiftBelowThePracticalThresholdIsNoChange) {
  Normal gen(11);
  auto base = normal_sample(gen, 400, 1000, 2);
  auto next = normal_sample(gen, 400, 1005, 2);  // +0.5 %: very significant, practically irrelevant
  Comparison c = compare_samples(base, next, {});
  EXPECT_LT(c.test.p_value, 1e-6);
  EXPECT_GT(c.ci.low, 0);
  EXPECT_EQ(c.verdict, Verdict::NoChange);
  CompareOptions strict;
  strict.min_change_percent = 0;
  EXPECT_EQ(compare_samples(base, next, strict).verdict, Verdict::Slower);
}

TEST(CompareSamples, TinySamplesAndOneSample) {
  Comparison one = compare_samples({100}, {200}, {});
  EXPECT_EQ(one.verdict, Verdict::TooFew);
  EXPECT_NEAR(one.change_percent, 100.0, 1e-9);  // shown, but no claim
  EXPECT_TRUE(std::isnan(one.test.p_value));
  EXPECT_TRUE(std::isnan(one.ci.low));
  EXPECT_EQ(compare_samples({1, 2}, {5, 6, 7}, {}).verdict, Verdict::TooFew);
  // Three against three, fully separated, +100 %: the exact test cannot reach 0.05.
  Comparison three = compare_samples({10, 11, 12}, {20, 21, 22}, {});
  EXPECT_EQ(three.verdict, Verdict::NoChange);
  EXPECT_NEAR(three.test.p_value, 0.1, 1e-12);
  EXPECT_EQ(compare_samples({}, {1, 2, 3}, {}).verdict, Verdict::OnlyNew);
  EXPECT_EQ(compare_samples({1, 2, 3}, {}, {}).verdict, Verdict::OnlyBase);
}

TEST(CompareSamples, ZeroVariance) {
  Comparison same = compare_samples({500, 500, 500, 500}, {500, 500, 500, 500, 500}, {});
  EXPECT_EQ(same.verdict, Verdict::NoChange);
  EXPECT_EQ(same.test.p_value, 1);
  EXPECT_EQ(same.change_percent, 0);
  EXPECT_EQ(same.cliffs_delta, 0);
  // Two different constants, five each: exact p = 2 / C(10,5), CI = [10 %, 10 %].
  Comparison shifted = compare_samples({100, 100, 100, 100, 100}, {110, 110, 110, 110, 110}, {});
  EXPECT_EQ(shifted.verdict, Verdict::Slower);
  EXPECT_NEAR(shifted.test.p_value, 2.0 / 252.0, 1e-12);
  EXPECT_NEAR(shifted.ci.low, 10.0, 1e-9);
}

// Operating characteristics on synthetic data: A/A comparisons rarely claim a
// change (false-positive rate near or below alpha), and a 5 % shift with 2 %
// noise and 30 samples per side is found nearly always.
TEST(CompareSamples, FalsePositiveRateAndPower) {
  Normal gen(2026);
  CompareOptions no_threshold;
  no_threshold.min_change_percent = 0;  // measure the test itself, not the practical threshold
  int false_positives = 0, detected = 0;
  const int trials = 200;
  for (int i = 0; i < trials; ++i) {
    auto a = normal_sample(gen, 30, 1000, 20);
    auto b = normal_sample(gen, 30, 1000, 20);
    if (compare_samples(a, b, no_threshold).significant) ++false_positives;
    auto c = normal_sample(gen, 30, 1050, 20);
    if (compare_samples(a, c, {}).verdict == Verdict::Slower) ++detected;
  }
  EXPECT_LE(false_positives, trials * 8 / 100) << false_positives;
  EXPECT_GE(detected, trials * 95 / 100) << detected;
}

}  // namespace
}  // namespace gpuscope::analysis

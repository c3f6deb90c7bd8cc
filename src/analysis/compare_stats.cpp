// Two-sample statistics (see gpuscope/analysis_compare.h and docs/diff.md).
#include <algorithm>
#include <cmath>
#include <limits>

#include "gpuscope/analysis_compare.h"
#include "gpuscope/analysis_stats.h"

namespace gpuscope::analysis {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr size_t kResamples = 2000;

// splitmix64: tiny, fast, and fully specified, so the same seed gives the same
// stream everywhere (std:: distributions are implementation-defined).
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in (0, 1): 53 random bits, offset by half a step so 0 never comes out.
  double uniform() { return (static_cast<double>(next() >> 11) + 0.5) * 0x1p-53; }
  double normal() {  // Box-Muller; one of the pair is enough here
    return std::sqrt(-2.0 * std::log(uniform())) * std::cos(6.283185307179586 * uniform());
  }
  // Gamma(shape, 1) for shape >= 1: Marsaglia & Tsang (2000).
  double gamma(double shape) {
    const double d = shape - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
    for (;;) {
      const double x = normal();
      double v = 1.0 + c * x;
      if (v <= 0) continue;
      v = v * v * v;
      if (std::log(uniform()) < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v;
    }
  }
  double beta(double a, double b) {
    const double x = gamma(a);
    return x / (x + gamma(b));
  }

 private:
  uint64_t state_;
};

// The median of one bootstrap resample of `sorted` (ascending), drawn without
// building the resample. A resample is n indices ceil(n * U_i) of n uniforms,
// and that map keeps order, so its k-th smallest value is sorted[ceil(n * U_(k)) - 1]
// with U_(k) ~ Beta(k, n - k + 1), the k-th order statistic of n uniforms. For
// even n the (k+1)-th is the smallest of the n - k uniforms above U_(k). This is
// the same distribution as resampling and sorting, at O(1) instead of O(n) per
// resample, so large samples get the full 2000 resamples.
double resampled_median(const std::vector<double>& sorted, SplitMix64& rng) {
  const size_t n = sorted.size();
  auto at = [&](double u) {
    const double index = std::ceil(u * static_cast<double>(n));
    return sorted[static_cast<size_t>(std::clamp(index, 1.0, static_cast<double>(n))) - 1];
  };
  const size_t k = (n + 1) / 2;  // odd n: the middle; even n: the lower middle
  const double u_k = n == 1 ? rng.uniform() : rng.beta(static_cast<double>(k), static_cast<double>(n - k + 1));
  if (n % 2 == 1) return at(u_k);
  const double u_next = u_k + (1.0 - u_k) * (1.0 - std::pow(rng.uniform(), 1.0 / static_cast<double>(n - k)));
  return (at(u_k) + at(u_next)) / 2.0;
}

// Linear interpolation between order statistics (Hyndman-Fan type 7).
double quantile_sorted(const std::vector<double>& sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

// Midranks (1-based) of the pooled sample of two ascending samples, doubled so they are
// integers. Returns the doubled ranks of `next` and fills the tie-group sizes. The pooled order
// is a merge (a base value before an equal new one), O(n) instead of sorting the pool.
std::vector<long> doubled_midranks(const std::vector<double>& base, const std::vector<double>& next,
                                   std::vector<size_t>& tie_sizes, std::vector<long>& all_ranks) {
  std::vector<std::pair<double, bool>> pooled;  // (value, is_new), ascending
  pooled.reserve(base.size() + next.size());
  size_t b = 0, n = 0;
  while (b < base.size() || n < next.size()) {
    if (n == next.size() || (b < base.size() && base[b] <= next[n])) pooled.push_back({base[b++], false});
    else pooled.push_back({next[n++], true});
  }
  std::vector<long> new_ranks;
  new_ranks.reserve(next.size());
  all_ranks.reserve(pooled.size());
  for (size_t i = 0; i < pooled.size();) {
    size_t j = i;
    while (j < pooled.size() && pooled[j].first == pooled[i].first) ++j;
    const long doubled = static_cast<long>(i + 1 + j);  // 2 * midrank of positions i+1..j
    tie_sizes.push_back(j - i);
    for (size_t k = i; k < j; ++k) {
      all_ranks.push_back(doubled);
      if (pooled[k].second) new_ranks.push_back(doubled);
    }
    i = j;
  }
  return new_ranks;
}

std::vector<double> sorted_copy(const std::vector<double>& values) {
  std::vector<double> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  return sorted;
}

double median_sorted(const std::vector<double>& sorted) {
  const size_t mid = sorted.size() / 2;
  return sorted.size() % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2.0;
}

double binomial(size_t n, size_t k) {
  double c = 1;
  for (size_t i = 1; i <= k; ++i) c = c * static_cast<double>(n - k + i) / static_cast<double>(i);
  return c;
}

// Exact two-sided p of the (doubled) rank sum of `k` items drawn from `ranks`,
// by dynamic programming over (items chosen, sum) with probabilities as doubles.
double exact_rank_sum_p(const std::vector<long>& ranks, size_t k, long observed) {
  const long max_sum = 2L * static_cast<long>(ranks.size() * (ranks.size() + 1));
  std::vector<std::vector<double>> ways(k + 1, std::vector<double>(max_sum + 1, 0.0));
  ways[0][0] = 1;
  for (long r : ranks) {
    for (size_t j = k; j >= 1; --j)
      for (long s = max_sum; s >= r; --s) ways[j][s] += ways[j - 1][s - r];
  }
  double total = 0, mean = 0;
  for (long s = 0; s <= max_sum; ++s) {
    total += ways[k][s];
    mean += ways[k][s] * static_cast<double>(s);
  }
  mean /= total;
  const double distance = std::fabs(static_cast<double>(observed) - mean);
  double extreme = 0;
  for (long s = 0; s <= max_sum; ++s)
    if (std::fabs(static_cast<double>(s) - mean) >= distance - 1e-9) extreme += ways[k][s];
  return std::min(1.0, extreme / total);
}

// bootstrap_median_change of two ascending samples.
ChangeInterval bootstrap_sorted(const std::vector<double>& a, const std::vector<double>& b, double level,
                                uint64_t seed) {
  ChangeInterval out{kNaN, kNaN, 0};
  if (a.empty() || b.empty()) return out;
  out.resamples = kResamples;
  SplitMix64 rng(seed);
  std::vector<double> changes;
  changes.reserve(kResamples);
  for (size_t r = 0; r < kResamples; ++r) {
    const double base_median = resampled_median(a, rng);
    if (base_median == 0) return {kNaN, kNaN, out.resamples};  // relative change undefined
    changes.push_back(100.0 * (resampled_median(b, rng) / base_median - 1.0));
  }
  std::sort(changes.begin(), changes.end());
  const double tail = (1.0 - level) / 2.0;
  out.low = quantile_sorted(changes, tail);
  out.high = quantile_sorted(changes, 1.0 - tail);
  return out;
}

// mann_whitney of two ascending samples.
RankTest mann_whitney_sorted(const std::vector<double>& base, const std::vector<double>& next) {
  RankTest t;
  if (base.empty() || next.empty()) return t;
  const double n1 = static_cast<double>(base.size()), n2 = static_cast<double>(next.size());
  std::vector<size_t> ties;
  std::vector<long> all_ranks;
  const std::vector<long> new_ranks = doubled_midranks(base, next, ties, all_ranks);
  long doubled_sum = 0;
  for (long r : new_ranks) doubled_sum += r;
  t.u = static_cast<double>(doubled_sum) / 2.0 - n2 * (n2 + 1) / 2.0;
  if (ties.size() == 1) return t;  // every value equal: no information, p = 1

  const size_t total = base.size() + next.size();
  if (binomial(total, next.size()) <= static_cast<double>(kExactLimit)) {
    t.exact = true;
    t.p_value = exact_rank_sum_p(all_ranks, next.size(), doubled_sum);
    return t;
  }
  const double N = n1 + n2;
  double tie_term = 0;
  for (size_t size : ties) tie_term += std::pow(static_cast<double>(size), 3) - static_cast<double>(size);
  const double variance = n1 * n2 / 12.0 * ((N + 1) - tie_term / (N * (N - 1)));
  if (!(variance > 0)) return t;
  const double z = std::max(0.0, std::fabs(t.u - n1 * n2 / 2.0) - 0.5) / std::sqrt(variance);
  t.p_value = std::min(1.0, std::erfc(z / std::sqrt(2.0)));
  return t;
}

// cliffs_delta of two ascending samples: one walk over both, O(n + m).
double cliffs_delta_sorted(const std::vector<double>& base, const std::vector<double>& next) {
  if (base.empty() || next.empty()) return 0;
  double greater = 0, less = 0;     // pairs with new > base, new < base
  size_t below = 0, not_above = 0;  // base values < x, <= x
  for (double x : next) {
    while (below < base.size() && base[below] < x) ++below;
    while (not_above < base.size() && base[not_above] <= x) ++not_above;
    greater += static_cast<double>(below);
    less += static_cast<double>(base.size() - not_above);
  }
  return (greater - less) / (static_cast<double>(base.size()) * static_cast<double>(next.size()));
}

}  // namespace

ChangeInterval bootstrap_median_change(const std::vector<double>& base, const std::vector<double>& next, double level,
                                       uint64_t seed) {
  return bootstrap_sorted(sorted_copy(base), sorted_copy(next), level, seed);
}

RankTest mann_whitney(const std::vector<double>& base, const std::vector<double>& next) {
  return mann_whitney_sorted(sorted_copy(base), sorted_copy(next));
}

double cliffs_delta(const std::vector<double>& base, const std::vector<double>& next) {
  return cliffs_delta_sorted(sorted_copy(base), sorted_copy(next));
}

std::vector<double> detail::resampled_medians(const std::vector<double>& sorted, size_t count, uint64_t seed) {
  SplitMix64 rng(seed);
  std::vector<double> out;
  for (size_t i = 0; i < count && !sorted.empty(); ++i) out.push_back(resampled_median(sorted, rng));
  return out;
}

// 97.5th percentile of Student's t for 1..30 degrees of freedom (standard tables).
constexpr double kT975[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                            2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                            2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};

// Beyond 30 degrees of freedom: 1.96 + 2.4 / df (within 0.002 of the exact
// value for df > 30: 2.021 at 40, 2.000 at 60, 1.980 at 120).
double t975(size_t df) {
  if (df >= 1 && df <= 30) return kT975[df - 1];
  return 1.959964 + 2.4 / static_cast<double>(df);
}

MeanInterval mean_ci95(const std::vector<double>& values) {
  if (values.size() < 2) return {kNaN, kNaN};
  const Stats s = describe(values);
  const double half = t975(values.size() - 1) * s.stddev / std::sqrt(static_cast<double>(values.size()));
  return {s.mean - half, s.mean + half};
}

const char* to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::Faster: return "faster";
    case Verdict::Slower: return "slower";
    case Verdict::NoChange: return "no significant change";
    case Verdict::TooFew: return "too few samples";
    case Verdict::OnlyBase: return "only in base";
    case Verdict::OnlyNew: return "only in new";
  }
  return "?";
}

Comparison compare_samples(const std::vector<double>& base, const std::vector<double>& next,
                           const CompareOptions& options, bool higher_is_better) {
  Comparison c;
  c.base_count = base.size();
  c.new_count = next.size();
  // Sorted once here: the medians, the bootstrap, the rank test and Cliff's delta all walk
  // the sorted samples (each sorting its own copy cost most of a diff of large captures).
  const std::vector<double> sorted_base = sorted_copy(base), sorted_next = sorted_copy(next);
  c.base_median = base.empty() ? 0 : median_sorted(sorted_base);
  c.new_median = next.empty() ? 0 : median_sorted(sorted_next);
  c.change_percent = c.base_median != 0 ? 100.0 * (c.new_median / c.base_median - 1.0) : kNaN;
  c.ci = {kNaN, kNaN, 0};
  c.test.p_value = kNaN;
  if (base.empty() || next.empty()) {
    c.verdict = base.empty() ? Verdict::OnlyNew : Verdict::OnlyBase;
    return c;
  }
  if (std::min(base.size(), next.size()) < options.min_samples) {
    c.verdict = Verdict::TooFew;
    return c;
  }
  c.ci = bootstrap_sorted(sorted_base, sorted_next, options.ci_level, kBootstrapSeed);
  c.test = mann_whitney_sorted(sorted_base, sorted_next);
  c.cliffs_delta = cliffs_delta_sorted(sorted_base, sorted_next);
  const bool ci_excludes_zero = c.ci.low > 0 || c.ci.high < 0;  // false for NaN bounds
  c.significant = c.test.p_value < options.alpha && ci_excludes_zero &&
                  std::fabs(c.change_percent) >= options.min_change_percent;
  if (!c.significant) {
    c.verdict = Verdict::NoChange;
  } else {
    const bool larger = c.change_percent > 0;
    c.verdict = (larger != higher_is_better) ? Verdict::Slower : Verdict::Faster;
  }
  return c;
}

}  // namespace gpuscope::analysis

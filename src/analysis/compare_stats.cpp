// Two-sample statistics (see gpuscope/analysis_compare.h and docs/diff.md).
#include <algorithm>
#include <cmath>
#include <limits>

#include "gpuscope/analysis_compare.h"
#include "gpuscope/analysis_stats.h"

namespace gpuscope::analysis {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr size_t kMaxResamples = 2000;
constexpr size_t kMinResamples = 200;
// Resamples x (n1 + n2) budget: about a second on one core. Samples bigger
// than 10,000 values get proportionally fewer resamples (never below 200).
constexpr double kBootstrapWork = 2e7;

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
  // Uniform index in [0, n): Lemire's multiply-shift (bias < n / 2^64, irrelevant here).
  size_t below(size_t n) {
    return static_cast<size_t>((static_cast<unsigned __int128>(next()) * n) >> 64);
  }

 private:
  uint64_t state_;
};

double median_in_place(std::vector<double>& v) {
  const size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + mid, v.end());
  const double upper = v[mid];
  if (v.size() % 2 == 1) return upper;
  const double lower = *std::max_element(v.begin(), v.begin() + mid);
  return (lower + upper) / 2.0;
}

void resample(const std::vector<double>& from, std::vector<double>& into, SplitMix64& rng) {
  into.resize(from.size());
  for (double& x : into) x = from[rng.below(from.size())];
}

// Linear interpolation between order statistics (Hyndman-Fan type 7).
double quantile_sorted(const std::vector<double>& sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

// Midranks (1-based) of the pooled sample, doubled so they are integers.
// Returns the doubled ranks of `next` and fills the tie-group sizes.
std::vector<long> doubled_midranks(const std::vector<double>& base, const std::vector<double>& next,
                                   std::vector<size_t>& tie_sizes, std::vector<long>& all_ranks) {
  std::vector<std::pair<double, bool>> pooled;  // (value, is_new)
  for (double x : base) pooled.push_back({x, false});
  for (double x : next) pooled.push_back({x, true});
  std::sort(pooled.begin(), pooled.end());
  std::vector<long> new_ranks;
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

}  // namespace

ChangeInterval bootstrap_median_change(const std::vector<double>& base, const std::vector<double>& next,
                                       double level, uint64_t seed) {
  ChangeInterval out{kNaN, kNaN, 0};
  if (base.empty() || next.empty()) return out;
  const double n = static_cast<double>(base.size() + next.size());
  out.resamples = std::clamp(static_cast<size_t>(kBootstrapWork / n), kMinResamples, kMaxResamples);
  SplitMix64 rng(seed);
  std::vector<double> a, b, changes;
  changes.reserve(out.resamples);
  for (size_t r = 0; r < out.resamples; ++r) {
    resample(base, a, rng);
    resample(next, b, rng);
    const double base_median = median_in_place(a);
    if (base_median == 0) return {kNaN, kNaN, out.resamples};  // relative change undefined
    changes.push_back(100.0 * (median_in_place(b) / base_median - 1.0));
  }
  std::sort(changes.begin(), changes.end());
  const double tail = (1.0 - level) / 2.0;
  out.low = quantile_sorted(changes, tail);
  out.high = quantile_sorted(changes, 1.0 - tail);
  return out;
}

RankTest mann_whitney(const std::vector<double>& base, const std::vector<double>& next) {
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

double cliffs_delta(const std::vector<double>& base, const std::vector<double>& next) {
  if (base.empty() || next.empty()) return 0;
  std::vector<double> sorted = base;
  std::sort(sorted.begin(), sorted.end());
  double greater = 0, less = 0;  // pairs with new > base, new < base
  for (double x : next) {
    less += static_cast<double>(sorted.end() - std::upper_bound(sorted.begin(), sorted.end(), x));
    greater += static_cast<double>(std::lower_bound(sorted.begin(), sorted.end(), x) - sorted.begin());
  }
  return (greater - less) / (static_cast<double>(base.size()) * static_cast<double>(next.size()));
}

const char* cliffs_magnitude(double delta) {
  const double d = std::fabs(delta);
  if (d < 0.147) return "negligible";
  if (d < 0.33) return "small";
  if (d < 0.474) return "medium";
  return "large";
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
  c.base_median = describe(base).median;
  c.new_median = describe(next).median;
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
  c.ci = bootstrap_median_change(base, next, options.ci_level);
  c.test = mann_whitney(base, next);
  c.cliffs_delta = cliffs_delta(base, next);
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

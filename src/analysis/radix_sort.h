// Private helper: sorting large arrays by an unsigned 64-bit key, for the analyses' hot sorts
// (every duration of a describe(), every interval of a union). A least-significant-digit radix
// sort takes a few passes over the data where std::sort takes ~log2(n) (20 at a million), and
// a byte that every key shares (the high bytes of times within one run) costs no pass.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

namespace gpuscope::analysis {

// Sorts `items` by key(item), ascending and stably: items of equal keys keep their order. Small
// arrays go to std::stable_sort, where the passes' fixed cost (and the second buffer) would dominate.
template <class T, class KeyFn>
void radix_sort(std::vector<T>& items, KeyFn key) {
  constexpr size_t kMinItems = 1024;
  const size_t n = items.size();
  // Records mostly arrive in time order: checking is one pass that stops at the first item out of
  // order, where sorting is several.
  if (std::is_sorted(items.begin(), items.end(), [&](const T& a, const T& b) { return key(a) < key(b); })) return;
  if (n < kMinItems) {
    std::stable_sort(items.begin(), items.end(), [&](const T& a, const T& b) { return key(a) < key(b); });
    return;
  }
  std::array<std::array<size_t, 256>, 8> counts{};  // per byte of the key: items per value
  for (const T& item : items) {
    const uint64_t k = key(item);
    for (size_t byte = 0; byte < 8; ++byte) ++counts[byte][(k >> (8 * byte)) & 0xff];
  }
  std::vector<T> sorted(n);
  for (size_t byte = 0; byte < 8; ++byte) {
    std::array<size_t, 256>& next = counts[byte];                        // counts, then where each value goes next
    if (std::find(next.begin(), next.end(), n) != next.end()) continue;  // one value for all: in order already
    size_t offset = 0;
    for (size_t& c : next) offset += std::exchange(c, offset);
    for (const T& item : items) sorted[next[(key(item) >> (8 * byte)) & 0xff]++] = item;
    items.swap(sorted);
  }
}

// A signed time as a radix_sort key of the same order.
inline uint64_t time_key(int64_t t) { return static_cast<uint64_t>(t) ^ (uint64_t{1} << 63); }

// Any integer (a time, an id, a count) as a radix_sort key of the same order.
template <class Int>
uint64_t integer_key(Int v) {
  if constexpr (std::is_signed_v<Int>) return time_key(v);
  else return static_cast<uint64_t>(v);
}

}  // namespace gpuscope::analysis

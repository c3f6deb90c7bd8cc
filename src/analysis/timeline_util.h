// Private interval helpers for the timeline, attribution and re-timing code.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "analysis/radix_sort.h"
#include "gpuscope/analysis_stats.h"
#include "gpuscope/analysis_timeline.h"

namespace gpuscope::analysis {

// Sorted, disjoint, non-touching runs covering the same time as the input
// (empty intervals dropped). Touching intervals merge, as in union_length().
inline std::vector<Interval> merge_intervals(std::vector<Interval> in) {
  std::erase_if(in, [](const Interval& i) { return i.end <= i.start; });
  radix_sort(in, [](const Interval& i) { return time_key(i.start); });  // ties' order: no matter
  std::vector<Interval> out;
  for (const Interval& i : in) {
    if (!out.empty() && i.start <= out.back().end) out.back().end = std::max(out.back().end, i.end);
    else out.push_back(i);
  }
  return out;
}

// Length of [start, end) covered by a merged (sorted, disjoint) interval list.
inline TimeNs covered_within(const std::vector<Interval>& merged, TimeNs start, TimeNs end) {
  TimeNs total = 0;
  auto it = std::lower_bound(merged.begin(), merged.end(), start,
                             [](const Interval& i, TimeNs t) { return i.end <= t; });
  for (; it != merged.end() && it->start < end; ++it) total += std::min(it->end, end) - std::max(it->start, start);
  return total;
}

// Length of [a, b) inside [lo, hi); 0 when they do not meet.
inline TimeNs overlap_within(TimeNs a, TimeNs b, TimeNs lo, TimeNs hi) {
  return std::max<TimeNs>(0, std::min(b, hi) - std::max(a, lo));
}

// The pieces of [start, end) that no interval of a merged (sorted, disjoint) list covers.
inline std::vector<Interval> uncovered_within(const std::vector<Interval>& merged, TimeNs start, TimeNs end) {
  std::vector<Interval> out;
  auto it = std::lower_bound(merged.begin(), merged.end(), start,
                             [](const Interval& i, TimeNs t) { return i.end <= t; });
  TimeNs at = start;
  for (; it != merged.end() && it->start < end; ++it) {
    if (it->start > at) out.push_back({at, it->start});
    at = std::max(at, it->end);
  }
  if (at < end) out.push_back({at, end});
  return out;
}

// Time covered by either of two merged lists within [start, end).
inline TimeNs union_within(const std::vector<Interval>& a, const std::vector<Interval>& b, TimeNs start, TimeNs end) {
  std::vector<Interval> clipped;
  for (const auto* list : {&a, &b}) {
    auto it = std::lower_bound(list->begin(), list->end(), start,
                               [](const Interval& i, TimeNs t) { return i.end <= t; });
    for (; it != list->end() && it->start < end; ++it)
      clipped.push_back({std::max(it->start, start), std::min(it->end, end)});
  }
  return union_length(std::move(clipped));
}

// std::stable_sort, skipped when the range is in order already (records mostly arrive in time
// order, and checking is one pass where sorting a million of them is many).
template <class It, class Less>
void stable_sort_unless_sorted(It first, It last, Less less) {
  if (!std::is_sorted(first, last, less)) std::stable_sort(first, last, less);
}

// The order a stable sort by key(i) puts indices 0..n-1 in: (key, index) pairs sorted, so equal
// keys keep index order. For large records, sorting these small pairs beats moving the records.
// An integer key (a time, an id) takes the radix sort, which is stable: the same order.
template <class KeyFn>
std::vector<uint32_t> stable_order(size_t n, KeyFn key) {
  using Key = decltype(key(size_t{0}));
  std::vector<std::pair<Key, uint32_t>> keyed(n);
  for (size_t i = 0; i < n; ++i) keyed[i] = {key(i), static_cast<uint32_t>(i)};
  if constexpr (std::is_integral_v<Key>)
    radix_sort(keyed, [](const std::pair<Key, uint32_t>& k) { return integer_key(k.first); });
  else if (!std::is_sorted(keyed.begin(), keyed.end())) std::sort(keyed.begin(), keyed.end());
  std::vector<uint32_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = keyed[i].second;
  return order;
}

// key -> the last value added with that key (what std::map::operator[] assigned in order would
// hold), as one sorted array: for correlation-id lookups over a million records, no map nodes.
// add() everything, then seal() once before find().
template <class Key, class Value>
class LastByKey {
 public:
  void reserve(size_t n) { items_.reserve(n); }
  void add(Key key, Value value) { items_.push_back({key, value}); }
  void seal() {
    stable_sort_unless_sorted(items_.begin(), items_.end(),
                              [](const Item& a, const Item& b) { return a.first < b.first; });
    size_t out = 0;
    for (const Item& item : items_) {
      if (out > 0 && items_[out - 1].first == item.first) items_[out - 1] = item;
      else items_[out++] = item;
    }
    items_.resize(out);
  }
  const Value* find(Key key) const {
    auto it = std::lower_bound(items_.begin(), items_.end(), key, [](const Item& i, Key k) { return i.first < k; });
    return it != items_.end() && it->first == key ? &it->second : nullptr;
  }
  // find() of each key, by one walk along the keys in order (stable_order(): one pass when they
  // come in order already, as the correlation ids of calls in time order mostly do).
  std::vector<const Value*> find_all(const std::vector<Key>& keys) const {
    std::vector<const Value*> out(keys.size(), nullptr);
    size_t i = 0;
    for (uint32_t q : stable_order(keys.size(), [&](size_t n) { return keys[n]; })) {
      while (i < items_.size() && items_[i].first < keys[q]) ++i;
      if (i < items_.size() && items_[i].first == keys[q]) out[q] = &items_[i].second;
    }
    return out;
  }

 private:
  using Item = std::pair<Key, Value>;
  std::vector<Item> items_;
};

// classify_api() by string id, each string of the table classified once: a launch storm
// repeats a handful of call names a million times.
class ApiClasses {
 public:
  explicit ApiClasses(const StringTable& strings) : strings_(&strings) {
    classes_.reserve(strings.size());
    for (const std::string& s : strings.all()) classes_.push_back(classify_api(s));
  }
  ApiClass operator()(StringId id) const {
    return id < classes_.size() ? classes_[id] : classify_api(strings_->get(id));
  }

 private:
  const StringTable* strings_;
  std::vector<ApiClass> classes_;  // by StringId
};

}  // namespace gpuscope::analysis

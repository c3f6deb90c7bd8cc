// find_iterations() and the attribution of records to iterations; the rules
// are in gpuscope/analysis_iterations.h, the user-facing story in docs/diff.md.
#include "gpuscope/analysis_iterations.h"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>

#include "common/error.h"
#include "common/glob.h"
#include "gpuscope/analysis_stats.h"
#include "gpuscope/torch_annotations.h"

namespace gpuscope::analysis {
namespace {

std::string where(const IterationSpec& spec) { return spec.label.empty() ? "the capture" : spec.label; }

// What the capture has instead of a missing range: "ranges there: alloc, d2h, ...".
std::string names_in(const Trace& trace) {
  std::set<std::string> names;
  for (const NvtxRange& r : trace.nvtx_ranges)
    if (r.end > r.start) names.insert(trace.strings.get(r.name));
  if (names.empty()) return "it has no closed NVTX ranges";
  std::string out = "ranges there: ";
  size_t n = 0;
  for (const std::string& name : names) {
    if (n == 8) return out + fmt::format(" and {} more", names.size() - n);
    out += (n++ ? ", " : "") + name;
  }
  return out;
}

// Instances of one thread must be disjoint: a nested or overlapping instance
// would make two iterations claim the same calls.
void require_disjoint_per_thread(std::vector<Iteration> found, const IterationSpec& spec) {
  std::sort(found.begin(), found.end(), [](const Iteration& a, const Iteration& b) {
    return std::tie(a.run_id, a.pid, a.tid, a.start, a.end) < std::tie(b.run_id, b.pid, b.tid, b.start, b.end);
  });
  for (size_t i = 1; i < found.size(); ++i) {
    const Iteration &a = found[i - 1], &b = found[i];
    if (std::tie(a.run_id, a.pid, a.tid) == std::tie(b.run_id, b.pid, b.tid) && b.start < a.end)
      throw Error(fmt::format(
          "NVTX range '{}' in {}: two instances overlap on thread {} of process {} (nested push/pop or overlapping "
          "start/end); iterations must not overlap on a thread: give the outer range a name of its own",
          spec.range, where(spec), a.tid, a.pid));
  }
}

}  // namespace

Iterations find_iterations(const Trace& trace, const IterationSpec& spec) {
  Iterations it;
  IterationSummary& s = it.summary;
  s.range = spec.range;
  std::map<StringId, bool> matches;  // glob results per distinct name
  std::vector<Iteration> found;
  std::map<StringId, bool> gpu_spans;          // per domain: torch.profiler's GPU spans?
  std::optional<StringId> cpu_name, gpu_name;  // a matching range of each side, for the error
  for (const NvtxRange& r : trace.nvtx_ranges) {
    auto m = matches.find(r.name);
    if (m == matches.end()) m = matches.emplace(r.name, glob_match(spec.range, trace.strings.get(r.name))).first;
    if (!m->second) continue;
    auto gpu = gpu_spans.find(r.domain);
    if (gpu == gpu_spans.end())
      gpu = gpu_spans.emplace(r.domain, trace.strings.get(r.domain) == kGpuAnnotationDomain).first;
    if (std::optional<StringId>& first = gpu->second ? gpu_name : cpu_name; !first) first = r.name;
    if (cpu_name && gpu_name)
      throw Error(fmt::format(
          "NVTX range '{}' in {} matches both CPU ranges ('{}') and torch.profiler's GPU spans of them ('{}'), "
          "whose times are not the steps': name the CPU ones (e.g. 'ProfilerStep#*')",
          spec.range, where(spec), trace.strings.get(*cpu_name), trace.strings.get(*gpu_name)));
    it.names_.insert(r.name);
    if (r.end <= r.start) {
      ++s.unclosed;  // never closed: no duration, no interval to attribute to
      continue;
    }
    found.push_back({r.run_id, r.pid, r.tid, r.start, r.end, 0});
  }
  if (found.empty())
    throw Error(
        fmt::format("NVTX range '{}' not found in {} ({})", spec.range, where(spec),
                    s.unclosed ? fmt::format("its {} instances were never closed", s.unclosed) : names_in(trace)));
  require_disjoint_per_thread(found, spec);

  // Per process in start order: ordinals, skipping, and the warm-up hint.
  std::sort(found.begin(), found.end(), [](const Iteration& a, const Iteration& b) {
    return std::tie(a.run_id, a.pid, a.start, a.tid) < std::tie(b.run_id, b.pid, b.start, b.tid);
  });
  for (size_t first = 0; first < found.size();) {
    size_t last = first;
    while (last < found.size() && found[last].run_id == found[first].run_id && found[last].pid == found[first].pid) {
      found[last].ordinal = last - first;
      ++last;
    }
    ++s.processes;
    if (last - first >= 3) {
      std::vector<double> others;
      for (size_t k = first + 1; k < last; ++k) others.push_back(static_cast<double>(found[k].end - found[k].start));
      const double typical = median(std::move(others));
      const double ratio = typical > 0 ? static_cast<double>(found[first].end - found[first].start) / typical : 0;
      if (ratio > s.first_ratio) s.first_ratio = ratio, s.first_ratio_pid = found[first].pid;
    }
    first = last;
  }
  for (const Iteration& i : found) {
    std::optional<uint32_t> index;
    if (i.ordinal >= spec.skip) {
      index = static_cast<uint32_t>(it.kept.size());
      it.kept.push_back(i);
    }
    it.slots_[{i.run_id, i.pid}][i.tid].push_back({i.start, i.end, index});  // by start within a thread
  }
  s.found = found.size();
  s.kept = it.kept.size();
  s.skipped = s.found - s.kept;
  if (s.kept < spec.min_kept)
    throw Error(fmt::format(
        "NVTX range '{}' has {} instance{} in {}{}: {}", spec.range, s.kept, s.kept == 1 ? "" : "s", where(spec),
        spec.skip ? fmt::format(" after skipping the first {} per process", spec.skip) : "",
        spec.min_kept >= 3 ? fmt::format("a verdict needs at least {} iterations a side (with 3 a side even a complete "
                                         "separation has p = 0.1; 4 or more can be significant)",
                                         spec.min_kept)
                           : fmt::format("at least {} needed", spec.min_kept)));

  // Launch calls, for the GPU work they issued; ambiguous calls and ranges are counted once here.
  for (const ApiCall& c : trace.api_calls) {
    bool ambiguous = false;
    const std::optional<uint32_t> index = it.locate(c.run_id, c.pid, c.tid, c.start, &ambiguous);
    s.ambiguous += ambiguous;
    if (c.correlation_id != 0) it.calls_.push_back({{c.run_id, c.pid, c.correlation_id}, index});
  }
  // By key, the last call of each key kept (what a map assigned in call order would hold).
  const auto by_key = [](const auto& a, const auto& b) { return a.first < b.first; };
  if (!std::is_sorted(it.calls_.begin(), it.calls_.end(), by_key))
    std::stable_sort(it.calls_.begin(), it.calls_.end(), by_key);
  size_t unique = 0;
  for (const auto& call : it.calls_) {
    if (unique > 0 && it.calls_[unique - 1].first == call.first) it.calls_[unique - 1] = call;
    else it.calls_[unique++] = call;
  }
  it.calls_.resize(unique);
  it.index_calls();
  for (const NvtxRange& r : trace.nvtx_ranges) {
    bool ambiguous = false;
    if (!it.names_.count(r.name)) it.locate(r.run_id, r.pid, r.tid, r.start, &ambiguous);
    s.ambiguous += ambiguous;
  }
  auto launched = [&](uint32_t run, uint32_t pid, uint32_t corr) { return it.find_call({run, pid, corr}) != nullptr; };
  for (const Kernel& k : trace.kernels) s.unattributed_gpu += !launched(k.run_id, k.pid, k.correlation_id);
  for (const Memcpy& m : trace.memcpys) s.unattributed_gpu += !launched(m.run_id, m.pid, m.correlation_id);
  for (const Memset& m : trace.memsets) s.unattributed_gpu += !launched(m.run_id, m.pid, m.correlation_id);
  return it;
}

std::optional<uint32_t> Iterations::locate(uint32_t run_id, uint32_t pid, uint32_t tid, TimeNs at,
                                           bool* ambiguous) const {
  const auto process = slots_.find({run_id, pid});
  if (process == slots_.end()) return std::nullopt;
  // The thread's instance containing `at`: the last one starting at or before it, if still open at `at`.
  auto containing = [at](const std::vector<Slot>& slots) -> const Slot* {
    auto next = std::upper_bound(slots.begin(), slots.end(), at, [](TimeNs t, const Slot& s) { return t < s.start; });
    if (next == slots.begin()) return nullptr;
    --next;
    return at < next->end ? &*next : nullptr;
  };
  if (auto own = process->second.find(tid); own != process->second.end())
    if (const Slot* slot = containing(own->second)) return slot->kept;
  // Not inside its own thread's iterations: another thread's, when exactly one contains it
  // (a worker thread doing the main thread's iteration, or a start/end range opened elsewhere).
  const Slot* only = nullptr;
  for (const auto& [thread, slots] : process->second) {
    if (thread == tid) continue;
    if (const Slot* slot = containing(slots)) {
      if (only) {
        *ambiguous = true;
        return std::nullopt;
      }
      only = slot;
    }
  }
  return only ? only->kept : std::nullopt;
}

std::optional<uint32_t> Iterations::of_call(const ApiCall& call) const {
  bool ambiguous = false;
  return locate(call.run_id, call.pid, call.tid, call.start, &ambiguous);
}

std::optional<uint32_t> Iterations::of_gpu(uint32_t run_id, uint32_t pid, uint32_t correlation_id) const {
  const std::optional<uint32_t>* found = find_call({run_id, pid, correlation_id});
  return found ? *found : std::nullopt;
}

void Iterations::index_calls() {
  for (size_t begin = 0; begin < calls_.size();) {
    const auto& [run, pid, first_id] = calls_[begin].first;
    size_t end = begin;
    while (end < calls_.size() && std::get<0>(calls_[end].first) == run && std::get<1>(calls_[end].first) == pid) ++end;
    CallBlock block{{run, pid}, begin, end, first_id, {}};
    // Dense: the table costs at most 4 bytes per id, about twice the calls' own keys.
    const uint64_t span = uint64_t{std::get<2>(calls_[end - 1].first)} - first_id + 1;
    if (span <= 2 * (end - begin) + 1024 && end < UINT32_MAX) {
      block.by_id.assign(span, UINT32_MAX);
      for (size_t i = begin; i < end; ++i)
        block.by_id[std::get<2>(calls_[i].first) - first_id] = static_cast<uint32_t>(i);
    }
    call_blocks_.push_back(std::move(block));
    begin = end;
  }
}

const std::optional<uint32_t>* Iterations::find_call(const CallKey& key) const {
  const auto& [run, pid, id] = key;
  const ProcessKey process{run, pid};
  const auto block = std::lower_bound(call_blocks_.begin(), call_blocks_.end(), process,
                                      [](const CallBlock& b, const ProcessKey& p) { return b.process < p; });
  if (block == call_blocks_.end() || block->process != process || id < block->first_id) return nullptr;
  if (!block->by_id.empty()) {
    const size_t offset = id - block->first_id;
    if (offset >= block->by_id.size() || block->by_id[offset] == UINT32_MAX) return nullptr;
    return &calls_[block->by_id[offset]].second;
  }
  const auto begin = calls_.begin() + static_cast<ptrdiff_t>(block->begin);
  const auto end = calls_.begin() + static_cast<ptrdiff_t>(block->end);
  const auto found = std::lower_bound(begin, end, key,
                                      [](const auto& call, const CallKey& k) { return call.first < k; });
  return found != end && found->first == key ? &found->second : nullptr;
}

std::optional<uint32_t> Iterations::of_range(const NvtxRange& range) const {
  if (names_.count(range.name)) return std::nullopt;  // an iteration itself, not something inside one
  bool ambiguous = false;
  return locate(range.run_id, range.pid, range.tid, range.start, &ambiguous);
}

std::vector<double> Iterations::sums(const std::vector<std::pair<uint32_t, double>>& instances) const {
  std::vector<double> out(kept.size(), 0.0);
  for (const auto& [index, ns] : instances) out.at(index) += ns;
  return out;
}

std::vector<double> Iterations::durations() const {
  std::vector<double> out;
  for (const Iteration& i : kept) out.push_back(static_cast<double>(i.end - i.start));
  return out;
}

}  // namespace gpuscope::analysis

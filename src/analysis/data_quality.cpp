// Data quality: everything we know we lost. Shown in every report, because a
// summary of an incomplete capture silently understates what happened.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include "gpuscope/analysis.h"

namespace gpuscope::analysis {

namespace {

// Silence longer than this, at the end of a process that shares CUPTI with the program,
// is worth a warning: gpuscope's flush period is 0.5 s, so a CUDA-active process that
// still delivered records would not go quiet for this long.
constexpr TimeNs kSuspiciousSilenceNs = 2'000'000'000;

// The capture library's Loss records when another client took CUPTI's activity buffers or its
// callbacks: the capture then knows what it lost, and the guesses below are not repeated.
constexpr const char* kTakeovers[] = {"cupti_taken_over", "cupti_callbacks_taken_over"};

// Per pid, the start of its first call and the end of its last (API calls, synchronizations), and
// the end of its last GPU work (0: none).
struct LastRecords {
  TimeNs first_call = 0, call = 0, gpu = 0;
};
std::map<uint32_t, LastRecords> last_records_by_pid(const Trace& trace) {
  std::map<uint32_t, LastRecords> last;
  auto call = [&](uint32_t pid, TimeNs start, TimeNs end) {
    LastRecords& r = last[pid];
    if (start > 0 && (r.first_call == 0 || start < r.first_call)) r.first_call = start;
    r.call = std::max(r.call, end);
  };
  auto gpu = [&](uint32_t pid, TimeNs t) { last[pid].gpu = std::max(last[pid].gpu, t); };
  for (const ApiCall& e : trace.api_calls) call(e.pid, e.start, e.end);
  for (const Synchronization& e : trace.synchronizations) call(e.pid, e.start, e.end);
  for (const Kernel& e : trace.kernels) gpu(e.pid, e.end);
  for (const Memcpy& e : trace.memcpys) gpu(e.pid, e.end);
  for (const Memset& e : trace.memsets) gpu(e.pid, e.end);
  return last;
}

// A possible loss in a process that loaded CUPTI itself (`silent_ns` 0: none). The core API trace
// records calls from gpuscope's own callbacks, which go on when another client takes CUPTI's
// activity buffers, so there its GPU records stopping while its calls go on is the sign, and quiet
// after its last call is a program done with CUDA (torch.compile's exit takes seconds). Other
// traces take both from the activity buffers: silence from its last record to its end is the sign.
SharedCuptiSilence silence_of(const Process& p, const LastRecords& last) {
  if (p.api_trace == "core" && last.call > 0) {
    const TimeNs since = last.gpu > 0 ? last.gpu : last.first_call;  // no GPU record: its calls' span
    return {p.pid, last.call > since ? last.call - since : 0, true};
  }
  return {p.pid, p.end - std::max(last.call, last.gpu), false};
}

// Processes that ran no GPU work while a process they started (directly or not) did: torchrun,
// mpirun, srun. Importing torch loads CUPTI, and such a launcher's last CUDA call (a device
// count) comes long before its end, yet no GPU work of its own can have gone missing.
std::set<uint32_t> launchers_of_gpu_work(const Trace& trace) {
  std::set<uint32_t> working;
  for (const Kernel& e : trace.kernels) working.insert(e.pid);
  for (const Memcpy& e : trace.memcpys) working.insert(e.pid);
  for (const Memset& e : trace.memsets) working.insert(e.pid);
  std::map<uint32_t, uint32_t> parent;
  for (const Process& p : trace.processes) parent[p.pid] = p.parent_pid;
  std::set<uint32_t> launchers;
  for (uint32_t pid : working) {
    // Up the parent chain; at most one step per process, so a cycle in a damaged file ends.
    uint32_t at = pid;
    for (size_t hops = 0; hops < parent.size(); ++hops) {
      const auto up = parent.find(at);
      if (up == parent.end() || up->second == 0 || up->second == at || !parent.count(up->second)) break;
      at = up->second;
      if (!working.count(at)) launchers.insert(at);
    }
  }
  return launchers;
}

template <class Record>
void count_outside(const std::vector<Record>& records, const Run& run, OutsideRun& out) {
  for (const Record& r : records) {
    const TimeNs before = run.start - r.start, after = r.end - run.end;
    if (before <= 0 && after <= 0) continue;
    ++out.records;
    out.furthest_ns = std::max({out.furthest_ns, before, after});
  }
}

OutsideRun outside_run(const Trace& trace) {
  OutsideRun out;
  const Run& run = trace.run;
  if (run.start <= 0 || run.end <= run.start) return out;  // no launcher window (imports)
  count_outside(trace.api_calls, run, out);
  count_outside(trace.kernels, run, out);
  count_outside(trace.memcpys, run, out);
  count_outside(trace.memsets, run, out);
  count_outside(trace.synchronizations, run, out);
  count_outside(trace.nvtx_ranges, run, out);
  count_outside(trace.host_ops, run, out);
  return out;
}

}  // namespace

DataQuality assess_data_quality(const Trace& trace) {
  DataQuality q;

  // Ordered containers: the same entries in any order give the same groups.
  std::map<std::string, LossGroup> by_what;
  std::map<std::string, std::set<std::string>> details;
  for (const DataLoss& loss : trace.data_loss) {
    LossGroup& g = by_what[loss.what];
    g.what = loss.what;
    g.count += loss.count;
    if (std::find(g.pids.begin(), g.pids.end(), loss.pid) == g.pids.end()) g.pids.push_back(loss.pid);
    if (!loss.detail.empty()) details[loss.what].insert(loss.detail);
  }
  for (auto& [what, g] : by_what) {
    std::sort(g.pids.begin(), g.pids.end());
    for (const std::string& d : details[what]) g.detail += (g.detail.empty() ? "" : "; ") + d;
    q.losses.push_back(std::move(g));
  }

  for (const Process& p : trace.processes) {
    if (!p.clean_shutdown) q.truncated_pids.push_back(p.pid);
    // An empty status means the source format does not record one (imports).
    if (!p.capture_status.empty() && p.capture_status != "ok") q.capture_problems.push_back({p.pid, p.capture_status});
  }
  std::sort(q.truncated_pids.begin(), q.truncated_pids.end());
  // Where the preload library saw the takeover itself, the losses table says exactly when; the
  // silence heuristic is for captures without it.
  std::set<uint32_t> takeover_known;
  for (const DataLoss& loss : trace.data_loss)
    if (std::find(std::begin(kTakeovers), std::end(kTakeovers), loss.what) != std::end(kTakeovers))
      takeover_known.insert(loss.pid);
  const auto last_records = last_records_by_pid(trace);
  const std::set<uint32_t> launchers = launchers_of_gpu_work(trace);
  for (const Process& p : trace.processes) {
    auto it = last_records.find(p.pid);
    if (!p.cupti_shared || !p.clean_shutdown || it == last_records.end() || takeover_known.count(p.pid) ||
        launchers.count(p.pid))
      continue;
    const SharedCuptiSilence silence = silence_of(p, it->second);
    if (silence.silent_ns > kSuspiciousSilenceNs) q.shared_cupti_silences.push_back(silence);
  }
  std::sort(q.capture_problems.begin(), q.capture_problems.end(), [](const CaptureProblem& a, const CaptureProblem& b) {
    return std::tie(a.pid, a.status) < std::tie(b.pid, b.status);
  });

  q.outside_run = outside_run(trace);
  for (const CuptiOverhead& o : trace.overheads)
    q.cupti_overhead_ns = add_saturated(q.cupti_overhead_ns, duration(o.start, o.end));
  q.overhead_records = trace.overheads.size();
  q.no_cuda_activity = trace.api_calls.empty() && trace.kernels.empty() && trace.memcpys.empty() &&
                       trace.memsets.empty();
  return q;
}

}  // namespace gpuscope::analysis

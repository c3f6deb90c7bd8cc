// Executive summary: wall time, GPU busy time, and where the time went.
// Definitions (docs/report.md): busy = union per device, kernel/API/memory
// time = sums of durations, wall = launcher's run times or the event span.
#include <algorithm>
#include <limits>
#include <map>
#include <string>
#include <tuple>

#include "gpuscope/analysis.h"

namespace gpuscope::analysis {
namespace {

// Earliest start and latest end over every timed record, for traces whose
// launcher times are missing (imported files, leftover spools).
struct Span {
  TimeNs first = std::numeric_limits<TimeNs>::max();
  TimeNs last = std::numeric_limits<TimeNs>::min();
  void add(TimeNs start, TimeNs end) {
    if (start <= 0 && end <= 0) return;  // unset timestamps
    first = std::min(first, start);
    last = std::max(last, std::max(start, end));
  }
  bool empty() const { return first > last; }
};

Span event_span(const Trace& t) {
  Span s;
  for (const auto& e : t.api_calls) s.add(e.start, e.end);
  for (const auto& e : t.kernels) s.add(e.start, e.end);
  for (const auto& e : t.memcpys) s.add(e.start, e.end);
  for (const auto& e : t.memsets) s.add(e.start, e.end);
  for (const auto& e : t.synchronizations) s.add(e.start, e.end);
  for (const auto& e : t.nvtx_ranges) s.add(e.start, e.end);
  for (const auto& e : t.nvtx_marks) s.add(e.timestamp, e.timestamp);
  for (const auto& e : t.memory_events) s.add(e.timestamp, e.timestamp);
  for (const auto& e : t.overheads) s.add(e.start, e.end);
  return s;
}

}  // namespace

std::vector<Device> unique_devices(const Trace& trace) {
  std::vector<Device> out;
  for (const Device& d : trace.devices) {
    bool seen = std::any_of(out.begin(), out.end(), [&](const Device& o) {
      return d.uuid.empty() ? (o.pid == d.pid && o.id == d.id) : o.uuid == d.uuid;
    });
    if (!seen) out.push_back(d);
  }
  std::sort(out.begin(), out.end(), [](const Device& a, const Device& b) {
    return std::tie(a.id, a.uuid, a.pid) < std::tie(b.id, b.uuid, b.pid);
  });
  return out;
}

std::vector<DeviceBusy> gpu_busy_by_device(const Trace& trace) {
  // A process sees devices by ordinal; the UUID names the physical GPU, so two
  // processes sharing one GPU are unioned together.
  std::map<std::pair<uint32_t, uint32_t>, std::string> uuid_of;
  for (const Device& d : trace.devices)
    if (!d.uuid.empty()) uuid_of[{d.pid, d.id}] = d.uuid;
  auto key = [&](uint32_t pid, uint32_t device) {
    auto it = uuid_of.find({pid, device});
    if (it != uuid_of.end()) return it->second;
    return "pid:" + std::to_string(pid) + "/dev:" + std::to_string(device);
  };

  // By (pid, ordinal) first, so the key string is made once per pair rather than per record.
  std::map<std::pair<uint32_t, uint32_t>, std::vector<Interval>> per_ordinal;
  for (const auto& k : trace.kernels) per_ordinal[{k.pid, k.device}].push_back({k.start, k.end});
  for (const auto& m : trace.memcpys) per_ordinal[{m.pid, m.device}].push_back({m.start, m.end});
  for (const auto& m : trace.memsets) per_ordinal[{m.pid, m.device}].push_back({m.start, m.end});
  std::map<std::string, std::vector<Interval>> per_device;  // union_length() does not mind the order
  for (auto& [ordinal, intervals] : per_ordinal) {
    std::vector<Interval>& all = per_device[key(ordinal.first, ordinal.second)];
    all.insert(all.end(), intervals.begin(), intervals.end());
  }

  std::vector<DeviceBusy> out;
  for (auto& [device_key, intervals] : per_device) out.push_back({device_key, union_length(std::move(intervals))});
  return out;
}

ExecutiveSummary summarize_executive(const Trace& trace) {
  ExecutiveSummary s;
  std::vector<Interval> windows;
  for (const CaptureWindow& w : trace.capture_windows) windows.push_back({w.start, w.end});
  if (!windows.empty()) {
    // Only the windows were recorded: outside them the GPU's work is unknown, not idle.
    s.wall_ns = union_length(std::move(windows));
    s.wall_source = WallSource::Windows;
  } else if (trace.run.start > 0 && trace.run.end > trace.run.start) {
    s.wall_ns = trace.run.end - trace.run.start;
    s.wall_source = WallSource::Run;
  } else if (Span span = event_span(trace); !span.empty()) {
    s.wall_ns = span.last - span.first;
    s.wall_source = WallSource::EventSpan;
  }

  for (const DeviceBusy& d : gpu_busy_by_device(trace)) {
    s.gpu_busy_ns = add_saturated(s.gpu_busy_ns, d.busy_ns);
    ++s.busy_devices;
  }

  for (const auto& k : trace.kernels) s.kernel_ns = add_saturated(s.kernel_ns, duration(k.start, k.end));
  s.kernel_count = trace.kernels.size();

  const bool any_runtime = std::any_of(trace.api_calls.begin(), trace.api_calls.end(),
                                       [](const ApiCall& c) { return c.domain == ApiDomain::Runtime; });
  s.api_domain = any_runtime || trace.api_calls.empty() ? ApiDomain::Runtime : ApiDomain::Driver;
  for (const auto& c : trace.api_calls) {
    if (c.domain != s.api_domain) continue;
    s.api_ns = add_saturated(s.api_ns, duration(c.start, c.end));
    ++s.api_count;
  }

  for (const auto& m : trace.memcpys) {
    s.memcpy_ns = add_saturated(s.memcpy_ns, duration(m.start, m.end));
    s.memcpy_bytes += m.bytes;
  }
  s.memcpy_count = trace.memcpys.size();
  for (const auto& m : trace.memsets) {
    s.memset_ns = add_saturated(s.memset_ns, duration(m.start, m.end));
    s.memset_bytes += m.bytes;
  }
  s.memset_count = trace.memsets.size();

  for (const auto& y : trace.synchronizations) s.sync_wait_ns = add_saturated(s.sync_wait_ns, duration(y.start, y.end));
  s.sync_count = trace.synchronizations.size();
  return s;
}

}  // namespace gpuscope::analysis

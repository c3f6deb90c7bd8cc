// Shared by the export tests: the captures of tests/data as `gpuscope export` sees them, what
// each export must contain, and synthetic traces (a launch storm, hostile names).
#pragma once

#include <gtest/gtest.h>
#include <zlib.h>

#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>

#include "gpuscope/analysis_profiler_time.h"
#include "gpuscope/store.h"
#include "gpuscope/tracks.h"
#include "trace_builder.h"

namespace gpuscope::testing {

// The bytes of a whole gzip stream (a test failure if it is not one).
inline std::string gunzip(const std::string& data) {
  z_stream z{};
  EXPECT_EQ(inflateInit2(&z, 15 + 16), Z_OK);  // gzip wrapper
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  std::string out;
  char buf[1 << 16];
  int rc = Z_OK;
  while (rc == Z_OK) {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    rc = inflate(&z, Z_NO_FLUSH);
    out.append(buf, sizeof buf - z.avail_out);
  }
  inflateEnd(&z);
  EXPECT_EQ(rc, Z_STREAM_END) << "a complete gzip stream";
  return out;
}

inline const char* const kExportCaptures[] = {"bsr_spmm_baseline.gpuscope", "bsr_spmm_fixed.gpuscope",
                                              "bsr_spmm_metrics.gpuscope", "crash_segv.gpuscope", "spawn.gpuscope"};

// A capture of tests/data with the profiler's time cut out, as `gpuscope export` writes it.
inline Trace load_for_export(const std::string& name) {
  const Trace raw = read_trace(std::string(GPUSCOPE_TEST_DATA_DIR) + "/" + name);
  return analysis::AnalysisView(raw).trace();
}

// Slices an export must hold, by Kineto category, counted from the trace itself (timed records).
inline std::map<std::string, size_t> expected_slices(const Trace& t) {
  std::map<std::string, size_t> n;
  const auto timed = [](TimeNs start, TimeNs end) { return start > 0 && end >= start; };
  for (const Kernel& k : t.kernels) n["kernel"] += timed(k.start, k.end);
  for (const Memcpy& m : t.memcpys) n["gpu_memcpy"] += timed(m.start, m.end);
  for (const Memset& m : t.memsets) n["gpu_memset"] += timed(m.start, m.end);
  for (const ApiCall& c : t.api_calls)
    n[c.domain == ApiDomain::Driver ? "cuda_driver" : "cuda_runtime"] += timed(c.start, c.end);
  for (const NvtxRange& r : t.nvtx_ranges) n["user_annotation"] += timed(r.start, r.end);
  for (const CuptiOverhead& o : t.overheads) n["overhead"] += timed(o.start, o.end);
  // A graph replay: one slice per stream its timed nodes ran on.
  std::set<std::tuple<uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t>> replays;
  const auto replay = [&](const auto& r) {
    if (r.graph_id && r.correlation_id && timed(r.start, r.end))
      replays.insert({r.run_id, r.pid, r.graph_id, r.correlation_id, r.device, r.stream});
  };
  for (const Kernel& k : t.kernels) replay(k);
  for (const Memcpy& m : t.memcpys) replay(m);
  for (const Memset& m : t.memsets) replay(m);
  n["cuda_graph"] = replays.size();
  for (auto it = n.begin(); it != n.end();) it = it->second ? std::next(it) : n.erase(it);
  return n;
}

inline size_t total(const std::map<std::string, size_t>& counts) {
  size_t sum = 0;
  for (const auto& [cat, n] : counts) sum += n;
  return sum;
}

// `launches` launches of one kernel from one thread: each a 2.0-3.0 µs cudaLaunchKernel and a
// 1.5-3.5 µs kernel on stream 7, as a program issuing small kernels back to back produces
// (the GPU runs behind the CPU, so kernels follow each other with short gaps).
inline Trace launch_storm(size_t launches) {
  TraceBuilder b;
  const TimeNs origin = 1'700'000'000'000'000'000;
  TimeNs cpu = origin + 1000, gpu = origin;
  uint64_t noise = 12345;
  const auto next = [&](TimeNs low, TimeNs high) {  // a deterministic pseudo-random ns in [low, high)
    noise = noise * 6364136223846793005ULL + 1442695040888963407ULL;
    return low + static_cast<TimeNs>((noise >> 33) % uint64_t(high - low));
  };
  for (size_t i = 0; i < launches; ++i) {
    const TimeNs call_end = cpu + next(2000, 3000);
    const uint32_t corr = b.api("cudaLaunchKernel", cpu, call_end);
    const TimeNs start = std::max(gpu + next(100, 400), cpu + 1500);
    gpu = start + next(1500, 3500);
    b.kernel("gemm_kernel", start, gpu, corr);
    cpu = call_end + next(200, 800);
  }
  b.run(origin, std::max(cpu, gpu));
  return b.trace();
}

// CUDA graph replays, each launched by a cudaGraphLaunch: two replays of graph 3 (kernels `a`
// and `b` on stream 7, a copy on stream 9), a plain kernel between them, and one replay of
// graph 4 whose single kernel spans the whole replay; one node of graph 3 without times.
inline Trace graph_replays() {
  TraceBuilder b;
  const TimeNs t0 = 1'700'000'000'000'000'000;
  const auto node = [&](uint32_t graph, uint32_t id) -> auto& {
    Kernel& k = b.trace().kernels.back();
    k.graph_id = graph, k.graph_node_id = id;
    return k;
  };
  for (int i = 0; i < 2; ++i) {
    const TimeNs at = t0 + 10'000 * i;
    const uint32_t corr = b.api("cudaGraphLaunch", at, at + 800);
    b.kernel("a", at + 1000, at + 2000, corr);
    node(3, 1);
    b.kernel("b", at + 2100, at + 3000, corr);
    node(3, 2);
    b.copy(CopyKind::DtoD, MemoryKind::Device, 4096, at + 1200, at + 1500, corr, 9);
    b.trace().memcpys.back().graph_id = 3;
  }
  b.kernel("b", 0, 0, 1);  // an untimed node of the first replay
  node(3, 2);
  const uint32_t plain = b.api("cudaLaunchKernel", t0 + 5000, t0 + 5100);
  b.kernel("plain", t0 + 6000, t0 + 7000, plain);
  const uint32_t single = b.api("cudaGraphLaunch", t0 + 30'000, t0 + 30'500);
  b.kernel("c", t0 + 31'000, t0 + 32'000, single);
  node(4, 1);
  b.run(t0, t0 + 40'000);
  return b.trace();
}

// Names no viewer should choke on: quotes, backslashes, control characters, invalid UTF-8.
inline const std::string kHostileName = std::string("k\"er\\nel\n\t\x01\x1f </script> \xff\xfe \xc0\xaf end") + '\0' +
                                        "!";

inline Trace hostile_trace() {
  TraceBuilder b;
  const TimeNs t0 = 1'700'000'000'000'000'000;
  const uint32_t corr = b.api(kHostileName, t0 + 100, t0 + 200);
  b.kernel(kHostileName, t0 + 300, t0 + 900, corr);
  b.range(kHostileName, t0 + 50, t0 + 950);
  b.trace().processes[0].command_line = kHostileName;
  b.trace().devices[0].name = kHostileName;
  NvtxMark mark;
  mark.pid = mark.tid = 1;
  mark.name = b.trace().strings.intern(kHostileName);
  mark.timestamp = t0 + 150;
  b.trace().nvtx_marks.push_back(mark);
  return b.trace();
}

}  // namespace gpuscope::testing

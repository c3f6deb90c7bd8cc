// gpuscope_synth writes captures that read back with what was asked for, the same bytes every
// time, and that `gpuscope report` explains. The expected counts are worked out here from the
// options (see the loop in synth.cpp), not taken from the generator.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "gpuscope/store.h"
#include "synth.h"

namespace gpuscope {
namespace {

// A folder of this test process's own, removed when the tests end.
const struct Scratch {
  std::filesystem::path dir = std::filesystem::temp_directory_path() /
                              ("gpuscope_synth_test_" + std::to_string(getpid()));
  ~Scratch() { std::filesystem::remove_all(dir); }
} kScratch;

std::string scratch(const std::string& name) {
  std::filesystem::create_directories(kScratch.dir);
  return (kScratch.dir / name).string();
}

struct Output {
  int status = -1;
  std::string text;
};

// Runs a shell command; its stdout (stderr goes to the test log).
Output run(const std::string& command) {
  Output out;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return out;
  char buffer[65536];
  for (size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.text.append(buffer, n);
  out.status = pclose(pipe);
  return out;
}

Trace synthesize(const std::string& name, const std::string& args) {
  const std::string path = scratch(name);
  EXPECT_EQ(run(std::string(GPUSCOPE_SYNTH) + " -o " + path + " " + args).status, 0) << args;
  return read_trace(path);
}

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

size_t count_named(const Trace& t, const std::vector<NvtxRange>& ranges, const std::string& name) {
  return std::count_if(ranges.begin(), ranges.end(), [&](const NvtxRange& r) { return t.strings.get(r.name) == name; });
}

void expect_storm(const Trace& t, uint64_t launches, uint64_t step) {
  const uint64_t steps = (launches + step - 1) / step;
  EXPECT_EQ(t.kernels.size(), launches);
  EXPECT_EQ(t.devices.size(), 1u);
  EXPECT_NE(t.devices.at(0).name.find("H100"), std::string::npos);
  EXPECT_EQ(t.devices.at(0).sm_count, 132u);
  ASSERT_EQ(t.processes.size(), 1u);
  EXPECT_LT(t.run.start, t.processes[0].start);
  EXPECT_LT(t.processes[0].end, t.run.end);

  // Every kernel was launched by exactly one cudaLaunchKernel call, which started before it.
  std::map<uint32_t, const ApiCall*> launch_calls;
  std::map<std::string, size_t> calls;
  for (const ApiCall& c : t.api_calls) {
    const std::string& name = t.strings.get(c.name);
    ++calls[name];
    EXPECT_LE(c.start, c.end);
    EXPECT_GE(c.start, t.processes[0].start);
    EXPECT_LE(c.end, t.processes[0].end);
    if (name == "cudaLaunchKernel") {
      EXPECT_TRUE(launch_calls.emplace(c.correlation_id, &c).second);
    }
  }
  EXPECT_EQ(launch_calls.size(), launches);
  EXPECT_EQ(calls["cudaMalloc"], steps + 2);
  EXPECT_EQ(calls["cudaFree"], steps + 2);
  EXPECT_EQ(calls["cudaMemcpy"], steps + 2);
  EXPECT_EQ(calls["cudaMemcpyAsync"], steps);
  EXPECT_EQ(calls["cudaDeviceSynchronize"], steps);
  EXPECT_EQ(calls["cudaStreamSynchronize"], steps);
  EXPECT_EQ(t.synchronizations.size(), 2 * steps);

  // Kernels: a handful of names, two streams, never overlapping on one stream.
  std::map<uint32_t, TimeNs> stream_end;
  std::map<std::string, size_t> names;
  for (const Kernel& k : t.kernels) {
    auto launch = launch_calls.find(k.correlation_id);
    ASSERT_NE(launch, launch_calls.end());
    EXPECT_LT(launch->second->start, k.start);
    EXPECT_LT(k.start, k.end);
    EXPECT_GE(k.start, stream_end[k.stream]) << "kernels overlap on stream " << k.stream;
    stream_end[k.stream] = k.end;
    EXPECT_GT(k.grid[0] * k.block[0], 0);
    EXPECT_GT(k.registers_per_thread, 0u);
    ++names[t.strings.get(k.name)];
  }
  EXPECT_EQ(stream_end.size(), 2u);
  if (launches >= 1000) {
    EXPECT_EQ(names.size(), 6u);
  }

  // NVTX: one `step` per K launches, holding that many launch calls; the nested ranges inside.
  std::vector<NvtxRange> ranges = t.nvtx_ranges;
  EXPECT_EQ(count_named(t, ranges, "step"), steps);
  EXPECT_EQ(count_named(t, ranges, "load"), steps);
  EXPECT_EQ(count_named(t, ranges, "forward"), steps);
  std::map<size_t, size_t> steps_holding;  // launches inside -> steps
  for (const NvtxRange& r : ranges) {
    if (t.strings.get(r.name) != "step") continue;
    EXPECT_EQ(r.depth, 0u);
    ++steps_holding[std::count_if(launch_calls.begin(), launch_calls.end(),
                                  [&](const auto& c) { return c.second->start >= r.start && c.second->end <= r.end; })];
  }
  std::map<size_t, size_t> expected_holding{{step, launches / step}};
  if (launches % step) expected_holding[launches % step] = 1;
  EXPECT_EQ(steps_holding, expected_holding);
  for (const NvtxRange& r : ranges) {
    if (r.depth != 1) continue;
    EXPECT_TRUE(std::any_of(ranges.begin(), ranges.end(), [&](const NvtxRange& outer) {
      return outer.depth == 0 && outer.start <= r.start && r.end <= outer.end;
    }));
  }

  // Copies: pageable in and pinned out every step, the other two flavours once.
  std::map<std::string, size_t> copies;
  for (const Memcpy& m : t.memcpys) {
    const MemoryKind host = m.kind == CopyKind::HtoD ? m.src_kind : m.dst_kind;
    ++copies[std::string(to_string(m.kind)) + " " + to_string(host)];
  }
  EXPECT_EQ(copies["HtoD pageable"], steps);
  EXPECT_EQ(copies["DtoH pinned"], steps);
  EXPECT_EQ(copies["HtoD pinned"], 1u);
  EXPECT_EQ(copies["DtoH pageable"], 1u);

  // Every allocation is freed, by address.
  std::map<uint64_t, int> live;
  for (const MemoryEvent& e : t.memory_events) live[e.address] += e.op == MemoryOp::Alloc ? 1 : -1;
  EXPECT_EQ(t.memory_events.size(), 2 * (steps + 2));
  for (const auto& [address, n] : live) EXPECT_EQ(n, 0) << std::hex << address;
}

TEST(Synth, StormReadsBackWithTheCountsAskedFor) {
  expect_storm(synthesize("storm.gpuscope", "--launches 5000 --step 50"), 5000, 50);
  expect_storm(synthesize("uneven.gpuscope", "--launches 1001 --step 100"), 1001, 100);
}

TEST(Synth, SameOptionsSameBytes) {
  synthesize("a.gpuscope", "--launches 3000");
  synthesize("b.gpuscope", "--launches 3000");
  synthesize("c.gpuscope", "--launches 3000 --seed 2");
  EXPECT_EQ(file_bytes(scratch("a.gpuscope")), file_bytes(scratch("b.gpuscope")));
  EXPECT_NE(file_bytes(scratch("a.gpuscope")), file_bytes(scratch("c.gpuscope")));
}

TEST(Synth, HostileNamesReadBackByteForByte) {
  const Trace t = synthesize("hostile.gpuscope", "--hostile");
  const auto has = [&](const std::string& text, auto&& records, auto&& field) {
    return std::any_of(records.begin(), records.end(), [&](const auto& r) { return t.strings.get(field(r)) == text; });
  };
  for (const std::string& s : synth::hostile_strings()) {
    EXPECT_TRUE(has(s, t.kernels, [](const Kernel& k) { return k.name; })) << s;
    EXPECT_TRUE(has("cuda" + s, t.api_calls, [](const ApiCall& c) { return c.name; })) << s;
    EXPECT_TRUE(has(s, t.nvtx_ranges, [](const NvtxRange& r) { return r.name; })) << s;
    EXPECT_TRUE(has(s, t.nvtx_ranges, [](const NvtxRange& r) { return r.domain; })) << s;
  }
  const auto& strings = synth::hostile_strings();
  EXPECT_NE(t.processes.at(0).command_line.find(strings[0]), std::string::npos);
  EXPECT_NE(t.devices.at(0).name.find(strings[1]), std::string::npos);
  // Some of them are not UTF-8, and control characters survive.
  EXPECT_TRUE(
      std::any_of(strings.begin(), strings.end(), [](const std::string& s) { return s.find('\xff') != s.npos; }));
  EXPECT_TRUE(
      std::any_of(strings.begin(), strings.end(), [](const std::string& s) { return s.find('\x01') != s.npos; }));
}

TEST(Synth, ReportExplainsBoth) {
  synthesize("report_storm.gpuscope", "--launches 20000");
  const Output storm = run(std::string(GPUSCOPE_BINARY) + " report " + scratch("report_storm.gpuscope"));
  EXPECT_EQ(storm.status, 0);
  EXPECT_NE(storm.text.find("cudaLaunchKernel"), std::string::npos) << storm.text;
  EXPECT_NE(storm.text.find("gemm_tile"), std::string::npos) << storm.text;
  EXPECT_NE(storm.text.find("NVIDIA H100"), std::string::npos) << storm.text;

  synthesize("report_hostile.gpuscope", "--hostile");
  const Output hostile = run(std::string(GPUSCOPE_BINARY) + " report " + scratch("report_hostile.gpuscope"));
  EXPECT_EQ(hostile.status, 0);
  EXPECT_NE(hostile.text.find("__gpuscope_pwned"), std::string::npos) << hostile.text;
}

}  // namespace
}  // namespace gpuscope

// Bad torch.profiler / Chrome JSON input: every case is one line on stderr and exit status 2
// from the CLI, and an error (never a crash or a hang) from import_bytes(). The bad files are
// made here from the real trace or by hand, so nothing large is committed.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "export/gzip.h"
#include "importers/importer.h"
#include "spool_builder.h"
#include "test_files.h"

namespace gpuscope {
namespace {

std::string event(const std::string& fields) { return R"({"traceEvents": [)" + fields + "]}"; }

// (name, bytes) of every bad input.
std::vector<std::pair<std::string, std::string>> bad_inputs() {
  const std::string plain = testing::read_text_file(testing::test_data("kineto/mlp_train.json"));
  const std::string gzip = testing::read_text_file(testing::test_data("kineto/mlp_train.json.gz"));
  std::string deep = R"({"traceEvents": [{"ph": "X", "args": {"x": )";
  deep += std::string(100000, '[');
  return {
      {"cut_in_the_middle", plain.substr(0, plain.size() / 2)},
      {"cut_inside_a_string", plain.substr(0, plain.find("aten::addmm") + 4)},
      {"gzip_cut_short", gzip.substr(0, gzip.size() * 2 / 3)},
      {"ts_is_a_string",
       event(R"({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": "12", "dur": 1})")},
      {"args_not_an_object",
       event(R"({"ph": "X", "cat": "cpu_op", "name": "op", "pid": 1, "tid": 1, "ts": 1, "dur": 1, "args": [1, 2]})")},
      {"correlation_is_a_string",
       event(
           R"({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 1, "args": {"correlation": "7"}})")},
      {"event_not_an_object", event("1")},
      {"trace_events_not_an_array", R"({"traceEvents": {"ph": "X"}})"},
      {"not_a_trace_object", R"({"a": 1})"},
      {"not_a_trace_array", "[]"},
      {"empty", ""},
      {"deeply_nested", deep},
      {"nan", event(R"({"ph": "X", "cat": "kernel", "ts": NaN, "dur": 1})")},
      {"huge_ts", event(R"({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1e999, "dur": 1})")},
      {"huge_integer",
       event(
           R"({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 1, "args": {"correlation": 123456789012345678901234567890}})")},
      {"out_of_range_id",
       event(
           R"({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 1, "args": {"stream": -5}})")},
      {"negative_duration",
       event(R"({"ph": "X", "cat": "cpu_op", "name": "op", "pid": 1, "tid": 1, "ts": 1, "dur": -1})")},
      {"no_duration", event(R"({"ph": "X", "cat": "cpu_op", "name": "op", "pid": 1, "tid": 1, "ts": 1})")},
      {"garbage_after_the_object", event("") + " trailing"},
      {"trailing_comma", R"({"traceEvents": [{"ph": "M"},]})"},
      {"bad_escape", event(R"({"ph": "X", "name": "\q"})")},
      {"control_character", event("{\"ph\": \"X\", \"name\": \"a\x01b\"}")},
      {"no_trace_events", R"({"deviceProperties": [], "schemaVersion": 1})"},
      {"binary_garbage", std::string("{\"traceEvents\": [\x00\xff\xfe", 19)},
      {"huge_base_time", R"({"baseTimeNanoseconds": 9000000000000000000, "traceEvents": [{"ph": "X", "cat": "cpu_op",)"
                         R"( "name": "op", "pid": 1, "tid": 1, "ts": 9000000000000000, "dur": 1}]})"},
  };
}

TEST(KinetoBadInput, ImportBytesReturnsAnError) {
  for (const auto& [name, bytes] : bad_inputs()) {
    Trace trace;
    const std::string error = import_bytes(bytes, trace);
    EXPECT_FALSE(error.empty()) << name;
    EXPECT_EQ(error.find('\n'), std::string::npos) << name << ": " << error;
  }
}

TEST(KinetoBadInput, CliSaysOneLineAndExits2) {
  const std::string dir = testing::scratch_dir("kineto_bad");
  for (const auto& [name, bytes] : bad_inputs()) {
    std::ofstream(dir + "/" + name + ".json", std::ios::binary) << bytes;
    const testing::CliResult r = testing::run_gpuscope(dir, "report " + name + ".json");
    EXPECT_EQ(r.exit_code, 2) << name << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << name << ": " << r.err;
    EXPECT_EQ(r.err.rfind("gpuscope: ", 0), 0u) << name << ": " << r.err;
  }
}

// A gzip bomb: 120 KB that inflate to a 32 MiB kernel name. Refused when the string passes
// 16 MiB, while it is read, not after the whole of it is in memory.
TEST(KinetoBadInput, AGzipBombIsRefusedWhileItsStringGrows) {
  const std::string bomb = gzip_bytes(
      event(R"({"ph": "X", "cat": "kernel", "name": ")" + std::string(32 << 20, 'a') + R"(", "ts": 1})"), 9);
  EXPECT_LT(bomb.size(), 200'000u);
  Trace trace;
  const std::string error = import_bytes(bomb, trace);
  EXPECT_NE(error.find("a string longer than 16 MiB"), std::string::npos) << error;
}

// A poor man's fuzzing: the real trace cut at many places and with bytes flipped imports or
// fails with one line, never crashes or hangs.
TEST(KinetoBadInput, CutsAndFlippedBytesNeverCrash) {
  const std::string plain = testing::read_text_file(testing::test_data("kineto/mlp_train.json"));
  ASSERT_FALSE(plain.empty());
  uint64_t state = 12345;  // a fixed LCG: the same cases every run
  auto next = [&]() { return (state = state * 6364136223846793005ULL + 1442695040888963407ULL) >> 33; };
  for (int i = 1; i <= 40; ++i) {
    Trace cut;
    EXPECT_FALSE(import_bytes(plain.substr(0, plain.size() * i / 41), cut).empty()) << "cut " << i;
    std::string flipped = plain;
    for (int k = 0; k < 8; ++k) flipped[next() % flipped.size()] = static_cast<char>(next() & 0xFF);
    Trace trace;
    const std::string error = import_bytes(flipped, trace);
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  }
}

// What is valid but unusual imports: an empty event list, unknown keys and categories, string
// pids (Kineto's own rows), escapes and surrogate pairs, numbers in every JSON form.
TEST(KinetoBadInput, UnusualButValidInputImports) {
  const std::string json = R"({"otherKey": {"nested": [1, 2, {"x": null}]}, "traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "op \"q\" \u00e9 \ud83d\ude00 \ud800", "pid": 1, "tid": 2, "ts": 1.5e3,
     "dur": 2E1, "args": {"External id": 4.0, "unknown": [true, false, null], "Input Dims": [[1, 2], []]}},
    {"ph": "X", "cat": "mystery", "name": "m", "pid": "Spans", "tid": "x", "ts": 0, "dur": 0},
    {"ph": "i", "name": "[memory]", "pid": 1, "tid": 2, "ts": 3, "args": {"Bytes": -64, "Device Id": 0, "Addr": 42}}
  ]})";
  Trace trace;
  ASSERT_EQ(import_bytes(json, trace), "");
  ASSERT_EQ(trace.host_ops.size(), 1u);
  const HostOp& op = trace.host_ops[0];
  EXPECT_EQ(trace.strings.get(op.name), "op \"q\" \xC3\xA9 \xF0\x9F\x98\x80 \xEF\xBF\xBD");
  EXPECT_EQ(op.start, 1'500'000);  // 1.5e3 µs
  EXPECT_EQ(op.end - op.start, 20'000);
  EXPECT_EQ(op.external_id, 4u);
  EXPECT_EQ(trace.strings.get(op.input_shapes), "[[1, 2], []]");
  ASSERT_EQ(trace.memory_events.size(), 1u);
  EXPECT_EQ(trace.memory_events[0].op, MemoryOp::Free);
  EXPECT_EQ(trace.memory_events[0].bytes, 64u);
  EXPECT_EQ(trace.run.source_tool, "torch.profiler");
  EXPECT_EQ(trace.data_loss.size(), 1u);  // the 'mystery' category, counted as skipped

  Trace empty;
  EXPECT_EQ(import_bytes(R"({"traceEvents": []})", empty), "");
  EXPECT_EQ(empty.run.source_tool, "Chrome trace");
  EXPECT_TRUE(empty.kernels.empty());
}

}  // namespace
}  // namespace gpuscope

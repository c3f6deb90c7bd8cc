// Captures with times as extreme as validation lets through. importers/validate.cpp keeps every
// time in [-2^60, 2^62] ns, so a difference of two times fits in int64; sums of many durations,
// gaps and squares need not. Real captures (tests/data) are stretched over that whole span, or
// shifted against either bound, and every command reads them as users run it. In the sanitizer
// build (scripts/sanitize.sh) UBSan aborts the CLI at the first signed overflow, which fails these
// tests; in every build the durations the reports print must stay non-negative.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>

#include "gpuscope/store.h"
#include "spool_builder.h"
#include "test_files.h"

namespace gpuscope {
namespace {

using testing::CliResult;

constexpr TimeNs kEarliest = -(TimeNs{1} << 60);  // validate.cpp's bounds
constexpr TimeNs kLatest = TimeNs{1} << 62;

// Every point in time of the trace (not durations such as ApiCount::total_ns); `end` tells a
// span's end from its start and from a point.
void for_each_time(Trace& t, const std::function<void(TimeNs&, bool end)>& f) {
  auto spans = [&](auto& records) {
    for (auto& r : records) f(r.start, false), f(r.end, true);
  };
  f(t.run.start, false), f(t.run.end, true);
  spans(t.runs), spans(t.processes), spans(t.api_calls), spans(t.kernels), spans(t.memcpys), spans(t.memsets);
  spans(t.synchronizations), spans(t.nvtx_ranges), spans(t.overheads), spans(t.gpu_metric_samples);
  spans(t.host_ops), spans(t.capture_windows);
  for (MemoryEvent& e : t.memory_events) f(e.timestamp, false);
  for (NvtxMark& m : t.nvtx_marks) f(m.timestamp, false);
}

enum class Shape { Stretched, Late, Early, Wide };

// The capture with its times mapped onto the extremes: stretched, every time scaled about the
// first so the capture spans [kEarliest, kLatest] (a 1 ms kernel of a 0.2 s run lasts ~2^54 ns);
// late and early, shifted unscaled against one bound; wide, every record from near the earliest
// time to near the latest (all overlap; two durations already sum past 2^63).
Trace extreme(const std::string& data_file, Shape shape) {
  Trace t = read_trace(std::string(GPUSCOPE_TEST_DATA_DIR) + "/" + data_file);
  TimeNs first = std::numeric_limits<TimeNs>::max(), last = std::numeric_limits<TimeNs>::min();
  for_each_time(t, [&](TimeNs& time, bool) { first = std::min(first, time), last = std::max(last, time); });
  const TimeNs scale = shape == Shape::Stretched ? (kLatest - kEarliest) / std::max<TimeNs>(1, last - first) : 1;
  for_each_time(t, [&](TimeNs& time, bool end) {
    switch (shape) {
      case Shape::Stretched: time = kEarliest + (time - first) * scale; break;
      case Shape::Late: time = kLatest - (last - time); break;
      case Shape::Early: time = kEarliest + (time - first); break;
      case Shape::Wide: time = end ? kLatest - (last - time) : kEarliest + (time - first); break;
    }
  });
  for (ApiCount& c : t.api_counts) c.total_ns = std::min(c.total_ns, kLatest / scale) * scale;
  return t;
}

struct Case {
  std::string base, next;  // tests/data files: a capture and one to diff it with
};

class ExtremeTimes : public ::testing::TestWithParam<Shape> {
 protected:
  // Writes base.gpuscope and next.gpuscope in a scratch folder; returns the folder.
  std::string write(const Case& c, const std::string& name) {
    const std::string dir = testing::scratch_dir("extreme_" + name + "_" + std::to_string(int(GetParam())));
    write_trace(dir + "/base.gpuscope", extreme(c.base, GetParam()));
    write_trace(dir + "/next.gpuscope", extreme(c.next, GetParam()));
    // No [[total]] wall: times before 0 count as unset there (executive.cpp), so the early shape
    // has no wall time and the rule would be bad input.
    std::ofstream(dir + "/rules.toml") << "[[total]]\nname = \"gpu_busy\"\nmax = \"1 s\"\n"
                                          "[[total]]\nname = \"api\"\nmax = \"1 s\"\n"
                                          "[[kernel]]\nmatch = \"*\"\nstat = \"total\"\nmax = \"1 s\"\n"
                                          "[[kernel]]\nmatch = \"*\"\nstat = \"mean\"\nmax = \"1 s\"\n"
                                          "[[baseline]]\nkind = \"any\"\nmax_slower_pct = 3\n";
    return dir;
  }

  // Every command over the pair; each must end as it does for ordinary times.
  void run_all(const std::string& dir) {
    for (const std::string format : {"text", "markdown", "json", "html"}) {
      const CliResult r = testing::run_gpuscope(dir,
                                                "report base.gpuscope --format " + format + " -o report." + format);
      EXPECT_EQ(r.exit_code, 0) << format << ": " << r.err;
    }
    for (const std::string format : {"text", "json"}) {
      const CliResult r = testing::run_gpuscope(dir, "diff base.gpuscope next.gpuscope --format " + format);
      EXPECT_EQ(r.exit_code, 0) << format << ": " << r.err;
    }
    const CliResult check = testing::run_gpuscope(dir,
                                                  "check base.gpuscope --rules rules.toml --baseline next.gpuscope "
                                                  "--junit junit.xml");
    const bool long_run = GetParam() == Shape::Stretched || GetParam() == Shape::Wide;
    if (long_run) EXPECT_EQ(check.exit_code, 1) << "the 1 s limits fail: " << check.err;
    else EXPECT_TRUE(check.exit_code == 0 || check.exit_code == 1) << check.err;  // a verdict, not bad input
    for (const std::string format : {"chrome", "perfetto"}) {
      const CliResult r = testing::run_gpuscope(dir, "export base.gpuscope --format " + format + " -o trace." + format);
      EXPECT_EQ(r.exit_code, 0) << format << ": " << r.err;
    }
  }
};

// Every time in the JSON report (a line or a table cell with unit "ns") is a duration here; none
// may be negative, as a wrapped sum would be. Returns how many it saw.
size_t expect_no_negative_times(const nlohmann::json& report) {
  size_t seen = 0;
  auto check = [&](const nlohmann::json& value, const std::string& where) {
    if (!value.is_number()) return;
    ++seen;
    EXPECT_GE(value.get<double>(), 0) << where;
  };
  for (const auto& section : report["sections"]) {
    for (const auto& line : section["lines"])
      if (line["unit"] == "ns") check(line["value"], line["key"].get<std::string>());
    for (const auto& table : section["tables"])
      for (const auto& column : table["columns"])
        if (column["unit"] == "ns")
          for (const auto& row : table["rows"])
            if (row.contains(column["key"]))
              check(row[column["key"]], table["key"].get<std::string>() + "/" + column["key"].get<std::string>());
  }
  return seen;
}

TEST_P(ExtremeTimes, KernelsCopiesAndNvtxOfARealCapture) {
  const std::string dir = write({"bsr_spmm_baseline.gpuscope", "bsr_spmm_fixed.gpuscope"}, "bsr");
  run_all(dir);
  EXPECT_GT(expect_no_negative_times(nlohmann::json::parse(testing::read_text_file(dir + "/report.json"))), 20u);
}

TEST_P(ExtremeTimes, PyTorchOpsModulesAndSteps) {
  const std::string dir = write({"pytorch/mlp_train_modules.gpuscope", "pytorch/mlp_train.gpuscope"}, "torch");
  run_all(dir);
  EXPECT_GT(expect_no_negative_times(nlohmann::json::parse(testing::read_text_file(dir + "/report.json"))), 20u);
}

TEST_P(ExtremeTimes, SeveralProcessesAndACrash) { run_all(write({"spawn.gpuscope", "crash_segv.gpuscope"}, "spawn")); }

TEST_P(ExtremeTimes, KernelMetrics) {
  run_all(write({"bsr_spmm_metrics.gpuscope", "bsr_spmm_fixed.gpuscope"}, "metrics"));
}

std::string shape_name(const ::testing::TestParamInfo<Shape>& info) {
  constexpr const char* kNames[] = {"Stretched", "Late", "Early", "Wide"};
  return kNames[int(info.param)];
}

INSTANTIATE_TEST_SUITE_P(Shapes, ExtremeTimes,
                         ::testing::Values(Shape::Stretched, Shape::Late, Shape::Early, Shape::Wide), shape_name);

}  // namespace
}  // namespace gpuscope

// gpuscope merge (gpuscope/merge.h): captures of one job, a file per rank, as one trace; clock
// alignment on the NCCL collectives they share. On the real two-H200 DDP run of tests/data/ddp:
// its two torch.profiler traces, and its gpuscope capture split into one capture per rank.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <type_traits>

#include "common/error.h"
#include "export_test_util.h"
#include "gpuscope/analysis_ranks.h"
#include "gpuscope/merge.h"
#include "gpuscope/report.h"
#include "gpuscope/store.h"
#include "gpuscope/trace_tables.h"
#include "importers/importer.h"
#include "spool_builder.h"
#include "sql_rows.h"
#include "test_files.h"

namespace gpuscope {
namespace {

using analysis::MergeInput;
using analysis::MergeOptions;
using analysis::MergeReport;

const std::string kDdp = std::string(GPUSCOPE_TEST_DATA_DIR) + "/ddp/";

// The recorded run with both ranks in one capture (pids 794: rank 0, 795: rank 1; 793 the
// torchrun launcher).
const Trace& straggler_capture() {
  static const Trace trace = [] {
    const std::string path = testing::scratch_dir("merge_real") + "/ddp_straggler.gpuscope";
    std::ofstream(path, std::ios::binary)
        << testing::gunzip(testing::read_text_file(kDdp + "ddp_straggler.gpuscope.gz"));
    return load_trace(path);
  }();
  return trace;
}

// The rows of `pids` (and, with `whole`, those of no process) as a capture of their own.
Trace split(const Trace& t, const std::set<uint32_t>& pids, bool whole) {
  Trace out;
  out.strings = t.strings;
  out.run = t.run;
  out.source_gaps = t.source_gaps;
  for_each_table(
      [&](auto& dst, const auto& src) {
        for (const auto& row : src)
          if (pids.count(row.pid) || (whole && row.pid == 0)) dst.push_back(row);
      },
      out, t);
  return out;
}

// `t` with every time moved by `shift` ns (what a host whose clock is off by that much records).
Trace shifted(const Trace& t, TimeNs shift) {
  Trace out;
  out.run = t.run;
  out.run.start += shift, out.run.end += shift;
  out.source_gaps = t.source_gaps;
  AppendMap map;
  map.shift_ns = shift;
  append_records(out, t, map);
  return out;
}

// C++20 aggregate field count: how many initializers Trace{...} takes.
struct AnyField {
  template <class T>
  operator T() const;
};
template <class T, class... A>
constexpr size_t field_count() {
  if constexpr (requires { T{A{}..., AnyField{}}; }) return field_count<T, A..., AnyField>();
  else return sizeof...(A);
}

TEST(Merge, EveryTableOfTheTraceIsListedForMerging) {
  // A new table in Trace must be listed in kRecordTableList (trace_tables.h), or merging, bench
  // runs, validation, sorting and the capture file would all leave it out.
  EXPECT_EQ(field_count<Trace>(), kTraceFields);
}

// A trace with one row in every table, all of process 7, named `name` after `padding` names (so
// the same text has another StringId in each input).
Trace every_table(const std::string& name, size_t padding, TimeNs at) {
  Trace t;
  for (size_t i = 0; i < padding; ++i) t.strings.intern("padding " + std::to_string(i));
  const StringId id = t.strings.intern(name);
  for_each_table(
      [&](auto& rows) {
        auto& row = rows.emplace_back();
        row.pid = 7;
        if constexpr (requires {
                        row.start;
                        row.end;
                      })
          row.start = at, row.end = at + 1000;
        if constexpr (requires { row.timestamp; }) row.timestamp = at;
        if constexpr (requires { row.name; }) {
          if constexpr (std::is_same_v<decltype(row.name), StringId>) row.name = id;
        }
      },
      t);
  t.kernels[0].mangled_name = id;
  t.run.start = at, t.run.end = at + 1000;
  return t;
}

// Both inputs have pid 7: the second one's rows, in every table with a pid, move to 10000007 (and
// keep their names); a table left out of the pid remap would keep pid 7 for both.
TEST(Merge, ACollidingPidIsRenamedInEveryTableAndNamesAreReinterned) {
  MergeReport report;
  const Trace merged = analysis::merge_traces({{"a.gpuscope", every_table("kernel_a", 0, 1'000)},
                                               {"b.gpuscope", every_table("kernel_b", 3, 5'000)}},
                                              {}, report);
  ASSERT_EQ(report.inputs[1].renamed.size(), 1u);
  EXPECT_EQ(report.inputs[1].renamed[0], (std::pair<uint32_t, uint32_t>{7, 10'000'007}));
  const std::string path = testing::scratch_dir("merge_pids") + "/m.gpuscope";
  write_trace(path, merged);
  size_t checked = 0;
  for (const std::string& table :
       testing::query(path,
                      "SELECT m.name FROM sqlite_master AS m, pragma_table_info(m.name) AS c WHERE m.type IN ('table', "
                      "'view') AND m.name NOT LIKE '%_packed' AND c.name = 'pid' ORDER BY m.name")) {
    EXPECT_EQ(testing::query(path, "SELECT DISTINCT pid FROM " + table + " ORDER BY pid"),
              (std::vector<std::string>{"7", "10000007"}))
        << table << ": fill it in every_table if it is new";
    ++checked;
  }
  EXPECT_GE(checked, kRecordTables);
  EXPECT_EQ(testing::query(path, "SELECT pid, name FROM kernels_named ORDER BY pid"),
            (std::vector<std::string>{"7\tkernel_a", "10000007\tkernel_b"}));
  EXPECT_EQ(testing::query(path, "SELECT pid, name FROM host_ops_named ORDER BY pid"),
            (std::vector<std::string>{"7\tkernel_a", "10000007\tkernel_b"}));
  // No host and no collectives: nothing to align on, said on stderr (warnings) and in the capture.
  ASSERT_EQ(report.warnings.size(), 1u);
  EXPECT_NE(report.warnings[0].find("merged unshifted"), std::string::npos) << report.warnings[0];
  EXPECT_EQ(testing::query(path, "SELECT pid FROM data_loss WHERE what = 'clock_unaligned'"),
            std::vector<std::string>{"10000007"});
  EXPECT_EQ(merged.run.start, 1'000);
  EXPECT_EQ(merged.run.end, 6'000);
}

// Four ranks on 4x H200 (tests/data/ddp4: rank 1 sleeps 20 ms before each of 10 backward passes):
// merged, their collectives match, rank 1 is named within 10 % of its delay, and the all-reduce
// buckets' sizes (torch.profiler's kernel arguments) give bus bandwidths among 4 ranks: 292 to
// 311 GB/s, well under the 450 GB/s of NVLink 4.
TEST(Merge, KinetoTracesOfFourRanksGiveTheStragglerAndTheBandwidth) {
  std::vector<MergeInput> inputs;
  for (int rank : {0, 1, 2, 3}) {
    const std::string file = std::string(GPUSCOPE_TEST_DATA_DIR) + "/ddp4/kineto_rank" + std::to_string(rank) +
                             ".json.gz";
    inputs.push_back({file, load_trace(file)});
  }
  MergeReport report;
  const auto r = analysis::analyze_ranks(analysis::merge_traces(inputs, {}, report));
  ASSERT_TRUE(r.has_value());
  ASSERT_EQ(r->ranks.size(), 4u);
  for (int32_t rank = 0; rank < 4; ++rank) {
    EXPECT_EQ(r->ranks[rank].rank, rank);
    EXPECT_EQ(r->ranks[rank].devices, std::vector<uint32_t>{static_cast<uint32_t>(rank)});
  }
  EXPECT_EQ(r->matched, 30u);
  ASSERT_TRUE(r->straggler.has_value());
  EXPECT_EQ(r->straggler->rank, 1);
  EXPECT_NEAR(r->straggler->late_per_step_ns, 20e6, 2e6) << r->straggler->late_per_step_ns;  // 21.66 ms
  // The traces' repeating range is DistributedDataParallel.forward, which the sleep follows: the
  // cause is measured per iteration of it, so the sleep is in.
  ASSERT_TRUE(r->straggler->cause.has_value());
  EXPECT_EQ(r->straggler->cause->kind, analysis::StragglerCauseKind::HostGaps) << r->straggler->cause->text;
  EXPECT_NEAR(r->straggler->cause->difference, 20e6, 1e6) << r->straggler->cause->text;
  size_t all_reduce_sizes = 0;
  for (const analysis::CollectiveSize& s : r->sizes) {
    if (s.kind != analysis::Collective::AllReduce) continue;
    ++all_reduce_sizes;
    EXPECT_EQ(s.ranks, 4u);
    EXPECT_GT(s.bus_bps, 250e9) << s.bytes;
    EXPECT_LT(s.bus_bps, 450e9) << s.bytes;
    EXPECT_DOUBLE_EQ(s.bus_bps, s.algorithm_bps * 1.5);  // 2(n-1)/n for 4 ranks
  }
  EXPECT_EQ(all_reduce_sizes, 3u);  // the first step's single bucket, then two bucket sizes
  EXPECT_EQ(r->link.bytes_per_s, 450e9);
}

TEST(Merge, KinetoTracesOfTwoRanksBecomeOneRunWithItsStraggler) {
  std::vector<MergeInput> inputs;
  for (int rank : {0, 1}) {
    const std::string file = kDdp + "kineto_rank" + std::to_string(rank) + ".json.gz";
    inputs.push_back({file, load_trace(file)});
  }
  MergeReport report;
  const Trace merged = analysis::merge_traces(inputs, {}, report);
  std::set<int32_t> ranks;
  std::set<uint32_t> pids;
  for (const Process& p : merged.processes) {
    if (p.rank >= 0) ranks.insert(p.rank);
    pids.insert(p.pid);
    EXPECT_EQ(p.world_size, 2);
  }
  EXPECT_EQ(ranks, (std::set<int32_t>{0, 1}));
  EXPECT_EQ(pids.size(), merged.processes.size());  // unique, whether or not the files shared a pid

  const auto r = analysis::analyze_ranks(merged);
  ASSERT_TRUE(r.has_value());
  ASSERT_EQ(r->ranks.size(), 2u);
  EXPECT_EQ(r->matched, 30u);  // 28 all-reduces (DDP's buckets) and 2 broadcasts per rank
  ASSERT_FALSE(r->collectives.empty());
  EXPECT_EQ(r->collectives[0].kind, analysis::Collective::AllReduce);
  ASSERT_TRUE(r->straggler.has_value());
  EXPECT_EQ(r->straggler->rank, 1);
  // Planted: 20 ms of sleep before each backward pass; these 10 steps measure a median of 21.25 ms
  // (the gpuscope capture of the same run: 22.7 ms over 30 steps).
  EXPECT_NEAR(r->straggler->late_per_step_ns, 21.25e6, 1e6) << r->straggler->late_per_step_ns;

  // One host, one clock: the true offset is 0. The traces say no host, so the estimate is applied;
  // it measures -21.0 µs ± 1.4 µs: not clock error but the collectives' exit skew (the rank that
  // arrived last leaves ~20 µs after the other, as in the one-clock capture, below). Causality
  // bounds the offset to -315 µs .. +228 µs, which holds the truth.
  const auto& c = report.inputs[1].clock;
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->matched, 30u);
  EXPECT_EQ(c->skipped, 0u);
  EXPECT_LT(std::llabs(c->offset_ns), 25'000) << c->offset_ns;
  EXPECT_LT(c->precision_ns, 5'000);
  ASSERT_TRUE(c->bounds.has_value());
  EXPECT_LE(c->bounds->first, 0);
  EXPECT_GE(c->bounds->second, 0);
  EXPECT_EQ(report.inputs[1].shift_ns, c->offset_ns);
  EXPECT_TRUE(report.warnings.empty());
}

struct Split {
  Trace rank0, rank1;
};

// The one-clock capture as two captures, one per rank (the launcher with rank 0), rank 1's taken
// `shift` ns late on another host's clock.
Split split_capture(TimeNs shift, const std::string& host0, const std::string& host1) {
  const Trace& whole = straggler_capture();
  Split s{split(whole, {793, 794}, true), shifted(split(whole, {795}, false), shift)};
  s.rank0.run.host = host0, s.rank1.run.host = host1;
  return s;
}

TEST(Merge, ACaptureSplitPerHostAndShiftedIsRealignedAndFindsTheStragglerAgain) {
  const auto before = analysis::analyze_ranks(straggler_capture());
  ASSERT_TRUE(before && before->straggler);
  constexpr TimeNs kShift = 3'700'000'000;  // rank 1's host clock 3.7 s ahead
  Split s = split_capture(kShift, "node-a", "node-b");
  MergeReport report;
  const Trace merged = analysis::merge_traces({{"rank0.gpuscope", s.rank0}, {"rank1.gpuscope", s.rank1}}, {}, report);
  const auto& c = report.inputs[1].clock;
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->matched, 94u);
  // Measured: -3.7 s - 20.2 µs ± 1.2 µs. The 20.2 µs are the exit skew (the late rank leaves
  // after the other; the same-host test below measures it on one clock), which the spread does not
  // show; the causal bounds (-57 µs .. +5 µs around -3.7 s) hold the truth.
  EXPECT_LT(std::llabs(c->offset_ns + kShift), 25'000) << c->offset_ns;
  EXPECT_LT(c->precision_ns, 5'000);
  ASSERT_TRUE(c->bounds.has_value());
  EXPECT_LE(c->bounds->first, -kShift);
  EXPECT_GE(c->bounds->second, -kShift);
  EXPECT_EQ(report.inputs[1].shift_ns, c->offset_ns);
  EXPECT_TRUE(report.inputs[1].renamed.empty());  // pids 793..795 do not collide
  EXPECT_TRUE(report.warnings.empty());

  const auto after = analysis::analyze_ranks(merged);
  ASSERT_TRUE(after && after->straggler);
  EXPECT_EQ(after->straggler->pid, 795u);
  EXPECT_EQ(after->matched, before->matched);
  EXPECT_EQ(after->straggler->last_count, before->straggler->last_count);
  // 22.72 ms unsplit, 22.65 ms realigned: rank 1 now ends its collectives 20 µs early.
  EXPECT_NEAR(after->straggler->late_per_step_ns, before->straggler->late_per_step_ns, 0.1e6);
  // Both halves have the launcher's window; rank 1's, realigned, starts 20 µs earlier.
  EXPECT_NEAR(static_cast<double>(merged.run.start), static_cast<double>(straggler_capture().run.start), 25'000);

  // Stored for the report: each input's line in the Run section.
  const std::string text = render_report(merged, {}, parse_report_format("text"));
  EXPECT_NE(text.find("Merged from         rank1.gpuscope: host node-b, pid 795; 94 collectives paired: offset "
                      "-3700.020 ms ± 1.2 µs"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("merged from 2 captures"), std::string::npos);
  EXPECT_NE(text.find("\nRanks\n"), std::string::npos);

  // --no-align: measured the same, not applied, and said so.
  MergeOptions no_align;
  no_align.align = false;
  analysis::merge_traces({{"rank0.gpuscope", s.rank0}, {"rank1.gpuscope", s.rank1}}, no_align, report);
  EXPECT_EQ(report.inputs[1].shift_ns, 0);
  EXPECT_NE(report.inputs[1].decision.find("not shifted (--no-align)"), std::string::npos);

  // --offset: the given shift wins over the measured one; the first input is the reference.
  MergeOptions given;
  given.offsets["rank1.gpuscope"] = -kShift;
  const Trace exact = analysis::merge_traces({{"rank0.gpuscope", s.rank0}, {"rank1.gpuscope", s.rank1}}, given, report);
  EXPECT_EQ(report.inputs[1].shift_ns, -kShift);
  EXPECT_EQ(analysis::analyze_ranks(exact)->straggler->late_per_step_ns, before->straggler->late_per_step_ns);
  given.offsets = {{"rank0.gpuscope", 5}};
  EXPECT_THROW(analysis::merge_traces({{"rank0.gpuscope", s.rank0}, {"rank1.gpuscope", s.rank1}}, given, report),
               Error);
}

// Shifts that cannot be a clock offset of one job are refused with one line: one that moves an
// input's times out of the range of a time (INT64_MAX ns), or a given one that moves them clear of
// the reference's; so are the same input twice and the same rank in two inputs.
TEST(Merge, ImpossibleShiftsTheSameInputTwiceAndCollidingRanksAreRefused) {
  constexpr TimeNs kShift = 3'700'000'000;
  Split s = split_capture(kShift, "node-a", "node-b");
  MergeReport report;
  const auto refusal = [&](const std::vector<MergeInput>& inputs, const MergeOptions& options) {
    try {
      analysis::merge_traces(inputs, options, report);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("merged");
  };
  MergeOptions options;
  options.offsets["rank1.gpuscope"] = INT64_MAX;
  EXPECT_NE(refusal({{"rank0.gpuscope", s.rank0}, {"rank1.gpuscope", s.rank1}}, options)
                .find("rank1.gpuscope: shifted by 9223372036854775807 ns, its times ("),
            std::string::npos);
  options.offsets["rank1.gpuscope"] = -kShift + 3'600'000'000'000;  // an hour off
  const std::string late = refusal({{"rank0.gpuscope", s.rank0}, {"rank1.gpuscope", s.rank1}}, options);
  EXPECT_NE(late.find("--offset rank1.gpuscope=3596300000000: shifted by that, its records end"), std::string::npos)
      << late;
  EXPECT_NE(late.find("after rank0.gpuscope's end: the wrong offset or sign, or not the same job"), std::string::npos)
      << late;
  options.offsets["rank1.gpuscope"] = -kShift - 3'600'000'000'000;
  EXPECT_NE(refusal({{"rank0.gpuscope", s.rank0}, {"rank1.gpuscope", s.rank1}}, options)
                .find("before rank0.gpuscope's begin"),
            std::string::npos);
  options.offsets["rank1.gpuscope"] = -kShift;  // the right one
  EXPECT_EQ(refusal({{"rank0.gpuscope", s.rank0}, {"rank1.gpuscope", s.rank1}}, options), "merged");

  EXPECT_EQ(refusal({{"rank0.gpuscope", s.rank0}, {"rank0.gpuscope", s.rank0}}, {}), "rank0.gpuscope: given twice");
  EXPECT_EQ(refusal({{"rank0.gpuscope", s.rank0}, {"copy.gpuscope", s.rank0}}, {}),
            "copy.gpuscope: the same capture as rank0.gpuscope (host, run and processes)");
  for (Process& p : s.rank0.processes) p.rank = p.pid == 794 ? 0 : -1;
  for (Process& p : s.rank1.processes) p.rank = 0;  // RANK=0 on both hosts: two jobs' rank 0
  EXPECT_EQ(refusal({{"rank0.gpuscope", s.rank0}, {"rank1.gpuscope", s.rank1}}, {}),
            "rank1.gpuscope: rank 0 is in rank0.gpuscope too: the same capture twice, or ranks of two jobs");
  for (Process& p : s.rank1.processes) p.rank = 1;
  EXPECT_EQ(refusal({{"rank0.gpuscope", s.rank0}, {"rank1.gpuscope", s.rank1}}, {}), "merged");
}

// Rank 1's capture lacks its first 3 all-reduces (it started late: a profiler schedule): pairing
// each kind's k-th instances would be off by three; the pairing that agrees best skips them.
TEST(Merge, ACaptureThatStartedSomeCollectivesLaterIsPairedFromWhereItStarted) {
  Split s = split_capture(1'000'000'000, "node-a", "node-b");
  size_t dropped = 0;
  std::erase_if(s.rank1.kernels, [&](const Kernel& k) {
    const analysis::Collective kind = analysis::classify_collective(s.rank1.strings.get(k.name));
    return kind == analysis::Collective::AllReduce && dropped < 3 && ++dropped;
  });
  MergeReport report;
  analysis::merge_traces({{"rank0.gpuscope", s.rank0}, {"rank1.gpuscope", s.rank1}}, {}, report);
  const auto& c = report.inputs[1].clock;
  ASSERT_TRUE(c.has_value());
  EXPECT_GE(c->skipped, 3u) << c->offset_ns << " ± " << c->precision_ns << " matched " << c->matched;
  EXPECT_GE(c->matched, 85u);
  EXPECT_LT(c->precision_ns, 5'000);
  EXPECT_LT(std::llabs(c->offset_ns + 1'000'000'000), 25'000) << c->offset_ns;
}

TEST(Merge, CapturesOfOneHostAreNotShiftedAndTheResidualIsReported) {
  const auto before = analysis::analyze_ranks(straggler_capture());
  Split s = split_capture(0, "gpu-host", "gpu-host");
  MergeReport report;
  const Trace merged = analysis::merge_traces({{"rank0.gpuscope", s.rank0}, {"rank1.gpuscope", s.rank1}}, {}, report);
  const auto& c = report.inputs[1].clock;
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(report.inputs[1].shift_ns, 0);
  // One clock: the residual is the exit skew alone, -20.2 µs ± 1.2 µs.
  EXPECT_LT(std::llabs(c->offset_ns), 25'000) << c->offset_ns;
  EXPECT_NE(report.inputs[1].decision.find("same host as rank0.gpuscope, one clock: not shifted"), std::string::npos)
      << report.inputs[1].decision;
  EXPECT_TRUE(report.warnings.empty());
  const auto after = analysis::analyze_ranks(merged);
  ASSERT_TRUE(after && after->straggler);
  EXPECT_EQ(after->straggler->late_per_step_ns, before->straggler->late_per_step_ns);  // the same times
}

TEST(Merge, ABenchCaptureOrASingleInputIsRefused) {
  Trace bench = every_table("k", 0, 1'000);
  bench.runs = {{1, 0, 10}, {2, 10, 20}};
  MergeReport report;
  EXPECT_THROW(analysis::merge_traces({{"a", every_table("k", 0, 0)}, {"bench.gpuscope", bench}}, {}, report), Error);
  EXPECT_THROW(analysis::merge_traces({{"a", every_table("k", 0, 0)}}, {}, report), Error);
  bench.runs.resize(1);  // bench -n 1: still run-stamped records
  EXPECT_THROW(analysis::merge_traces({{"a", every_table("k", 0, 0)}, {"bench.gpuscope", bench}}, {}, report), Error);
}

// The command: files in, one capture out, the table on stderr; bad input is one line and exit 2.
TEST(MergeCli, MergesFilesAndRefusesBadInputInOneLine) {
  const std::string dir = testing::scratch_dir("merge_cli");
  const std::string k0 = kDdp + "kineto_rank0.json.gz", k1 = kDdp + "kineto_rank1.json.gz";
  testing::CliResult r = testing::run_gpuscope(dir, "merge -o both " + k0 + " " + k1);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("wrote " + dir + "/both.gpuscope (2 captures, 2 processes"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("collectives"), std::string::npos) << r.err;
  const testing::CliResult report = testing::run_gpuscope(dir, "report both.gpuscope");
  EXPECT_NE(report.out.find("\nRanks\n"), std::string::npos);
  EXPECT_NE(report.out.find("Merged from"), std::string::npos);

  testing::expect_one_line_error(testing::run_gpuscope(dir, "merge -o again " + k0), "at least two", "one input");
  testing::expect_one_line_error(testing::run_gpuscope(dir, "merge -o x " + k0 + " missing.json"),
                                 "missing.json: no such file", "missing file");
  std::ofstream(dir + "/corrupt.json.gz", std::ios::binary) << testing::read_text_file(k1).substr(0, 5000);
  testing::expect_one_line_error(testing::run_gpuscope(dir, "merge -o x " + k0 + " corrupt.json.gz"), "corrupt.json.gz",
                                 "corrupt file");
  Trace bench = every_table("k", 0, 1'000);
  bench.runs = {{1, 0, 10}, {2, 10, 20}};
  write_trace(dir + "/bench.gpuscope", bench);
  testing::expect_one_line_error(testing::run_gpuscope(dir, "merge -o x " + k0 + " bench.gpuscope"), "a bench capture",
                                 "bench capture");
  testing::expect_one_line_error(testing::run_gpuscope(dir, "merge -o both " + k0 + " " + k1), "already exists",
                                 "existing output");
  testing::expect_one_line_error(testing::run_gpuscope(dir, "merge -o x --offset " + k1 + "=1.5ms " + k0 + " " + k1),
                                 "expected FILE=NS", "bad --offset");
  testing::expect_one_line_error(testing::run_gpuscope(dir, "merge -o x --offset other.json=15 " + k0 + " " + k1),
                                 "not one of the inputs", "--offset of no input");
  testing::expect_one_line_error(
      testing::run_gpuscope(dir, "merge -o x --offset " + k1 + "=9223372036854775807 " + k0 + " " + k1),
      "more than a day; the clocks of one job's hosts are not that far apart", "--offset of years");
  testing::expect_one_line_error(testing::run_gpuscope(dir, "merge -o x " + k0 + " " + k0), "given twice",
                                 "the same input twice");
  EXPECT_FALSE(std::filesystem::exists(dir + "/x.gpuscope"));

  // Two hosts and no collectives to align on: merged, with a warning line on stderr.
  Trace a = every_table("k", 0, 1'000), b = every_table("k", 0, 2'000);
  a.run.host = "node-a", b.run.host = "node-b";
  write_trace(dir + "/a.gpuscope", a);
  write_trace(dir + "/b.gpuscope", b);
  r = testing::run_gpuscope(dir, "merge -o ab a.gpuscope b.gpuscope");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("gpuscope: warning: b.gpuscope: different hosts and no collectives paired with a.gpuscope: "
                       "merged unshifted"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace gpuscope

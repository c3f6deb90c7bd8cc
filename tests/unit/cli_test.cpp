// Runs the gpuscope binary the way users do and checks exit codes and messages.
// Profiling a program that never touches CUDA works without a GPU, which lets
// the exit-status passthrough be tested on every machine.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "capture/options.h"
#include "common/older_formats.h"
#include "spool_builder.h"
#include "sql_rows.h"
#include "test_files.h"

namespace gpuscope {
namespace {

using testing::CliResult;

// Runs gpuscope in dir with ENV in front (e.g. "GPUSCOPE_INJECT_LIB=...").
CliResult gpuscope(const std::string& dir, const std::string& args, const std::string& env = "") {
  return testing::run_gpuscope(dir, args, env);
}

int lines(const std::string& text) { return static_cast<int>(std::count(text.begin(), text.end(), '\n')); }

TEST(Cli, BadInvocationsFailWithOneLine) {
  const std::string dir = testing::scratch_dir("cli_bad");
  std::ofstream(dir + "/notes.txt") << "not a capture\n";
  for (const std::string args :
       {"report missing.gpuscope", "report notes.txt", "query notes.txt 'SELECT 1'", "import -o x missing.spool"}) {
    CliResult r = gpuscope(dir, args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_EQ(lines(r.err), 1) << args << ": " << r.err;
    EXPECT_EQ(r.err.rfind("gpuscope: ", 0), 0u) << args << ": " << r.err;
  }
  EXPECT_EQ(gpuscope(dir, "").exit_code, 2);
  EXPECT_EQ(gpuscope(dir, "report").exit_code, 2);
  EXPECT_EQ(gpuscope(dir, "report x.gpuscope --format xml").exit_code, 2);
  EXPECT_EQ(gpuscope(dir, "profile").exit_code, 2);
  EXPECT_EQ(gpuscope(dir, "frobnicate").exit_code, 2);
}

// profile takes every capture option; bench those that do not replay kernels (capture/options.h).
TEST(Cli, ProfileAndBenchTakeTheOptionTablesFlags) {
  const std::string dir = testing::scratch_dir("cli_option_table");
  const std::string profile = gpuscope(dir, "profile --help").out, bench = gpuscope(dir, "bench --help").out;
  for (const capture::OptionSpec& spec : capture::capture_option_table()) {
    const std::string flag = "\n  " + capture::option_flag(spec) + " ";  // where CLI11's help lists it
    const bool in_profile = profile.find(flag) != std::string::npos, in_bench = bench.find(flag) != std::string::npos;
    EXPECT_EQ(in_profile, spec.scope != capture::OptionScope::LibraryOnly) << flag;
    EXPECT_EQ(in_bench, spec.scope == capture::OptionScope::Capture) << flag;
  }
  // bench writes the same config as profile.
  const std::string show = " -- /bin/sh -c 'echo \"$GPUSCOPE_INJECT_CONFIG\" >> cfg.txt'";
  CliResult r = gpuscope(dir, "bench -n 2 --warmup 0 --api lean --no-nccl-calls --sync-flush-ms 3" + show);
  std::ifstream in(dir + "/cfg.txt");
  std::string line;
  int runs = 0;
  for (; std::getline(in, line); ++runs)
    EXPECT_NE(line.find(";nccl_calls=0;sync_flush_ms=3;api=lean"), std::string::npos) << line;
  EXPECT_EQ(runs, 2) << r.err;
}

TEST(Cli, ProfileRefusesAnExistingInjectionAndMissingPrograms) {
  const std::string dir = testing::scratch_dir("cli_profile_bad");
  std::ofstream(dir + "/fake_inject.so") << "x";
  const std::string lib = "GPUSCOPE_INJECT_LIB=" + dir + "/fake_inject.so";
  CliResult missing = gpuscope(dir, "profile -o m -- ./no-such-program", lib);
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("cannot run './no-such-program'"), std::string::npos) << missing.err;

  CliResult injected = gpuscope(dir, "profile -- /bin/true", lib + " CUDA_INJECTION64_PATH=/other.so");
  EXPECT_EQ(injected.exit_code, 2);
  EXPECT_NE(injected.err.find("CUDA_INJECTION64_PATH is already set"), std::string::npos);

  CliResult no_lib = gpuscope(dir, "profile -- /bin/true", "GPUSCOPE_INJECT_LIB=/nonexistent.so");
  EXPECT_EQ(no_lib.exit_code, 2);
  EXPECT_NE(no_lib.err.find("capture library not found"), std::string::npos);
}

// Each (options, message): `profile OPTIONS` fails with that one "gpuscope: ..." line and exit 2,
// and the program (which would create ran.txt) never starts.
template <size_t N>
void expect_option_errors_before_the_program(const std::string& dir,
                                             const std::pair<std::string, std::string> (&cases)[N]) {
  for (const auto& [options, message] : cases) {
    CliResult r = gpuscope(dir, "profile " + options + " -- /bin/sh -c 'touch ran.txt'",
                           "GPUSCOPE_INJECT_LIB=/nonexistent.so");
    EXPECT_EQ(r.exit_code, 2) << options;
    EXPECT_EQ(lines(r.err), 1) << options << ": " << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << options << ": " << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir + "/ran.txt")) << options;
  }
}

TEST(Cli, ProfileMetricOptionErrorsComeBeforeTheProgramRuns) {
  // Each is one "gpuscope: ..." line, exit 2, and the program (which would create ran.txt) never starts.
  const std::string dir = testing::scratch_dir("cli_profile_metrics");
  const std::pair<std::string, std::string> cases[] = {
      {"--metrics bogus", "unknown metric set 'bogus'"},
      {"--metric 'a b'", "bad metric name 'a b'"},
      {"--kernel gemm", "--kernel chooses kernels for --metrics/--metric or --source"},
      {"--launch-skip 3", "--launch-skip and --launch-count choose kernels for --metrics/--metric"},
      {"--source-period 9", "--source-period needs --source"},
      {"--source --metrics sol", "--source and --metrics/--metric cannot be combined"},
      {"--metrics sol --kernel '('", "--kernel: expected a valid regular expression"},
      {"--gpu-metrics --metrics sol", "--gpu-metrics and --metrics/--metric cannot be combined"},
      {"--gpu-metrics=1000 --metric dram__bytes_read.sum", "--gpu-metrics and --metrics/--metric cannot be combined"},
  };
  expect_option_errors_before_the_program(dir, cases);
  // Out-of-range values are rejected by the option parser, with exit 2 as well.
  EXPECT_EQ(gpuscope(dir, "profile --gpu-metrics=0 -- /bin/true").exit_code, 2);
  EXPECT_EQ(gpuscope(dir, "profile --gpu-metrics=20001 -- /bin/true").exit_code, 2);
  EXPECT_EQ(gpuscope(dir, "profile --metrics sol --launch-count 0 -- /bin/true").exit_code, 2);
  EXPECT_EQ(gpuscope(dir, "profile --source --source-period 4 -- /bin/true").exit_code, 2);
  EXPECT_EQ(gpuscope(dir, "profile --source --source-period 32 -- /bin/true").exit_code, 2);
  EXPECT_FALSE(std::filesystem::exists(dir + "/ran.txt"));
}

// The capture config carries the sets and, separately, the user's own --metric names, which a
// chip without them must not drop (the sets' metrics it may); the library expands the sets.
TEST(Cli, ProfilePassesTheSetsAndTheUsersOwnMetricsApart) {
  const std::string dir = testing::scratch_dir("cli_profile_required");
  CliResult r = gpuscope(dir,
                         "profile -o p --no-report --metrics occupancy --metric dram__bytes_read.sum "
                         "--metric lts__t_bytes.sum -- /bin/sh -c 'echo $GPUSCOPE_INJECT_CONFIG > cfg.txt'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::string config;
  std::getline(std::ifstream(dir + "/cfg.txt"), config);
  EXPECT_NE(config.find(";metrics=occupancy;metric=dram__bytes_read.sum,lts__t_bytes.sum"), std::string::npos)
      << config;
  r = gpuscope(dir,
               "profile -o q --no-report --metrics occupancy -- /bin/sh -c 'echo $GPUSCOPE_INJECT_CONFIG > cfg.txt'");
  std::getline(std::ifstream(dir + "/cfg.txt"), config);
  EXPECT_EQ(config.find("metric="), std::string::npos) << config;
}

TEST(Cli, ProfileScopeOptionErrorsComeBeforeTheProgramRuns) {
  const std::string dir = testing::scratch_dir("cli_profile_scope");
  const std::pair<std::string, std::string> cases[] = {
      {"--pytorch=everything", "--pytorch: expected one of ops,shapes,modules"},
      {"--capture-range nvtx:", "expected cudaProfilerApi or nvtx:NAME[@DOMAIN]"},
      {"--capture-range nvtx:step@", "not 'nvtx:step@'"},
      {"--capture-range cudaProfiler", "expected cudaProfilerApi or nvtx:NAME[@DOMAIN]"},
      {"--capture-range-end repeat", "--capture-range-end needs --capture-range"},
      {"--capture-range cudaProfilerApi --capture-range-end repeat:0", "repeat:N with N >= 1"},
      {"--capture-range cudaProfilerApi --capture-range-end again", "expected stop, repeat or repeat:N"},
      {"--capture-range cudaProfilerApi --delay 2", "cannot be combined with --capture-range"},
      {"--duration 0.0001", "at least 0.001 s"},
      {"--sync-flush-ms 60001", "--sync-flush-ms: expected between 0 and 60000"},
      {"--sync-flush-ms -1", "--sync-flush-ms: expected between 0 and 60000"},
      {"--flush-ms 60001", "--flush-ms: expected between 0 and 60000"},
      {"--api thin", "--api: expected one of core,full,lean"},
  };
  expect_option_errors_before_the_program(dir, cases);
  // --pytorch with a capture library that has no Python start-up hook beside it.
  std::ofstream(dir + "/fake_inject.so") << "x";
  CliResult no_hook = gpuscope(dir, "profile --pytorch -- /bin/sh -c 'touch ran.txt'",
                               "GPUSCOPE_INJECT_LIB=" + dir + "/fake_inject.so");
  EXPECT_EQ(no_hook.exit_code, 2);
  EXPECT_EQ(lines(no_hook.err), 1) << no_hook.err;
  EXPECT_NE(no_hook.err.find("--pytorch: the Python start-up hook is missing"), std::string::npos) << no_hook.err;
  EXPECT_EQ(gpuscope(dir, "profile --delay -1 -- /bin/true").exit_code, 2);
  EXPECT_FALSE(std::filesystem::exists(dir + "/ran.txt"));
}

// What the options put in the capture library's config (src/capture/config.h) and, for
// --pytorch, in Python's environment.
TEST(Cli, ProfileScopeOptionsReachTheCaptureLibrary) {
  const std::string dir = testing::scratch_dir("cli_profile_scope_config");
  const std::string show = " -- /bin/sh -c 'echo \"$GPUSCOPE_INJECT_CONFIG|$GPUSCOPE_PYTORCH|$PYTHONPATH\" > cfg.txt'";
  auto config_of = [&](const std::string& options) {
    CliResult r = gpuscope(dir, "profile -f -o p --no-report " + options + show);
    EXPECT_EQ(r.exit_code, 0) << options << ": " << r.err;
    std::string line;
    std::getline(std::ifstream(dir + "/cfg.txt"), line);
    return line;
  };
  std::string c = config_of("");
  EXPECT_EQ(c.find(';'), std::string::npos) << c;  // the defaults are the library's: only the spool
  EXPECT_EQ(c.rfind("spool=/", 0), 0u) << c;
  EXPECT_NE(config_of("--sync-flush-ms 0").find(";sync_flush_ms=0|"), std::string::npos);
  c = config_of("--api lean --capture-range 'nvtx:st;ep@dom' --capture-range-end repeat:4");
  EXPECT_NE(c.find(";api=lean;capture_range=nvtx:st%3Bep@dom;capture_range_end=repeat:4|"), std::string::npos) << c;
  c = config_of("--capture-range cudaProfilerApi");
  EXPECT_NE(c.find(";capture_range=cudaProfilerApi|"), std::string::npos) << c;
  c = config_of("--delay 1.5 --duration 2 --no-nccl-calls --driver-api");
  EXPECT_NE(c.find(";driver_api=1;nccl_calls=0;delay=1.5;duration=2|"), std::string::npos) << c;
  c = config_of("--pytorch");
  EXPECT_NE(c.find("|ops|"), std::string::npos) << c;
  EXPECT_NE(c.find("/torch_hook"), std::string::npos) << c;
  c = config_of("--pytorch=modules");
  EXPECT_NE(c.find("|modules|"), std::string::npos) << c;
}

// When no spool of a run can be read, the one line says why (the first spool's reason).
TEST(Cli, ImportOfOnlyUnreadableSpoolsSaysWhy) {
  const std::string dir = testing::scratch_dir("cli_unreadable_spools");
  {
    std::ofstream out(dir + "/run.125.spool", std::ios::binary);
    const char magic[8] = {'G', 'S', 'S', 'P', 'O', 'O', 'L', '\0'};
    const uint32_t header[4] = {99, 32, 125, 1};  // version 99, header bytes, pid, parent
    const int64_t created = 0;
    out.write(magic, sizeof magic);
    out.write(reinterpret_cast<const char*>(header), sizeof header);
    out.write(reinterpret_cast<const char*>(&created), sizeof created);
  }
  CliResult r = gpuscope(dir, "import -o run run.125.spool");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("none of the spools could be read: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("written by a newer gpuscope (spool format v99; this one reads only v"), std::string::npos)
      << r.err;
}

// Files of an older version are refused with one line that names the gpuscope that reads them.
TEST(Cli, OlderCapturesAndSpoolsAreOneLineNamingTheirReader) {
  const std::string dir = testing::scratch_dir("cli_older_files");
  std::filesystem::copy_file(std::string(GPUSCOPE_TEST_DATA_DIR) + "/spawn.gpuscope", dir + "/old.gpuscope");
  testing::exec(dir + "/old.gpuscope", "UPDATE meta SET value = '3' WHERE key = 'schema_version'");
  CliResult r = gpuscope(dir, "report old.gpuscope");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("old.gpuscope: written by an older gpuscope (schema v3; this one reads only v"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("open it with " + older_reader_of(3, false)), std::string::npos) << r.err;

  testing::SpoolBuilder spool(126, 1, 1000, spool::kVersion - 1);
  spool.end(2000);
  spool.write(dir + "/run.126.spool");
  r = gpuscope(dir, "import -o run run.126.spool");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_NE(
      r.err.find("this spool was written by an older gpuscope (spool format v" + std::to_string(spool::kVersion - 1)),
      std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("import it with " + older_reader_of(static_cast<int>(spool::kVersion) - 1, true)),
            std::string::npos)
      << r.err;
}

// A path the system refuses (here: components past NAME_MAX) is one line naming the path, never
// "internal error: filesystem error".
TEST(Cli, AnImpossibleOutputPathIsOneLineNotAnInternalError) {
  const std::string dir = testing::scratch_dir("cli_long_path");
  const std::string capture = std::string(GPUSCOPE_TEST_DATA_DIR) + "/spawn.gpuscope";
  const std::string path = dir + "/" + std::string(300, 'b') + "/" + std::string(5000, 'a');
  for (const std::string& command :
       {"export " + capture + " --format perfetto -o " + path, "import -o " + path + " " + capture,
        "report " + capture + " -o " + path, "profile --no-report -o " + path + " -- /bin/true"}) {
    CliResult r = gpuscope(dir, command, "GPUSCOPE_INJECT_LIB=/nonexistent.so");
    EXPECT_EQ(r.exit_code, 2) << command.substr(0, 40);
    EXPECT_EQ(lines(r.err), 1) << r.err.substr(0, 300);
    EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err.substr(0, 300);
  }
}

TEST(Cli, ProfilePassesExitStatusAndSignalsThrough) {
  const std::string dir = testing::scratch_dir("cli_status");
  std::ofstream(dir + "/fake_inject.so") << "x";
  const std::string lib = "GPUSCOPE_INJECT_LIB=" + dir + "/fake_inject.so";

  CliResult seven = gpuscope(dir, "profile -o seven -- sh -c 'echo hello; exit 7'", lib);
  EXPECT_EQ(seven.exit_code, 7);
  EXPECT_EQ(seven.out, "hello\n") << "the program's stdout is untouched";
  EXPECT_NE(seven.err.find("no CUDA activity was captured"), std::string::npos) << seven.err;
  EXPECT_TRUE(std::filesystem::exists(dir + "/seven.gpuscope"));

  CliResult again = gpuscope(dir, "profile -o seven -- true", lib);
  EXPECT_EQ(again.exit_code, 2) << "an explicit -o never overwrites silently";

  CliResult segv = gpuscope(dir, "profile -o segv --no-report -- sh -c 'kill -SEGV $$'", lib);
  EXPECT_EQ(segv.exit_code, 128 + 11);
  CliResult run = gpuscope(dir, "query segv.gpuscope 'SELECT exit_code, term_signal FROM run'");
  EXPECT_EQ(run.out, "-1\t11\n");

  // Words after "--" reach the program verbatim, options and "--" included.
  CliResult args = gpuscope(dir, "profile -o args --no-report -- sh -c 'echo \"$@\"' sh --launches 5 -- -o x", lib);
  EXPECT_EQ(args.exit_code, 0) << args.err;
  EXPECT_EQ(args.out, "--launches 5 -- -o x\n");
  CliResult bare = gpuscope(dir, "profile -o bare --no-report echo --launches 5", lib);
  EXPECT_EQ(bare.out, "--launches 5\n") << "without --, the program starts at the first positional";

  // The default name counts up instead of overwriting.
  EXPECT_EQ(gpuscope(dir, "profile --no-report -- true", lib).exit_code, 0);
  EXPECT_EQ(gpuscope(dir, "profile --no-report -- true", lib).exit_code, 0);
  EXPECT_TRUE(std::filesystem::exists(dir + "/true.gpuscope"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/true-2.gpuscope"));
}

// libgpuscope_preload.so beside the injection library goes into the program's LD_PRELOAD,
// ahead of the user's own; without it LD_PRELOAD is left alone.
TEST(Cli, ProfilePreloadsTheTakeoverWatchBesideTheLibrary) {
  const std::string dir = testing::scratch_dir("cli_preload");
  const std::filesystem::path build = std::filesystem::path(GPUSCOPE_BINARY).parent_path();
  const std::string preload = (build / "libgpuscope_preload.so").string();
  ASSERT_TRUE(std::filesystem::exists(preload)) << "built with the CLI";
  // The real library directory; `sh` never initialises CUDA, so nothing is injected.
  const std::string lib = "GPUSCOPE_INJECT_LIB=" + (build / "libgpuscope_inject.so").string();

  CliResult alone = gpuscope(dir, "profile -o alone --no-report -- sh -c 'echo \"$LD_PRELOAD\"'",
                             "unset LD_PRELOAD; " + lib);
  EXPECT_EQ(alone.exit_code, 0) << alone.err;
  EXPECT_EQ(alone.out, preload + "\n");
  // The user's LD_PRELOAD reaches gpuscope itself too; the ASan build's (scripts/sanitize.sh) would
  // refuse to start with a library loaded before its runtime, and this one is plain libc calls.
  CliResult user = gpuscope(dir, "profile -o user --no-report -- sh -c 'echo \"$LD_PRELOAD\"'",
                            "LD_PRELOAD=" + preload + " ASAN_OPTIONS=\"$ASAN_OPTIONS:verify_asan_link_order=0\" " +
                                lib);
  EXPECT_EQ(user.out, preload + ":" + preload + "\n") << "ours first, the user's kept";

  std::ofstream(dir + "/fake_inject.so") << "x";
  CliResult none = gpuscope(dir, "profile -o none --no-report -- sh -c 'echo \"[$LD_PRELOAD]\"'",
                            "unset LD_PRELOAD; GPUSCOPE_INJECT_LIB=" + dir + "/fake_inject.so");
  EXPECT_EQ(none.out, "[]\n");
}

TEST(Cli, ImportTurnsLeftoverSpoolsIntoACapture) {
  const std::string dir = testing::scratch_dir("cli_import");
  testing::SpoolBuilder b(321);
  b.string(1, "tiny_kernel").string(static_cast<uint32_t>(spool::TextKey::CommandLine), "./app", true);
  spool::KernelRecord k{};
  k.start_ns = 2000;
  k.end_ns = 2500;
  k.name = 1;
  b.record(spool::RecordKind::Kernel, k).flush();  // no End: the process was killed
  b.write(dir + "/app.321.spool");

  CliResult imported = gpuscope(dir, "import -o app app.321.spool");
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  CliResult rows = gpuscope(dir, "query app.gpuscope 'SELECT name, end_ns - start_ns FROM kernels_named'");
  EXPECT_EQ(rows.out, "tiny_kernel\t500\n");
  CliResult truncated = gpuscope(dir,
                                 "query app.gpuscope \"SELECT count FROM data_loss WHERE what = 'spool_truncated'\"");
  EXPECT_EQ(truncated.out, "1\n");
  EXPECT_EQ(gpuscope(dir, "import -o app app.321.spool").exit_code, 2) << "no silent overwrite";
  CliResult report = gpuscope(dir, "report app.gpuscope --format json");
  EXPECT_EQ(report.exit_code, 0) << report.err;

  CliResult write = gpuscope(dir, "query app.gpuscope 'DELETE FROM kernels'");
  EXPECT_EQ(write.exit_code, 2) << "query is read-only";
}

// Names come from users and files; one holding a newline must not split the error into lines.
TEST(Cli, ANewlineInANameStaysInsideTheOneLineError) {
  const std::string dir = testing::scratch_dir("cli_newline_name");
  CliResult r = gpuscope(dir, "report \"$(printf 'two\\nlines.gpuscope')\"");
  testing::expect_one_line_error(r, "two\\nlines.gpuscope", "newline in a file name");
}

// `query` only reads: nothing it runs may write a file or be silently ignored.
TEST(Cli, QueryRunsExactlyOneReadOnlyStatement) {
  const std::string dir = testing::scratch_dir("cli_query_read_only");
  const std::string capture = std::string(GPUSCOPE_TEST_DATA_DIR) + "/bsr_spmm_baseline.gpuscope ";
  testing::expect_one_line_error(gpuscope(dir, "query " + capture + "\"VACUUM INTO 'copy.db'\""),
                                 "query is read-only: statements that write", "vacuum into");
  EXPECT_FALSE(std::filesystem::exists(dir + "/copy.db"));
  testing::expect_one_line_error(gpuscope(dir, "query " + capture + "\"ATTACH 'other.db' AS o\""),
                                 "query is read-only: ATTACH and DETACH are refused", "attach");
  EXPECT_FALSE(std::filesystem::exists(dir + "/other.db"));
  testing::expect_one_line_error(gpuscope(dir, "query " + capture + "'SELECT 1; SELECT 2'"),
                                 "query runs one SQL statement", "two statements");
  testing::expect_one_line_error(gpuscope(dir, "query " + capture + "'SELECT 1; DELETE FROM kernels'"),
                                 "query runs one SQL statement", "a write after a read");
  testing::expect_one_line_error(gpuscope(dir, "query " + capture + "'  -- nothing'"), "query: no SQL statement given",
                                 "empty");
  testing::expect_one_line_error(gpuscope(dir, "query " + capture + "''"), "query: no SQL statement given", "empty");
  CliResult trailing = gpuscope(dir, "query " + capture + "'SELECT 1; -- done'");
  EXPECT_EQ(trailing.out, "1\n") << "a comment after the ';' is not a statement";
}

// A query without an end (a recursive CTE that never stops) ends in one line at --timeout.
TEST(Cli, AQueryWithoutAnEndStopsAtItsTimeout) {
  const std::string dir = testing::scratch_dir("cli_query_timeout");
  const std::string capture = std::string(GPUSCOPE_TEST_DATA_DIR) + "/bsr_spmm_baseline.gpuscope ";
  const std::string endless =
      "'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n'";
  const auto start = std::chrono::steady_clock::now();
  testing::expect_one_line_error(gpuscope(dir, "query --timeout 1 " + capture + endless),
                                 "query stopped after 1 s (--timeout; 0 for no limit)", "endless query");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30)) << "stopped near its limit";
  testing::expect_one_line_error(gpuscope(dir, "query --timeout 100000 " + capture + "'SELECT 1'"), "--timeout",
                                 "more than a day");
  EXPECT_EQ(gpuscope(dir, "query --timeout 0 " + capture + "'SELECT 1'").out, "1\n") << "0: no limit";
}

}  // namespace
}  // namespace gpuscope

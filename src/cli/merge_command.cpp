// `gpuscope merge -o OUT IN1 IN2 ...`: captures of one distributed job, a file per rank, as one
// capture whose report has the Ranks section (gpuscope/merge.h, docs/merge.md). What the merge
// measured (each input's clock offset against the first) goes to stderr as a table and into
// the capture (the run's options, shown in the report's Run section).
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <utility>

#include "cli/capture_files.h"
#include "cli/commands.h"
#include "common/error.h"
#include "gpuscope/merge.h"
#include "gpuscope/store.h"
#include "importers/importer.h"

namespace gpuscope::cli {
namespace {

// `gpuscope merge -o OUT IN1 IN2 ...` (merge_command.cpp, docs/merge.md).
struct MergeOptions {
  std::vector<std::string> inputs;  // captures or other profilers' files, one or more ranks each
  std::string output;
  bool force = false;
  bool align = true;                 // --no-align: measure clock offsets, never shift
  std::vector<std::string> offsets;  // --offset FILE=NS, repeatable
};

std::string join_numbers(const auto& values) {
  std::string out;
  for (const auto& v : values) out += (out.empty() ? "" : ",") + std::to_string(v);
  return out.empty() ? "-" : out;
}

std::string ms(TimeNs ns) { return analysis::format_clock(ns, true); }

// One row per input: where it came from, what it holds, what alignment measured and did.
void print_table(const analysis::MergeReport& report, std::ostream& out) {
  size_t width = 5;  // "input"
  for (const analysis::MergedInput& in : report.inputs) width = std::max(width, in.file.size());
  const std::string row = "  {:<" + std::to_string(width) + "}  {:<12} {:<16} {:<6} {:>11} {:>12} {:>10} {:>12}\n";
  out << fmt::format(fmt::runtime(row), "input", "host", "pids", "ranks", "collectives", "offset", "±", "shifted by");
  for (size_t i = 0; i < report.inputs.size(); ++i) {
    const analysis::MergedInput& in = report.inputs[i];
    const auto& c = in.clock;
    out << fmt::format(fmt::runtime(row), in.file, in.host.empty() ? "unknown" : in.host, join_numbers(in.pids),
                       join_numbers(in.ranks), c ? std::to_string(c->matched) : "-",
                       i == 0 ? "reference"
                       : c    ? ms(c->offset_ns)
                              : "-",
                       c ? analysis::format_clock(c->precision_ns, false) : "-", i == 0 ? "-" : ms(in.shift_ns));
  }
}

// The largest --offset taken, ns: a day. Hosts of one job keep their clocks within seconds (NTP);
// an offset of days or years is a typo or another job, and its times would overflow or mislead.
constexpr TimeNs kMaxClockOffsetNs = 86'400'000'000'000;

// "FILE=NS" (--offset): the file as given and a whole number of ns, either sign, at most a day.
std::pair<std::string, TimeNs> parse_offset(const std::string& text) {
  const size_t eq = text.rfind('=');
  const std::string ns = eq == std::string::npos ? "" : text.substr(eq + 1);
  size_t used = 0;
  TimeNs value = 0;
  try {
    value = std::stoll(ns, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (eq == 0 || ns.empty() || used != ns.size())
    throw Error("--offset " + text + ": expected FILE=NS, NS a whole number of nanoseconds (e.g. a.gpuscope=-1500)");
  if (value > kMaxClockOffsetNs || value < -kMaxClockOffsetNs)
    throw Error("--offset " + text + ": more than a day; the clocks of one job's hosts are not that far apart");
  return {text.substr(0, eq), value};
}

int run_merge(const MergeOptions& options) {
  const std::string output = capture_path(options.output);
  refuse_existing_output(output, options.force);
  if (options.inputs.size() < 2)
    throw Error("merge needs at least two captures (one per rank), got " + std::to_string(options.inputs.size()));
  analysis::MergeOptions merge;  // bad options fail before any file is read
  merge.align = options.align;
  for (const std::string& offset : options.offsets)
    if (!merge.offsets.insert(parse_offset(offset)).second)
      throw Error("--offset " + offset + ": that file's offset is given twice");
  std::vector<analysis::MergeInput> inputs;
  for (const std::string& path : options.inputs) inputs.push_back({path, load_trace(path)});
  analysis::MergeReport report;
  Trace trace = analysis::merge_traces(std::move(inputs), merge, report);
  trace.run.gpuscope_version = GPUSCOPE_VERSION;
  write_trace(output, trace);
  std::cerr << "gpuscope: wrote " << output << " (" << report.inputs.size() << " captures, " << trace.processes.size()
            << " processes, " << trace.kernels.size() << " kernels)\n";
  print_table(report, std::cerr);
  for (const std::string& warning : report.warnings) std::cerr << "gpuscope: warning: " << warning << "\n";
  return 0;
}

}  // namespace

Command add_merge_command(CLI::App& app) {
  auto options = std::make_shared<MergeOptions>();
  MergeOptions& o = *options;
  CLI::App* command = app.add_subcommand(
      "merge",
      "Merge captures of one distributed job (one file per rank: captures, torch.profiler traces, nsys\n"
      "exports) into one capture, with every process, so the report's Ranks section covers all ranks;\n"
      "a file from another (or an unknown) host is shifted onto the first file's clock, measured on the\n"
      "NCCL collectives they share (docs/merge.md)");
  command->add_option("inputs", o.inputs, "Two or more files, each anything `report` reads")->required();
  command->add_option("-o,--output", o.output, "Capture name")->required();
  command->add_flag("-f,--force", o.force, "Overwrite an existing capture");
  command->add_flag(
      "--no-align", [options](int64_t) { options->align = false; },
      "Never shift an input's times: only measure and print its clock offset");
  command
      ->add_option("--offset", o.offsets,
                   "FILE=NS: shift the input FILE (as given, not the first) by NS nanoseconds, whatever was "
                   "measured (repeatable)")
      ->allow_extra_args(false);  // one FILE=NS per --offset: the inputs after it stay inputs
  return {command, [options](const std::vector<std::string>&) { return run_merge(*options); }};
}

}  // namespace gpuscope::cli

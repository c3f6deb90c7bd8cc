// `gpuscope export FILE --format chrome|perfetto -o OUT`: a capture as a trace for the viewers
// people already use (docs/export.md). The trace is the one `report` analyses: with the
// profiler's own metric-collection time cut out (gpuscope/analysis_profiler_time.h).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <tuple>

#include "cli/capture_files.h"
#include "cli/commands.h"
#include "common/error.h"
#include "common/names.h"
#include "export/gzip.h"
#include "gpuscope/analysis_profiler_time.h"
#include "gpuscope/export.h"
#include "gpuscope/runs.h"
#include "gpuscope/store.h"
#include "gpuscope/tracks.h"
#include "importers/importer.h"

namespace fs = std::filesystem;

namespace gpuscope::cli {
namespace {

// `gpuscope export FILE --format chrome|perfetto -o OUT` (export_command.cpp).
struct ExportOptions {
  std::string input;
  std::string output;           // -o OUT; required
  std::string format;           // a name from the export registry (gpuscope/export.h)
  std::optional<uint32_t> run;  // --run N: only bench run N; nullopt: every run
  bool gzip = false;            // --gzip, or an output name ending in .gz
  bool details = true;          // --no-details: leave out the GPU work's arguments (smaller)
  bool per_rank = false;        // --per-rank: one file per rank of a job, OUT_rankN.EXT
  bool force = false;           // overwrite an existing output
};

// Writes to OUT.tmp and renames it at the end, so a failed export leaves no half file behind.
void write_file(const std::string& path, bool gzip, const std::function<void(std::ostream&)>& write) {
  const std::string tmp = path + ".tmp";
  try {
    std::ofstream file(tmp, std::ios::binary | std::ios::trunc);
    if (!file) throw Error("cannot write " + path);
    if (gzip) {
      GzipOstream zipped(file);
      write(zipped);
      zipped.finish();
    } else {
      write(file);
    }
    if (!file.flush()) throw Error("cannot write " + path);
    file.close();
    fs::rename(tmp, path);
  } catch (...) {
    std::error_code ignored;
    fs::remove(tmp, ignored);
    throw;
  }
}

// OUT with "_rankN" before its extension: job.json.gz -> job_rank0.json.gz; a name without the
// format's extension gets it after: job -> job_rank0.
std::string rank_path(const std::string& output, const ExportFormat& format, int32_t rank) {
  std::string stem = output, tail;
  if (stem.ends_with(".gz")) stem.resize(stem.size() - 3), tail = ".gz";
  if (stem.ends_with(format.extension))
    stem.resize(stem.size() - format.extension.size()), tail = format.extension + tail;
  return stem + "_rank" + std::to_string(rank) + tail;
}

// The ranks of a job, as analyze_ranks orders them: the processes that ran kernels, by the rank
// their launcher set (unknown last), then pid; numbered by that rank when every one has one, else
// by position.
struct RankProcess {
  uint32_t pid = 0;
  int32_t rank = 0;
};
std::vector<RankProcess> job_ranks(const Trace& trace) {
  std::map<uint32_t, int32_t> rank_of;  // the processes that ran kernels -> the rank set (-1: none)
  for (const Kernel& k : trace.kernels) rank_of.emplace(k.pid, -1);
  for (const Process& p : trace.processes)
    if (auto it = rank_of.find(p.pid); it != rank_of.end()) it->second = p.rank;
  std::vector<RankProcess> out;
  for (const auto& [pid, rank] : rank_of) out.push_back({pid, rank});
  std::sort(out.begin(), out.end(), [](const RankProcess& a, const RankProcess& b) {
    return std::tuple(a.rank < 0, a.rank, a.pid) < std::tuple(b.rank < 0, b.rank, b.pid);
  });
  const bool ranked = std::all_of(out.begin(), out.end(), [](const RankProcess& r) { return r.rank >= 0; });
  for (size_t i = 0; i < out.size(); ++i)
    if (!ranked) out[i].rank = static_cast<int32_t>(i);
  return out;
}

void report_written(const std::string& path, const ExportFormat& format, const tracks::Layout& layout) {
  std::cerr << "gpuscope: wrote " << path << " (" << format.name << ", " << layout.slices << " slices, "
            << layout.flows.size() << " flows";
  if (layout.untimed) std::cerr << "; " << layout.untimed << " records without a valid time left out";
  std::cerr << ")\n";
}

// export --per-rank: each rank's records as a file of its own, the time origin the job's.
int export_per_rank(const ExportOptions& options, const ExportFormat& format, const Trace& trace) {
  if (!trace.runs.empty()) throw Error("--per-rank is for a job of several ranks, not a bench capture (use --run N)");
  const std::vector<RankProcess> ranks = job_ranks(trace);
  if (ranks.size() < 2)
    throw Error(options.input + " has " + std::to_string(ranks.size()) +
                " process(es) that ran GPU work; --per-rank needs a job of several ranks");
  for (const RankProcess& r : ranks) refuse_existing_output(rank_path(options.output, format, r.rank), options.force);
  const bool gzip = options.gzip || options.output.ends_with(".gz");
  for (const RankProcess& r : ranks) {
    const Trace mine = select_process(trace, r.pid);
    const analysis::AnalysisView view(mine);
    const tracks::Layout layout = tracks::layout_tracks(view.trace());
    const ExportSettings settings{options.details, r.rank, static_cast<int32_t>(ranks.size())};
    const std::string path = rank_path(options.output, format, r.rank);
    write_file(path, gzip, [&](std::ostream& out) { format.write(view.trace(), layout, settings, out); });
    report_written(path, format, layout);
  }
  return 0;
}

int run_export(const ExportOptions& options) {
  const ExportFormat& format = find_export_format(options.format);
  if (options.per_rank && options.run) throw Error("--per-rank and --run do not go together");
  if (options.per_rank) return export_per_rank(options, format, load_trace(options.input));
  refuse_existing_output(options.output, options.force);
  const Trace trace = load_trace(options.input);
  if (options.run) {
    bool found = false;
    for (const BenchRun& r : trace.runs) found = found || r.run_id == *options.run;
    if (trace.runs.empty())
      throw Error(options.input + " is not a bench capture; --run needs one made by `gpuscope bench`");
    if (!found)
      throw Error(options.input + " has no bench run " + std::to_string(*options.run) + " (it has " +
                  std::to_string(trace.runs.size()) + " runs)");
  }
  const analysis::AnalysisView view(trace);
  const tracks::Layout layout = tracks::layout_tracks(view.trace(), {options.run});
  const bool gzip = options.gzip || options.output.ends_with(".gz");
  write_file(options.output, gzip,
             [&](std::ostream& out) { format.write(view.trace(), layout, {options.details}, out); });
  report_written(options.output, format, layout);
  return 0;
}

}  // namespace

Command add_export_command(CLI::App& app) {
  auto options = std::make_shared<ExportOptions>();
  ExportOptions& o = *options;
  CLI::App* command = app.add_subcommand(
      "export", "Write a capture as a trace for other viewers (Perfetto UI, chrome://tracing, torch.profiler tools)");
  command->add_option("file", o.input, kInputHelp)->required();
  command->add_option("--format", o.format, "Trace format: " + or_list(export_format_names()))
      ->required()
      ->check(CLI::IsMember(export_format_names(), CLI::ignore_case));
  command->add_option("-o,--output", o.output, "Write the trace here (a name ending in .gz is gzipped)")->required();
  command->add_option("--run", o.run, "Bench captures: only bench run N (default: every run, a group each)")
      ->check(CLI::PositiveNumber);
  command->add_flag("--gzip", o.gzip, "Gzip the output whatever its name");
  command->add_flag(
      "--no-details", [options](int64_t) { options->details = false; },
      "Leave out the GPU work's arguments (launch configurations, bytes): a smaller file");
  command->add_flag("--per-rank", o.per_rank,
                    "A job of several ranks: one file per rank, OUT with _rankN before its extension "
                    "(job.json.gz -> job_rank0.json.gz ...), each with its own distributedInfo (HTA)");
  command->add_flag("-f,--force", o.force, "Overwrite an existing output file");
  return {command, [options](const std::vector<std::string>&) { return run_export(*options); }};
}

}  // namespace gpuscope::cli

// The subcommands. Each *_command.cpp owns its flags (add_*_command declares them on the app) and
// its run; main.cpp only dispatches. What several commands share is declared here.
#pragma once

#include <CLI/CLI.hpp>

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "gpuscope/model.h"

namespace gpuscope::cli {

// A subcommand: its CLI11 app and what runs it once parsed. `program`: the words after "--"
// (profile and bench run them). Returns the process exit code; throws Error for bad input.
struct Command {
  CLI::App* app = nullptr;
  std::function<int(const std::vector<std::string>& program)> run;
};

Command add_profile_command(CLI::App& app);
Command add_report_command(CLI::App& app);
Command add_import_command(CLI::App& app);
Command add_merge_command(CLI::App& app);
Command add_export_command(CLI::App& app);
Command add_query_command(CLI::App& app);
Command add_diff_command(CLI::App& app);
Command add_check_command(CLI::App& app);
Command add_bench_command(CLI::App& app);
Command add_metrics_command(CLI::App& app);

struct ReportSettings {
  std::string format = "text";  // a name from the format registry (gpuscope/report.h)
  size_t top = 15;
  std::string iteration_range;           // --iteration-range: the steps' NVTX range; empty: detected
  std::vector<std::string> source_dirs;  // --source-dir: where else the kernels' source files are
};

// Flags several commands take (flags.cpp).
void add_format_flag(CLI::App& command, std::string& format, const std::string& what);
void add_report_flags(CLI::App& command, ReportSettings& settings);  // --format, --top, --source-dir
// --iteration-range's check: an empty name (a shell variable left unset) matches no range.
CLI::Validator range_name_check();
void add_metrics_from_flag(CLI::App& command, std::vector<std::string>& files);
// What every command that reads a capture accepts (docs/import.md).
extern const char* const kInputHelp;
std::string env_or_empty(const char* name);

// Shared by profile and report. `profile` renders the trace it has just written
// (the store round trip is exact), so the report is not read back from disk.
std::string render(const Trace& trace, const ReportSettings& settings);

}  // namespace gpuscope::cli

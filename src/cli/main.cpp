// gpuscope's command line: the subcommands in help order; each declares its own flags
// (commands.h). Errors from any command become one line on stderr and exit code 2.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/huge_pages.h"
#include "common/error.h"
#include "common/printable.h"

namespace {

using namespace gpuscope::cli;

// `gpuscope profile [opts] -- CMD ARGS`: the words after the first "--" that
// follows "profile" are the program's, verbatim, whatever they look like.
std::vector<std::string> split_program_args(std::vector<std::string>& args) {
  auto profile = std::find_if(args.begin(), args.end(),
                              [](const std::string& a) { return a == "profile" || a == "bench"; });
  if (profile == args.end()) return {};
  auto separator = std::find(profile, args.end(), "--");
  if (separator == args.end()) return {};
  std::vector<std::string> program(separator + 1, args.end());
  args.erase(separator, args.end());
  return program;
}

}  // namespace

int main(int argc, char** argv) {
  gpuscope::cli::use_huge_pages_for_large_blocks();
  CLI::App app{
      "gpuscope: capture a CUDA program's timeline into one SQLite file and explain it.\n"
      "Everything but `profile` runs on any machine, with or without a GPU."};
  app.name("gpuscope");  // parse() gets a vector without argv[0], so name the usage line
  app.set_version_flag("--version", "gpuscope " GPUSCOPE_VERSION);
  app.require_subcommand(1);
  std::vector<Command> commands;
  for (auto add : {add_profile_command, add_report_command, add_import_command, add_merge_command, add_export_command,
                   add_query_command, add_diff_command, add_check_command, add_bench_command, add_metrics_command})
    commands.push_back(add(app));

  std::vector<std::string> args(argv + 1, argv + argc);
  std::vector<std::string> program = split_program_args(args);
  try {
    std::reverse(args.begin(), args.end());  // CLI11 takes a reversed vector
    app.parse(args);
  } catch (const CLI::ParseError& error) {
    if (error.get_exit_code() == 0) return app.exit(error);  // --help, --version
    // One line, as every other error: CLI11's own printing adds a second ("Run with --help").
    std::cerr << "gpuscope: " << gpuscope::printable(error.what()) << " (see --help)\n";
    return 2;
  }

  try {
    for (const Command& command : commands)
      if (*command.app) return command.run(program);
  } catch (const gpuscope::Error& error) {
    std::cerr << "gpuscope: " << error.what() << "\n";
    return 2;
  } catch (const std::filesystem::filesystem_error& error) {
    // A path the system refuses (too long, no permission, not a directory): the path and why,
    // not "internal error: filesystem error: ...".
    const std::string path = error.path1().empty() ? "" : error.path1().string() + ": ";
    std::cerr << "gpuscope: " << gpuscope::printable(path + error.code().message()) << "\n";
    return 2;
  } catch (const std::exception& error) {
    std::cerr << "gpuscope: internal error: " << gpuscope::printable(error.what()) << "\n";  // one line, like Error
    return 2;
  }
  return 2;
}

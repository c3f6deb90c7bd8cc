// Runs the program to profile as a child process and waits for it, passing
// termination signals on, so `gpuscope profile` behaves like the program itself.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace gpuscope::cli {

struct ExitStatus {
  int exit_code = -1;  // -1 when ended by a signal
  int signal = 0;      // signal that ended it, 0 if none
  // What a shell would report: the exit code, or 128 + signal.
  int shell_code() const { return signal ? 128 + signal : exit_code; }
  std::string describe() const;
};

// Starts argv[0] (searched in PATH) with the current environment plus `extra_env`.
// Throws gpuscope::Error if the program cannot be started at all.
ExitStatus run_program(const std::vector<std::string>& argv, const std::map<std::string, std::string>& extra_env);

}  // namespace gpuscope::cli

// Files and processes for the unit tests: reading a file whole, golden-file comparison and
// running the gpuscope binary the way users do. Implemented in test_support.cpp.
#pragma once

#include <string>

#include "gpuscope/model.h"

namespace gpuscope::testing {

// tests/data/NAME.
std::string test_data(const std::string& name);

// The capture tests/data/NAME, read as stored.
Trace read_test_capture(const std::string& name);

// The whole file; empty when it cannot be read.
std::string read_text_file(const std::string& path);

// Compares `actual` with tests/golden/NAME (a gtest failure when they differ), or rewrites
// the file when GPUSCOPE_UPDATE_GOLDEN=1.
void expect_golden(const std::string& name, const std::string& actual);

struct CliResult {
  int exit_code;  // -1 when killed by a signal
  std::string out, err;
};

// Runs `ENV gpuscope ARGS` in `dir` through the shell, stdin from /dev/null; stdout and
// stderr land in dir/out.txt and dir/err.txt and are returned.
CliResult run_gpuscope(const std::string& dir, const std::string& args, const std::string& env = "");

// Lines of text (newlines counted).
int line_count(const std::string& text);

// Bad input as users must see it: exit 2 and one line on stderr, "gpuscope: ..." containing
// `message`. `what` names the case in failure messages.
void expect_one_line_error(const CliResult& r, const std::string& message, const std::string& what = "");

}  // namespace gpuscope::testing

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "gpuscope/store.h"
#include "spool_builder.h"
#include "test_files.h"

namespace gpuscope::testing {

std::string scratch_dir(const std::string& test_name) {
  auto dir = std::filesystem::temp_directory_path() / ("gpuscope-test-" + test_name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

std::string test_data(const std::string& name) { return std::string(GPUSCOPE_TEST_DATA_DIR) + "/" + name; }

Trace read_test_capture(const std::string& name) { return read_trace(test_data(name)); }

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void expect_golden(const std::string& name, const std::string& actual) {
  const std::string path = std::string(GPUSCOPE_GOLDEN_DIR) + "/" + name;
  const char* update = std::getenv("GPUSCOPE_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    std::ofstream(path, std::ios::binary) << actual;
    std::cerr << "updated golden file " << path << "\n";
    return;
  }
  ASSERT_TRUE(std::ifstream(path).good()) << "missing golden file " << path << "; run with GPUSCOPE_UPDATE_GOLDEN=1";
  EXPECT_EQ(actual, read_text_file(path))
      << "report differs from " << path
      << "; if the change is intended, rerun with GPUSCOPE_UPDATE_GOLDEN=1 and review the diff";
}

CliResult run_gpuscope(const std::string& dir, const std::string& args, const std::string& env) {
  const std::string cmd = "cd '" + dir + "' && " + env + " " + GPUSCOPE_BINARY + " " + args + " >'" + dir +
                          "/out.txt' 2>'" + dir + "/err.txt' </dev/null";
  const int status = std::system(cmd.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_text_file(dir + "/out.txt"),
          read_text_file(dir + "/err.txt")};
}

int line_count(const std::string& text) { return static_cast<int>(std::count(text.begin(), text.end(), '\n')); }

void expect_one_line_error(const CliResult& r, const std::string& message, const std::string& what) {
  EXPECT_EQ(r.exit_code, 2) << what;
  EXPECT_EQ(line_count(r.err), 1) << what << ": " << r.err;
  EXPECT_EQ(r.err.rfind("gpuscope: ", 0), 0u) << what << ": " << r.err;
  EXPECT_NE(r.err.find(message), std::string::npos) << what << ": " << r.err;
}

}  // namespace gpuscope::testing

#include <unistd.h>

#include <filesystem>
#include <string>

#include "spool_builder.h"

namespace gpuscope::testing {

std::string scratch_dir(const std::string& test_name) {
  auto dir = std::filesystem::temp_directory_path() / ("gpuscope-test-" + test_name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

}  // namespace gpuscope::testing

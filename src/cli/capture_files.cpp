#include "cli/capture_files.h"

#include <algorithm>
#include <filesystem>

#include "common/error.h"

namespace fs = std::filesystem;

namespace gpuscope::cli {

namespace {
constexpr std::string_view kExtension = ".gpuscope";
constexpr std::string_view kInjectLibrary = "libgpuscope_inject.so";

// The pid in PREFIX.<pid>.spool, or 0 if the name has another shape.
uint32_t spool_pid(const std::string& file_name, const std::string& prefix_name) {
  if (file_name.rfind(prefix_name + ".", 0) != 0 || !file_name.ends_with(".spool")) return 0;
  const std::string middle = file_name.substr(prefix_name.size() + 1, file_name.size() - prefix_name.size() - 7);
  if (middle.empty() || !std::all_of(middle.begin(), middle.end(), ::isdigit) || middle.size() > 9) return 0;
  return static_cast<uint32_t>(std::stoul(middle));
}
}  // namespace

std::string capture_path(const std::string& name) {
  std::string path = name.ends_with(kExtension) ? name : name + std::string(kExtension);
  return fs::absolute(path).lexically_normal().string();
}

bool path_taken(const std::string& path) {
  std::error_code ec;
  return fs::exists(fs::symlink_status(path, ec));
}

void refuse_existing_output(const std::string& path, bool force, const std::string& or_else) {
  if (!force && path_taken(path)) throw Error(path + " already exists (use --force to overwrite" + or_else + ")");
}

std::string spool_prefix(const std::string& capture_path) {
  return capture_path.ends_with(kExtension) ? capture_path.substr(0, capture_path.size() - kExtension.size())
                                            : capture_path;
}

std::vector<std::string> find_spools(const std::string& prefix) {
  const fs::path base(prefix);
  const fs::path dir = base.has_parent_path() ? base.parent_path() : fs::path(".");
  const std::string prefix_name = base.filename().string();
  std::vector<std::pair<uint32_t, std::string>> found;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const uint32_t pid = spool_pid(entry.path().filename().string(), prefix_name);
    if (pid) found.emplace_back(pid, entry.path().string());
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> paths;
  for (auto& [pid, path] : found) paths.push_back(std::move(path));
  return paths;
}

std::string find_inject_library(const std::string& override_path) {
  std::error_code ec;
  if (!override_path.empty()) {
    if (!fs::is_regular_file(override_path, ec))
      throw Error("capture library not found at " + override_path + " (GPUSCOPE_INJECT_LIB)");
    return fs::absolute(override_path).string();
  }
  const fs::path exe_dir = fs::read_symlink("/proc/self/exe", ec).parent_path();
  for (const fs::path& candidate : {exe_dir / kInjectLibrary, exe_dir / "../lib/gpuscope" / kInjectLibrary}) {
    if (fs::is_regular_file(candidate, ec)) return fs::canonical(candidate, ec).string();
  }
  throw Error("capture library " + std::string(kInjectLibrary) + " not found next to " + exe_dir.string() +
              "; was gpuscope built with the CUDA toolkit (CUPTI headers)?");
}

}  // namespace gpuscope::cli

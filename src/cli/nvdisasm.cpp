// nvdisasm.h: finding nvdisasm, running it with a bound on time and output, reading its SASS.
#include "cli/nvdisasm.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <vector>

#include "common/temp_file.h"

extern char** environ;

namespace gpuscope::cli {
namespace {

namespace fs = std::filesystem;

bool executable(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec) && access(path.c_str(), X_OK) == 0;
}

// The child's standard output, or nullopt on failure, timeout or too much output.
std::optional<std::string> run_capturing(const std::vector<std::string>& argv, int timeout_ms, size_t max_bytes) {
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) return std::nullopt;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t child = 0;
  const int spawned = posix_spawn(&child, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  if (spawned != 0) {
    close(out[0]);
    return std::nullopt;
  }
  std::string text;
  bool ok = true;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  char buffer[65536];
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline -
                                                                            std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      ok = false;
      break;
    }
    pollfd p{out[0], POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    const ssize_t n = read(out[0], buffer, sizeof buffer);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      ok = false;
      break;
    }
    text.append(buffer, static_cast<size_t>(n));
    if (text.size() > max_bytes) {
      ok = false;
      break;
    }
  }
  close(out[0]);
  if (!ok) kill(child, SIGKILL);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (!ok || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return std::nullopt;
  return text;
}

}  // namespace

std::optional<std::string> find_nvdisasm() {
  if (const char* given = std::getenv("GPUSCOPE_NVDISASM"); given && given[0])
    return executable(given) ? std::optional<std::string>(given) : std::nullopt;
  std::vector<fs::path> candidates;
  if (const char* path = std::getenv("PATH")) {
    std::string_view rest(path);
    while (!rest.empty()) {
      const size_t colon = rest.find(':');
      const std::string_view dir = rest.substr(0, colon);
      if (!dir.empty()) candidates.push_back(fs::path(std::string(dir)) / "nvdisasm");
      rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
    }
  }
  if (const char* home = std::getenv("CUDA_HOME"); home && home[0])
    candidates.push_back(fs::path(home) / "bin/nvdisasm");
  candidates.push_back("/usr/local/cuda/bin/nvdisasm");
  for (const fs::path& c : candidates)
    if (executable(c)) return c.string();
  return std::nullopt;
}

sass::FunctionSass disassemble(const std::string& nvdisasm, const std::string& cubin, const std::string& function,
                               uint32_t symbol, int timeout_ms, size_t max_bytes) {
  const TempFile file(cubin, "gpuscope-cubin");
  if (file.path().empty()) return {};
  const std::optional<std::string> out = run_capturing({nvdisasm, "-c", "-fun", std::to_string(symbol), file.path()},
                                                       timeout_ms, max_bytes);
  if (!out) return {};
  auto functions = sass::parse_nvdisasm(*out);
  const auto it = functions.find(function);
  return it == functions.end() ? sass::FunctionSass{} : std::move(it->second);
}

}  // namespace gpuscope::cli

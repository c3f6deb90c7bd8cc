// spawn: a launcher process that does no CUDA work itself; it forks and execs N children running
// `launch_storm --launches L` (found next to this executable) concurrently and waits for all.
// It models a Python launcher with worker processes: a profiler must follow the children (they
// inherit the environment, CUDA_INJECTION64_PATH included) and tag each one with its pid.
//
// Prints one line per child and: RESULT sample=spawn children=N failed=F pids=p1,p2,...
// Exit status: 0 when every child exited 0, 1 otherwise, 64 for a bad command line.
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "sample_common.h"

namespace {

const char* kUsage =
    "usage: spawn [--children N] [--launches L]\n"
    "  --children N  child processes (default 2)\n"
    "  --launches L  launches per child's launch_storm (default 1000)\n";

// Directory of this executable, from /proc/self/exe (argv[0] may be relative or a symlink).
std::string exe_dir() {
  char path[PATH_MAX];
  const ssize_t len = readlink("/proc/self/exe", path, sizeof path - 1);
  if (len <= 0) return ".";
  path[len] = '\0';
  std::string s(path);
  const size_t slash = s.rfind('/');
  return slash == std::string::npos ? "." : s.substr(0, slash);
}

std::string describe(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status))
    return std::string("killed by signal ") + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) +
           ")";
  return "ended with wait status " + std::to_string(status);
}

}  // namespace

int main(int argc, char** argv) {
  sample::line_buffered_stdout();
  sample::Args args(argc, argv, kUsage);
  const int children = int(args.integer("--children", 2, 1));
  const std::string launches = std::to_string(args.integer("--launches", 1000, 1));
  args.finish();
  if (children > 256) args.fail("--children is at most 256");

  const std::string child_path = exe_dir() + "/launch_storm";
  if (access(child_path.c_str(), X_OK) != 0) {
    std::fprintf(stderr, "spawn: cannot execute %s: %s\n", child_path.c_str(), std::strerror(errno));
    return 1;
  }
  std::printf("spawn: pid %d starting %d x %s --launches %s\n", int(getpid()), children, child_path.c_str(),
              launches.c_str());
  std::fflush(stdout);  // nothing buffered may be duplicated into the children

  std::vector<pid_t> pids;
  for (int i = 0; i < children; ++i) {
    const pid_t pid = fork();
    if (pid < 0) {
      std::fprintf(stderr, "spawn: fork failed: %s\n", std::strerror(errno));
      break;  // still wait for the children already started
    }
    if (pid == 0) {
      const char* child_argv[] = {child_path.c_str(), "--launches", launches.c_str(), nullptr};
      execv(child_path.c_str(), const_cast<char* const*>(child_argv));
      std::fprintf(stderr, "spawn: exec %s failed: %s\n", child_path.c_str(), std::strerror(errno));
      _exit(127);  // no atexit handlers or stdio flushes of the parent's state in the child
    }
    pids.push_back(pid);
  }

  int failed = children - int(pids.size());  // children that could not be started
  std::string pid_list;
  for (size_t i = 0; i < pids.size(); ++i) {
    int status = 0;
    pid_t r;
    do r = waitpid(pids[i], &status, 0);
    while (r < 0 && errno == EINTR);
    const bool ok = r == pids[i] && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (!ok) ++failed;
    std::printf("spawn: child %zu pid %d %s%s\n", i, int(pids[i]),
                r == pids[i] ? describe(status).c_str() : "could not be waited for", ok ? "" : " (FAILED)");
    pid_list += (i ? "," : "") + std::to_string(pids[i]);
  }
  std::printf("RESULT sample=spawn children=%d failed=%d pids=%s\n", children, failed, pid_list.c_str());
  return failed ? 1 : 0;
}

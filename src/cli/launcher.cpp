#include "cli/launcher.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "common/error.h"

namespace gpuscope::cli {

namespace {

pid_t g_child = -1;

// SIGTERM/SIGHUP sent to gpuscope are meant for the program: pass them on.
void forward_signal(int signal_number) {
  if (g_child > 0) kill(g_child, signal_number);
}

// The child reports a failed exec through a close-on-exec pipe: either the
// pipe closes with nothing in it (exec worked) or it carries errno.
[[noreturn]] void exec_child(const std::vector<std::string>& argv, const std::map<std::string, std::string>& extra_env,
                             int error_fd) {
  for (const auto& [name, value] : extra_env) setenv(name.c_str(), value.c_str(), 1);
  std::vector<char*> args;
  for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  signal(SIGINT, SIG_DFL);
  signal(SIGQUIT, SIG_DFL);
  execvp(args[0], args.data());
  const int error = errno;
  ssize_t ignored = write(error_fd, &error, sizeof error);
  (void)ignored;
  _exit(127);
}

}  // namespace

std::string ExitStatus::describe() const {
  if (signal) {
    const char* name = strsignal(signal);
    return "killed by signal " + std::to_string(signal) + (name ? std::string(" (") + name + ")" : "");
  }
  return "exit code " + std::to_string(exit_code);
}

ExitStatus run_program(const std::vector<std::string>& argv, const std::map<std::string, std::string>& extra_env) {
  if (argv.empty()) throw Error("no program to run");
  int error_pipe[2];
  if (pipe2(error_pipe, O_CLOEXEC) != 0) throw Error(std::string("pipe: ") + strerror(errno));

  const pid_t child = fork();
  if (child < 0) throw Error(std::string("cannot start the program: ") + strerror(errno));
  if (child == 0) {
    close(error_pipe[0]);
    exec_child(argv, extra_env, error_pipe[1]);
  }
  close(error_pipe[1]);
  int exec_error = 0;
  ssize_t got;
  do got = read(error_pipe[0], &exec_error, sizeof exec_error);
  while (got < 0 && errno == EINTR);
  close(error_pipe[0]);

  // Like a shell running a foreground job: the terminal's Ctrl-C reaches the
  // program directly, so gpuscope ignores it and waits to collect the capture.
  g_child = child;
  struct sigaction forward {
  }, ignore{}, old_int{}, old_quit{}, old_term{}, old_hup{};
  forward.sa_handler = forward_signal;
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGINT, &ignore, &old_int);
  sigaction(SIGQUIT, &ignore, &old_quit);
  sigaction(SIGTERM, &forward, &old_term);
  sigaction(SIGHUP, &forward, &old_hup);

  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGQUIT, &old_quit, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  sigaction(SIGHUP, &old_hup, nullptr);
  g_child = -1;

  if (got == sizeof exec_error) throw Error("cannot run '" + argv[0] + "': " + strerror(exec_error));
  ExitStatus result;
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  return result;
}

}  // namespace gpuscope::cli

#include "capture/threads.h"

#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace gpuscope::capture {

std::thread start_quiet_thread(const char* name, std::function<void()> body) {
  sigset_t all, previous;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &previous);  // the new thread inherits this mask
  std::thread thread;
  try {
    thread = std::thread([name, body = std::move(body)] {
      pthread_setname_np(pthread_self(), name);
      body();
    });
  } catch (...) {
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    throw;
  }
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  return thread;
}

uint32_t current_thread_id() { return static_cast<uint32_t>(::syscall(SYS_gettid)); }

}  // namespace gpuscope::capture

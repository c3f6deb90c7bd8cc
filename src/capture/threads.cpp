#include "capture/threads.h"

#include <pthread.h>

#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <atomic>
#include <cerrno>

namespace gpuscope::capture {
namespace {

// The library starts a handful of threads (writer, flusher, profiler preparation, sampler);
// a fixed table keeps the lookup lock-free. A thread beyond it is simply not recognised.
constexpr int kMaxOwnThreads = 16;
std::atomic<uint32_t> g_own_threads[kMaxOwnThreads];

void register_own_thread(uint32_t tid) {
  for (std::atomic<uint32_t>& slot : g_own_threads) {
    uint32_t empty = 0;
    if (slot.compare_exchange_strong(empty, tid)) return;
  }
}

}  // namespace

bool is_own_thread(uint32_t tid) {
  if (tid == 0) return false;
  for (const std::atomic<uint32_t>& slot : g_own_threads)
    if (slot.load(std::memory_order_acquire) == tid) return true;
  return false;
}

std::thread start_quiet_thread(const char* name, std::function<void()> body) {
  sigset_t all, previous;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &previous);  // the new thread inherits this mask
  std::thread thread;
  try {
    thread = std::thread([name, body = std::move(body)] {
      pthread_setname_np(pthread_self(), name);
      register_own_thread(current_thread_id());
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

bool thread_alive(uint32_t tid) {
  return ::syscall(SYS_tgkill, ::getpid(), static_cast<pid_t>(tid), 0) == 0 || errno != ESRCH;
}

}  // namespace gpuscope::capture

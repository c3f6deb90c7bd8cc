// Threads the library starts inside the profiled process (the writer, the flusher).
#pragma once

#include <functional>
#include <thread>

namespace gpuscope::capture {

// Starts `body` on a new thread that has every signal blocked, so the program's
// process-directed signals (SIGINT, SIGCHLD, SIGALRM, ...) are never delivered on
// our threads and its handlers run where it expects them. `name` (<= 15 chars)
// shows in top/gdb. The thread counts as one of ours (is_own_thread) from before
// `body` runs. Throws std::system_error like std::thread when no thread can be
// created; callers catch it.
std::thread start_quiet_thread(const char* name, std::function<void()> body);

// Whether `tid` (a kernel thread id) is a thread start_quiet_thread started: the
// CUDA calls our threads make (versions, device attributes, PCI ids) are not the
// program's, and the decoder drops their API records. Lock-free; any thread.
bool is_own_thread(uint32_t tid);

// The kernel's id of the calling thread (gettid), as CUPTI reports thread ids once
// cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM) is set.
uint32_t current_thread_id();

// Whether the thread `tid` of this process still runs.
bool thread_alive(uint32_t tid);

}  // namespace gpuscope::capture

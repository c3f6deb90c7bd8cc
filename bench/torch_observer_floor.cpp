// The floor under op names taken from torch's RecordFunction observers instead of emit_nvtx:
// a global observer of every op (FUNCTION and BACKWARD_FUNCTION scopes) that keeps only what a
// capture would need, the op's name pointer and a host timestamp at its entry and exit, in a
// per-thread ring. It records nothing anywhere else. bench/pytorch_overhead.sh builds it against
// the torch it runs (on the GPU host) for its `observer` modes; tiny_ops.py --op-observer loads it.
#include <ATen/record_function.h>
#include <time.h>

#include <cstdint>
#include <memory>
#include <type_traits>

namespace {

struct Event {
  const void* name;  // the op's name as torch keeps it (stable per op); null at the exit
  int64_t ns;        // CLOCK_MONOTONIC
};
constexpr size_t kRingEvents = size_t{1} << 16;  // 1 MiB a thread, overwritten in turn
thread_local Event* ring = nullptr;
thread_local size_t next_event = 0;

int64_t now_ns() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return int64_t{t.tv_sec} * 1000000000 + t.tv_nsec;
}

template <class Name>
const void* pointer_of(const Name& name) {
  if constexpr (std::is_pointer_v<Name>) return name;
  else return name.data();
}

void record(const void* name) {
  if (ring == nullptr) ring = new Event[kRingEvents];
  ring[next_event++ & (kRingEvents - 1)] = {name, now_ns()};
}

std::unique_ptr<at::ObserverContext> on_enter(const at::RecordFunction& fn) {
  record(pointer_of(fn.name()));
  return nullptr;
}

void on_exit(const at::RecordFunction&, at::ObserverContext*) { record(nullptr); }

}  // namespace

extern "C" int gpuscope_observer_install() {
  at::addGlobalCallback(at::RecordFunctionCallback(on_enter, on_exit)
                            .needsInputs(false)
                            .needsOutputs(false)
                            .needsIds(false)
                            .scopes({at::RecordScope::FUNCTION, at::RecordScope::BACKWARD_FUNCTION}));
  return 0;
}

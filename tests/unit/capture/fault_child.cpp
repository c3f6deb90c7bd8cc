// The program of the fault-injection matrix (fault_matrix_test.cpp). It does a fixed piece of
// work and prints it; under the capture it also does what makes a CUDA program's capture call
// CUPTI and NVML: cuInit through the (fake) driver, which loads the injection library; NVTX's
// injection; a context on device 0 (GPU sampling starts); kernel launches; time for the
// periodic flush and the sampler to run; and at the end its own CUPTI client subscribing to
// callbacks (through libgpuscope_preload.so, so the capture gives its subscription up). Its stdout and exit status (3)
// must be the same with and without the capture, whatever fails in it.
//
// Environment, set by the test:
//   FAULT_CHILD_PRELOAD  libgpuscope_preload.so, loaded first as LD_PRELOAD would
//   FAULT_CHILD_CUDA   the fake libcuda.so.1, loaded as a CUDA program's runtime would
//   FAULT_CHILD_NVML   a fake libnvidia-ml.so.1, loaded first so the capture's dlopen of the
//                      soname finds it (unset: the system's, or none)
//   FAULT_CHILD_CUPTI  the fake libcupti the capture was told to load: its test controls
//                      stand in for the GPU work CUPTI would see
//   CUDA_INJECTION64_PATH, NVTX_INJECTION64_PATH  as the driver and NVTX read them
// stdout is left to stdio's buffering, so it is written after the capture's exit handler.
#include <dlfcn.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

namespace {

void* load(const char* env_var) {
  const char* path = std::getenv(env_var);
  return path ? dlopen(path, RTLD_NOW | RTLD_GLOBAL) : nullptr;
}

template <class Fn>
Fn symbol(void* library, const char* name) {
  return library ? reinterpret_cast<Fn>(dlsym(library, name)) : nullptr;
}

// The program's own work: its output is what must not change.
long primes_below(long n) {
  long count = 0;
  for (long i = 2; i < n; ++i) {
    bool prime = true;
    for (long d = 2; d * d <= i && prime; ++d) prime = i % d != 0;
    count += prime;
  }
  return count;
}

}  // namespace

int main() {
  std::printf("fault child: start\n");
  void* preload = load("FAULT_CHILD_PRELOAD");
  void* cuda = load("FAULT_CHILD_CUDA");
  load("FAULT_CHILD_NVML");
  if (auto cu_init = symbol<int (*)(unsigned)>(cuda, "cuInit")) std::printf("cuInit: %d\n", cu_init(0));

  // NVTX initialises its injection at the program's first NVTX call.
  if (void* nvtx = load("NVTX_INJECTION64_PATH")) {
    if (auto init = symbol<int (*)(const void* (*)(unsigned))>(nvtx, "InitializeInjectionNvtx2")) init(nullptr);
  }

  const char* cupti_path = std::getenv("FAULT_CHILD_CUPTI");
  void* cupti = cupti_path ? dlopen(cupti_path, RTLD_NOW | RTLD_NOLOAD) : nullptr;
  auto context_created = symbol<void (*)()>(cupti, "fake_cupti_context_created");
  auto launch = symbol<void (*)(int)>(cupti, "fake_cupti_launch");
  if (context_created) context_created();

  for (int step = 1; step <= 3; ++step) {
    if (launch) launch(100);
    std::printf("step %d: %ld primes below %d\n", step, primes_below(step * 5000), step * 5000);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // a periodic flush, a sampler poll
  }
  // Its own CUPTI client (a framework profiler) subscribes; whether CUPTI lets it is CUPTI's
  // business, so the result is not part of the output.
  using Callback = void (*)(void*, int, unsigned, const void*);
  if (auto subscribe = symbol<int (*)(void**, Callback, void*)>(preload, "cuptiSubscribe")) {
    void* subscriber = nullptr;
    subscribe(
        &subscriber, [](void*, int, unsigned, const void*) {}, nullptr);
  }
  std::printf("fault child: done\n");
  return 3;
}

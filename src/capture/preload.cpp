// libgpuscope_preload.so: `gpuscope profile` puts it in LD_PRELOAD so that gpuscope learns
// when another CUPTI client in the program takes CUPTI's activity records.
//
// Why: CUPTI delivers activity buffers to one pair of callbacks per process. When the
// program runs its own CUPTI client (torch.profiler's Kineto), that client's
// cuptiActivityRegisterCallbacks replaces ours. Without notice, CUPTI then hands our
// half-filled buffers to the other client (Kineto logs "bufferCompleted called with unknown
// buffer"), and our periodic and exit-time cuptiActivityFlushAll calls race with that
// client's own flush and teardown: on an H100/H200 with PyTorch 2.11 this crashed the
// program at exit in about 1 run in 10 (docs/capture.md).
//
// This library defines cuptiActivityRegisterCallbacks, so the program's call reaches it
// first. It lets the capture library (which installs a hook through
// gpuscope_preload_set_takeover_hook) take its own buffers back and stop flushing, then
// forwards the call to the real libcupti unchanged. A capture that starts after the program
// registered (gpuscope_preload_program_registered) leaves CUPTI's records to the program. gpuscope's own registration
// never passes through here: the capture library calls libcupti through its dlopen handle.
//
// It also defines cuptiSubscribe, for the same reason: CUPTI allows one callback subscriber,
// and the capture library's (which counts the lean trace's filtered calls) must step aside.
//
// And it is where `--pytorch=ops`'s RecordFunction observer finds gpuscope: the observer, built
// against the program's torch, looks up gpuscope_torch_op_enter/exit here (this library is loaded
// from the start; the capture library only once CUDA starts), and they go on to the capture
// library's recorder once it has installed itself (torch_ops.h). Before that, ops go nowhere.
//
// Tiny on purpose: it is loaded into every process the program starts (shells too), so it
// has no constructor, no C++ runtime and no dependency beyond libc.
#include <cupti.h>
#include <dlfcn.h>
#include <link.h>

#include <atomic>
#include <cstdint>
#include <cstring>

namespace {

using RegisterCallbacksFn = CUptiResult(CUPTIAPI*)(CUpti_BuffersCallbackRequestFunc, CUpti_BuffersCallbackCompleteFunc);
using SubscribeFn = CUptiResult(CUPTIAPI*)(CUpti_SubscriberHandle*, CUpti_CallbackFunc, void*);
using SubscribeV2Fn = CUptiResult(CUPTIAPI*)(CUpti_SubscriberHandle*, CUpti_CallbackFunc, void*,
                                             CUpti_SubscriberParams*);
using TakeoverHook = void (*)();

std::atomic<TakeoverHook> g_hook{nullptr};
std::atomic<TakeoverHook> g_subscribe_hook{nullptr};
std::atomic<bool> g_program_registered{false};  // any registration through here, ever
using OpEnter = void (*)(const char*, int64_t);
using OpExit = void (*)();
std::atomic<OpEnter> g_op_enter{nullptr};
std::atomic<OpExit> g_op_exit{nullptr};

extern "C" CUptiResult CUPTIAPI cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc,
                                                               CUpti_BuffersCallbackCompleteFunc);
extern "C" CUptiResult CUPTIAPI cuptiSubscribe(CUpti_SubscriberHandle*, CUpti_CallbackFunc, void*);
extern "C" CUptiResult CUPTIAPI cuptiSubscribe_v2(CUpti_SubscriberHandle*, CUpti_CallbackFunc, void*,
                                                  CUpti_SubscriberParams*);

// Loaded objects whose file name mentions cupti, collected first: dlopen must not run
// inside dl_iterate_phdr, which holds the loader's lock.
struct CuptiCandidates {
  char names[8][512];
  int count = 0;
};

int collect_cupti(struct dl_phdr_info* info, size_t, void* data) {
  auto* found = static_cast<CuptiCandidates*>(data);
  const char* name = info->dlpi_name;
  if (name == nullptr || std::strstr(name, "cupti") == nullptr || found->count == 8) return 0;
  if (std::strlen(name) >= sizeof found->names[0]) return 0;
  std::strcpy(found->names[found->count++], name);
  return 0;
}

// `name` in the libcupti the program linked: next in the lookup order after us; else in a cupti
// library the program loaded outside the global scope (dlopen with RTLD_LOCAL). `self` is our own
// definition, never the answer.
void* real_cupti_function(const char* name, void* self) {
  void* fn = dlsym(RTLD_NEXT, name);
  if (fn == nullptr || fn == self) {
    fn = nullptr;
    CuptiCandidates found;
    dl_iterate_phdr(collect_cupti, &found);
    for (int i = 0; i < found.count && fn == nullptr; ++i) {
      void* handle = dlopen(found.names[i], RTLD_NOLOAD | RTLD_LAZY);
      if (handle == nullptr) continue;
      void* candidate = dlsym(handle, name);
      if (candidate != self) fn = candidate;
    }
  }
  return fn;
}

template <class Fn>
Fn real_cached(std::atomic<Fn>& cached, const char* name, void* self) {
  if (Fn fn = cached.load(std::memory_order_acquire)) return fn;
  auto typed = reinterpret_cast<Fn>(real_cupti_function(name, self));
  cached.store(typed, std::memory_order_release);
  return typed;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) void gpuscope_preload_set_takeover_hook(TakeoverHook hook) {
  g_hook.store(hook, std::memory_order_release);
}

// Whether the program has registered activity callbacks of its own. Asked by the capture
// library before it registers its own: CUPTI may start CUDA from inside the program's
// registration, so the capture can start in the middle of it, before any hook is installed.
extern "C" __attribute__((visibility("default"))) bool gpuscope_preload_program_registered() {
  return g_program_registered.load(std::memory_order_acquire);
}

extern "C" __attribute__((visibility("default"))) CUptiResult CUPTIAPI cuptiActivityRegisterCallbacks(
    CUpti_BuffersCallbackRequestFunc requested, CUpti_BuffersCallbackCompleteFunc completed) {
  static std::atomic<RegisterCallbacksFn> cached{nullptr};
  RegisterCallbacksFn real = real_cached(cached, "cuptiActivityRegisterCallbacks",
                                         reinterpret_cast<void*>(&::cuptiActivityRegisterCallbacks));
  if (real == nullptr) return CUPTI_ERROR_NOT_INITIALIZED;  // no libcupti in the process: as libcupti would fail
  g_program_registered.store(true, std::memory_order_release);
  if (TakeoverHook hook = g_hook.load(std::memory_order_acquire)) hook();
  return real(requested, completed);
}

extern "C" __attribute__((visibility("default"))) void gpuscope_preload_set_subscribe_hook(TakeoverHook hook) {
  g_subscribe_hook.store(hook, std::memory_order_release);
}

// CUPTI allows one callback subscriber per process; gpuscope's (lean API counts, capture ranges,
// metrics) gives way to the program's own, which would otherwise fail.
extern "C" __attribute__((visibility("default"))) CUptiResult CUPTIAPI
cuptiSubscribe(CUpti_SubscriberHandle* subscriber, CUpti_CallbackFunc callback, void* userdata) {
  static std::atomic<SubscribeFn> cached{nullptr};
  SubscribeFn real = real_cached(cached, "cuptiSubscribe", reinterpret_cast<void*>(&::cuptiSubscribe));
  if (real == nullptr) return CUPTI_ERROR_NOT_INITIALIZED;
  if (TakeoverHook hook = g_subscribe_hook.load(std::memory_order_acquire)) hook();
  return real(subscriber, callback, userdata);
}

extern "C" __attribute__((visibility("default"))) CUptiResult CUPTIAPI cuptiSubscribe_v2(
    CUpti_SubscriberHandle* subscriber, CUpti_CallbackFunc callback, void* userdata, CUpti_SubscriberParams* params) {
  static std::atomic<SubscribeV2Fn> cached{nullptr};
  SubscribeV2Fn real = real_cached(cached, "cuptiSubscribe_v2", reinterpret_cast<void*>(&::cuptiSubscribe_v2));
  if (real == nullptr) return CUPTI_ERROR_NOT_INITIALIZED;
  if (TakeoverHook hook = g_subscribe_hook.load(std::memory_order_acquire)) hook();
  return real(subscriber, callback, userdata, params);
}

// An op of the program's torch begins or ends on the calling thread (`--pytorch=ops`).
extern "C" __attribute__((visibility("default"))) void gpuscope_torch_op_enter(const char* name,
                                                                               int64_t sequence_number) {
  if (OpEnter enter = g_op_enter.load(std::memory_order_acquire)) enter(name, sequence_number);
}

extern "C" __attribute__((visibility("default"))) void gpuscope_torch_op_exit() {
  if (OpExit exit = g_op_exit.load(std::memory_order_acquire)) exit();
}

// The capture library's recorder; set once it records (its exit before its enter, so that an exit
// never arrives without the enter it would pop).
extern "C" __attribute__((visibility("default"))) void gpuscope_preload_set_op_hooks(OpEnter enter, OpExit exit) {
  g_op_exit.store(exit, std::memory_order_release);
  g_op_enter.store(enter, std::memory_order_release);
}

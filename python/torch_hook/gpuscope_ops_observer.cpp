// `gpuscope profile --pytorch=ops`: a RecordFunction observer of every op of the program's torch.
// gpuscope_torch.py builds it with g++ against that torch's headers and libraries at first use,
// keeps it in gpuscope's cache, loads it with ctypes and calls gpuscope_ops_observer_install().
//
// At each op's entry and exit it calls gpuscope_torch_op_enter/exit, which libgpuscope_preload.so
// (in LD_PRELOAD under `gpuscope profile`) passes on to the capture library. It keeps nothing
// itself and asks torch for no inputs, outputs or ids, so an op costs two calls and a name copy.
// If torch's API differs from what this file expects, it does not compile and the hook falls back
// to torch's emit_nvtx: the program is never harmed.
#include <ATen/record_function.h>
#include <dlfcn.h>

#include <cstdint>
#include <memory>
#include <type_traits>

namespace {

using OpEnter = void (*)(const char*, int64_t);
using OpExit = void (*)();
OpEnter g_enter = nullptr;
OpExit g_exit = nullptr;

// torch's name of the op: a NUL-terminated string that lives while the op runs.
static_assert(std::is_same_v<decltype(std::declval<const at::RecordFunction&>().name()), const char*>,
              "RecordFunction::name() is not a C string in this torch");

std::unique_ptr<at::ObserverContext> on_enter(const at::RecordFunction& fn) {
  g_enter(fn.name(), fn.seqNr());
  return nullptr;
}

void on_exit(const at::RecordFunction&, at::ObserverContext*) { g_exit(); }

}  // namespace

// 0: observing every op from now on; 1: gpuscope's preload library is not in the process (the
// program was not started by `gpuscope profile`), nothing done.
extern "C" int gpuscope_ops_observer_install() {
  g_enter = reinterpret_cast<OpEnter>(dlsym(RTLD_DEFAULT, "gpuscope_torch_op_enter"));
  g_exit = reinterpret_cast<OpExit>(dlsym(RTLD_DEFAULT, "gpuscope_torch_op_exit"));
  if (g_enter == nullptr || g_exit == nullptr) return 1;
  at::addGlobalCallback(at::RecordFunctionCallback(on_enter, on_exit)
                            .needsInputs(false)
                            .needsOutputs(false)
                            .needsIds(false)
                            .scopes({at::RecordScope::FUNCTION, at::RecordScope::BACKWARD_FUNCTION}));
  return 0;
}

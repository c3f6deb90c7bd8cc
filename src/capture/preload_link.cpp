#include "capture/preload_link.h"

#include <dlfcn.h>

namespace gpuscope::capture {

bool program_registered_cupti_callbacks() {
  using Registered = bool (*)();
  auto registered = reinterpret_cast<Registered>(dlsym(RTLD_DEFAULT, "gpuscope_preload_program_registered"));
  return registered != nullptr && registered();
}

void install_cupti_takeover_hook(void (*hook)()) {
  using SetHook = void (*)(void (*)());
  if (auto set = reinterpret_cast<SetHook>(dlsym(RTLD_DEFAULT, "gpuscope_preload_set_takeover_hook"))) set(hook);
}

void install_subscribe_hook(void (*hook)()) {
  using SetHook = void (*)(void (*)());
  if (auto set = reinterpret_cast<SetHook>(dlsym(RTLD_DEFAULT, "gpuscope_preload_set_subscribe_hook"))) set(hook);
}

void install_torch_op_hooks(void (*enter)(const char*, int64_t), void (*exit)()) {
  using SetHooks = void (*)(void (*)(const char*, int64_t), void (*)());
  if (auto set = reinterpret_cast<SetHooks>(dlsym(RTLD_DEFAULT, "gpuscope_preload_set_op_hooks"))) set(enter, exit);
}

}  // namespace gpuscope::capture

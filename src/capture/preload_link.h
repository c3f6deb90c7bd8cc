// The capture library's side of libgpuscope_preload.so (src/capture/preload.cpp), which
// `gpuscope profile` puts in LD_PRELOAD. Both functions find it with dlsym(RTLD_DEFAULT) and do
// nothing useful without it (a program started by other means, or a setuid one).
#pragma once

#include <cstdint>

namespace gpuscope::capture {

// Whether the program has registered CUPTI activity callbacks of its own so far.
bool program_registered_cupti_callbacks();

// `hook` runs on the program's thread each time the program registers activity callbacks,
// before the registration reaches libcupti.
void install_cupti_takeover_hook(void (*hook)());

// `hook` runs on the program's thread each time the program calls cuptiSubscribe, before the
// call reaches libcupti (CUPTI allows one subscriber: ours must go first).
void install_subscribe_hook(void (*hook)());

// PyTorch's op observer (torch_ops.h) reaches `enter` and `exit` from now on.
void install_torch_op_hooks(void (*enter)(const char*, int64_t), void (*exit)());

}  // namespace gpuscope::capture

// Keeps the injection libraries loadable on older glibc than the build machine's.
//
// The static libstdc++ we link carries std::random_device, which references
// arc4random(); glibc has it only since 2.36 (Debian 12), so the bare reference would
// make the library refuse to load on glibc 2.35 (Ubuntu 22.04) - and a library that
// cannot load is the opposite of failing open. We never use std::random_device; this
// local definition (hidden, not exported) satisfies the reference, and is a correct
// arc4random should anything ever call it.
//
// The remaining floor is glibc 2.35: libgcc's static unwinder uses _dl_find_object.
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

extern "C" __attribute__((visibility("hidden"))) uint32_t arc4random(void) noexcept {
  uint32_t value = 0;
  long rc;
  do {
    rc = ::syscall(SYS_getrandom, &value, sizeof(value), 0);
  } while (rc < 0 && errno == EINTR);
  return value;
}

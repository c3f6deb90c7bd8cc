// A stand-in libcuda.so.1 for the fault-injection matrix's child program (fault_child.cpp):
// cuInit loads CUDA_INJECTION64_PATH and calls its InitializeInjection, as the driver does,
// and the device queries the capture makes of the driver (driver_probe.cpp) answer for one
// GPU whose PCI bus id is the one the fake NVML knows. Its soname is libcuda.so.1, so the
// capture's dlopen("libcuda.so.1", RTLD_NOLOAD) finds it once the program has loaded it.
#include <dlfcn.h>

#include <cstdlib>
#include <cstring>

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))

namespace {
constexpr int kSuccess = 0;                     // CUDA_SUCCESS
constexpr int kInvalidValue = 1;                // CUDA_ERROR_INVALID_VALUE
constexpr int kInvalidDevice = 101;             // CUDA_ERROR_INVALID_DEVICE
constexpr const char* kBusId = "0000:01:00.0";  // fake_nvml.cpp's GPU
}  // namespace

FAKE_EXPORT int cuInit(unsigned) {
  static bool done = false;
  if (done) return kSuccess;
  done = true;
  // The driver ignores an injection it cannot load: the program runs on.
  if (const char* path = std::getenv("CUDA_INJECTION64_PATH")) {
    if (void* library = dlopen(path, RTLD_NOW | RTLD_LOCAL)) {
      if (auto init = reinterpret_cast<int (*)()>(dlsym(library, "InitializeInjection"))) init();
    }
  }
  return kSuccess;
}

FAKE_EXPORT int cuDriverGetVersion(int* version) {
  if (version == nullptr) return kInvalidValue;
  *version = 13000;
  return kSuccess;
}

FAKE_EXPORT int cuDeviceGet(int* device, int ordinal) {
  if (device == nullptr) return kInvalidValue;
  if (ordinal != 0) return kInvalidDevice;
  *device = 0;
  return kSuccess;
}

FAKE_EXPORT int cuDeviceGetPCIBusId(char* text, int length, int device) {
  if (text == nullptr || length < 13) return kInvalidValue;
  if (device != 0) return kInvalidDevice;
  std::strncpy(text, kBusId, static_cast<size_t>(length) - 1);
  text[length - 1] = '\0';
  return kSuccess;
}

#include "capture/driver_probe.h"

#include <cuda.h>
#include <dlfcn.h>

namespace gpuscope::capture {
namespace {

void* loaded_libcuda() {
  // The driver is what loaded us, so it is there; NOLOAD makes sure we never load one.
  static void* handle = dlopen("libcuda.so.1", RTLD_NOLOAD | RTLD_NOW);
  return handle;
}

template <class Fn>
Fn driver_symbol(const char* name) {
  void* handle = loaded_libcuda();
  return handle ? reinterpret_cast<Fn>(dlsym(handle, name)) : nullptr;
}

}  // namespace

uint32_t cuda_driver_version() {
  using Fn = CUresult (*)(int*);
  static const auto fn = driver_symbol<Fn>("cuDriverGetVersion");
  int version = 0;
  if (fn == nullptr || fn(&version) != CUDA_SUCCESS || version < 0) return 0;
  return static_cast<uint32_t>(version);
}

uint32_t cuda_runtime_version() {
  using Fn = int (*)(int*);  // cudaError_t cudaRuntimeGetVersion(int*); cudaSuccess == 0
  auto fn = reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, "cudaRuntimeGetVersion"));
  int version = 0;
  if (fn == nullptr || fn(&version) != 0 || version < 0) return 0;
  return static_cast<uint32_t>(version);
}

int current_context_device() {
  using Fn = CUresult (*)(CUdevice*);  // the CUDA 11/12 symbol: the current context's device
  static const auto fn = driver_symbol<Fn>("cuCtxGetDevice");
  CUdevice dev{};
  if (fn == nullptr || fn(&dev) != CUDA_SUCCESS) return -1;
  return static_cast<int>(dev);
}

std::string device_pci_bus_id(int ordinal) {
  using GetFn = CUresult (*)(CUdevice*, int);
  using BusIdFn = CUresult (*)(char*, int, CUdevice);
  static const auto get = driver_symbol<GetFn>("cuDeviceGet");
  static const auto bus_id = driver_symbol<BusIdFn>("cuDeviceGetPCIBusId");
  CUdevice dev{};
  char text[32] = {};  // "dddd:bb:dd.f" and a NUL fit; CUDA asks for at least 13
  if (get == nullptr || bus_id == nullptr || get(&dev, ordinal) != CUDA_SUCCESS ||
      bus_id(text, static_cast<int>(sizeof(text)), dev) != CUDA_SUCCESS)
    return "";
  return text;
}

void enrich_device_from_driver(spool::DeviceRecord& device) {
  using GetFn = CUresult (*)(CUdevice*, int);
  using AttrFn = CUresult (*)(int*, CUdevice_attribute, CUdevice);
  static const auto get = driver_symbol<GetFn>("cuDeviceGet");
  static const auto attr = driver_symbol<AttrFn>("cuDeviceGetAttribute");
  if (get == nullptr || attr == nullptr) return;
  // CUPTI's device id is the CUDA ordinal as this process sees it.
  CUdevice dev{};
  if (get(&dev, static_cast<int>(device.id)) != CUDA_SUCCESS) return;
  int value = 0;
  if (device.memory_clock_khz == 0 && attr(&value, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, dev) == CUDA_SUCCESS &&
      value > 0) {
    device.memory_clock_khz = static_cast<uint32_t>(value);
  }
  if (device.memory_bus_width_bits == 0 &&
      attr(&value, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, dev) == CUDA_SUCCESS && value > 0) {
    device.memory_bus_width_bits = static_cast<uint32_t>(value);
  }
}

}  // namespace gpuscope::capture

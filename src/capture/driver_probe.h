// Small questions to the CUDA driver and runtime the program already loaded. We
// look the functions up in the loaded libraries (dlopen RTLD_NOLOAD / RTLD_DEFAULT)
// and never load or link anything ourselves. Every answer may be 0 = unknown.
#pragma once

#include <cstdint>
#include <string>

#include "spool/format.h"

namespace gpuscope::capture {

// cuDriverGetVersion, e.g. 13000. Needs no CUDA initialisation.
uint32_t cuda_driver_version();

// cudaRuntimeGetVersion when the program uses a shared libcudart (PyTorch does);
// 0 with the static libcudart nvcc links by default, whose symbols are not exported.
// Call it on our writer thread: its API record is then recognised and dropped.
uint32_t cuda_runtime_version();

// The device ordinal of the calling thread's current context, or -1.
int current_context_device();

// The PCI bus id of CUDA device `ordinal` ("0000:19:00.0"), for finding it in NVML; "" when
// unknown. Call it on one of our threads (threads.h): its driver API record is then dropped.
std::string device_pci_bus_id(int ordinal);

// Adds what CUPTI's DEVICE record lacks: memory clock (kHz) and bus width (bits),
// via cuDeviceGetAttribute. Called on the writer thread (its driver API records, if
// driver_api=1, are dropped with the rest of that thread's).
void enrich_device_from_driver(spool::DeviceRecord& device);

}  // namespace gpuscope::capture

// The library's one CUPTI callback subscriber. CUPTI gives each process few subscribers
// (a program's own profiler may want one), so we subscribe only when metrics need
// callbacks, and dispatch to the users from one place:
//   kernel-launch API calls (runtime and driver)  -> KernelProfiler (range profiler)
//   context created / destroy starting            -> the DeviceSampler (which devices to sample)
#pragma once

#include <string>

#include "capture/cupti_loader.h"
#include "capture/device_sampler.h"
#include "capture/kernel_profiler.h"

namespace gpuscope::capture {

// Subscribes and enables the callbacks the non-null users need. Returns "" or one line on
// why CUPTI refused (then neither user gets callbacks). The subscription lasts the process.
std::string subscribe_callbacks(const CuptiApi& api, KernelProfiler* kernels, DeviceSampler* sampler);

}  // namespace gpuscope::capture

// What a CUDA API function does, by its name: one classification that the analyses use to
// attribute host time and that the capture uses to choose which calls `--api core` records (a
// call the analyses would class as Other, and that does not create the context, is not needed).
#pragma once

#include <string_view>

namespace gpuscope {

enum class ApiClass { Allocation, Memory, Synchronization, Launch, Loading, Other };

// By name: cudaMalloc*/cudaFree*/cuMemAlloc*/cuMemFree*/cudaHostAlloc... are
// Allocation; cudaMemcpy*/cudaMemset*/cuMemcpy*/cuMemset* Memory;
// *Synchronize/cudaStreamWaitEvent/cuStreamWaitEvent/cudaStreamQuery/cudaEventQuery
// Synchronization; cudaLaunch*/cuLaunch*/cudaGraphLaunch Launch; loading code and libraries
// (cuModuleLoad*, cuModuleGetFunction, cuLibraryLoad*, cuLibraryGet*, cudaFuncGetAttributes,
// cuFuncGetAttribute, cublasCreate*, cublasLtCreate*, cudnnCreate*) Loading, which the Start-up
// section shows and the attribution counts as other CUDA API.
ApiClass classify_api(std::string_view name);

// Calls whose job is to set up the device and its context (programs call them once, first,
// exactly to create the context up front): cudaSetDevice, cudaInitDevice, cudaSetDeviceFlags,
// cudaFree, cuInit, cuDevicePrimaryCtxRetain, cuCtxCreate*.
bool creates_context(std::string_view name);

}  // namespace gpuscope

#include "gpuscope/api_class.h"

namespace gpuscope {

ApiClass classify_api(std::string_view n) {
  const auto starts = [n](std::string_view prefix) { return n.starts_with(prefix); };
  if (starts("cudaMalloc") || starts("cudaFree") || starts("cudaHostAlloc") || starts("cudaHostRegister") ||
      starts("cudaHostUnregister") || starts("cuMemAlloc") || starts("cuMemFree") || starts("cuMemHostAlloc") ||
      starts("cuMemHostRegister") || starts("cuMemCreate") || starts("cuMemRelease") || starts("cuMemMap") ||
      starts("cuMemUnmap"))
    return ApiClass::Allocation;
  if (starts("cudaMemcpy") || starts("cudaMemset") || starts("cuMemcpy") || starts("cuMemset") ||
      starts("cudaMemPrefetch") || starts("cuMemPrefetch"))
    return ApiClass::Memory;
  if (n.find("Synchronize") != std::string_view::npos || n == "cudaStreamWaitEvent" || n == "cuStreamWaitEvent" ||
      starts("cudaStreamQuery") || starts("cudaEventQuery"))
    return ApiClass::Synchronization;
  if (starts("cudaLaunch") || starts("cuLaunch") || starts("cudaGraphLaunch") || starts("cuGraphLaunch"))
    return ApiClass::Launch;
  // Lazy module loading (CUDA_MODULE_LOADING=LAZY) runs inside the first launch of a kernel as
  // nested driver calls; libraries create their handles once.
  if (starts("cuModuleLoad") || n == "cuModuleGetFunction" || starts("cuLibraryLoad") || starts("cuLibraryGet") ||
      n == "cudaFuncGetAttributes" || n == "cuFuncGetAttribute" || starts("cublasCreate") || starts("cublasLtCreate") ||
      starts("cudnnCreate"))
    return ApiClass::Loading;
  return ApiClass::Other;
}

bool creates_context(std::string_view n) {
  return n == "cudaSetDevice" || n == "cudaInitDevice" || n == "cudaSetDeviceFlags" || n == "cudaFree" ||
         n == "cuInit" || n == "cuDevicePrimaryCtxRetain" || n.starts_with("cuCtxCreate");
}

}  // namespace gpuscope

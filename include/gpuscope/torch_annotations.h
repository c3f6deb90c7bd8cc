// The ranges gpuscope makes from torch.profiler's annotations (record_function, ProfilerStep#N):
// the importer writes them, the analyses that pick ranges by name read them.
#pragma once

namespace gpuscope {

// The domain of the CPU-side ranges.
inline constexpr char kAnnotationDomain[] = "torch.profiler";
// The domain of the GPU-side spans of those annotations (gpu_user_annotation events: from the
// first to the last GPU work under one), named "GPU: NAME" beside the CPU range NAME, so that
// "ProfilerStep#*" and other iteration ranges never match the GPU-side copies of their CPU ranges.
inline constexpr char kGpuAnnotationDomain[] = "torch.profiler (GPU)";
inline constexpr char kGpuAnnotationPrefix[] = "GPU: ";

}  // namespace gpuscope

// Private to the metric sections: one builder per topic, each from the analysed kernel groups
// (analysis_metrics.h). A builder returns nothing when no kernel has its metrics, so a trace
// without them renders as before. build_kernel_metric_sections() (builder.h) calls them in order.
#pragma once

#include <optional>
#include <vector>

#include "gpuscope/analysis_metrics.h"
#include "report/builder.h"

namespace gpuscope::report {

using analysis::KernelMetrics;

std::optional<Section> build_sol_section(const std::vector<KernelMetrics>& kernels, size_t top);
std::optional<Section> build_memory_workload_section(const std::vector<KernelMetrics>& kernels, size_t top);
std::optional<Section> build_achieved_occupancy_section(const std::vector<KernelMetrics>& kernels, size_t top);
std::optional<Section> build_warp_stall_section(const std::vector<KernelMetrics>& kernels, size_t top);
std::optional<Section> build_tensor_section(const std::vector<KernelMetrics>& kernels, size_t top);
std::optional<Section> build_roofline_section(const std::vector<KernelMetrics>& kernels, size_t top);

// The first column of every metric table.
inline Column kernel_column() { return text_column("name", "Kernel", TextStyle::Identifier); }

}  // namespace gpuscope::report

// Theoretical occupancy and waves of kernel launches, computed on the CPU from
// the captured launch resources and the Device row, following the rules of
// NVIDIA's occupancy calculator (cuda_occupancy.h) for compute capability 7.0+.
// docs/report.md "Launch configuration" lists every constant used and why.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpuscope/analysis.h"
#include "gpuscope/model.h"

namespace gpuscope::analysis {

enum class OccupancyLimiter { Warps, Blocks, Registers, SharedMemory, None };
const char* to_string(OccupancyLimiter l);

struct OccupancyInput {
  uint32_t threads_per_block = 0;
  uint32_t registers_per_thread = 0;
  uint64_t shared_bytes_per_block = 0;  // static + dynamic; 64 bits so the sum cannot wrap
  uint64_t blocks = 0;                  // grid size, for waves
};

// The input for a launch configuration, every product in 64 bits: a dimension that is not
// positive, or a block of more than 2^32 threads, gives 0 threads (no occupancy) and a grid
// with such a dimension 0 blocks. Importers reject such configurations (finalize.h); this
// keeps the arithmetic safe on any Trace built by other means.
OccupancyInput occupancy_input(const LaunchConfig& config);

struct Occupancy {
  uint32_t warps_per_block = 0;
  // Blocks one SM can hold under each limit; the smallest is the result.
  uint32_t blocks_by_warps = 0, blocks_by_blocks = 0, blocks_by_registers = 0, blocks_by_shared = 0;
  uint32_t blocks_per_sm = 0;
  OccupancyLimiter limiter = OccupancyLimiter::None;  // None: the launch cannot fit at all
  double occupancy_percent = 0;                       // active warps / max warps per SM
  uint32_t registers_per_warp = 0;                    // allocated, after granularity
  uint32_t shared_per_block = 0;                      // allocated, reserve and granularity included
  double waves = 0;                                   // blocks / (blocks_per_sm * SMs)
  uint64_t full_waves = 0;
  double last_wave_percent = 0;  // SM slots busy in the last wave; 100 when waves is whole
};

// nullopt when the device lacks the limits (imported traces) or the
// architecture is older than 7.0 (different allocation rules).
std::optional<Occupancy> compute_occupancy(const Device& device, const OccupancyInput& in);

struct KernelOccupancy {
  std::string name;
  LaunchConfig config;
  size_t launches = 0;
  double total_ns = 0;
  std::string device_name;
  std::optional<Occupancy> occupancy;
};

// The kernel groups by total time (summarize_kernels order), each with its most
// common configuration on the device it ran on. `top` 0 = all.
std::vector<KernelOccupancy> kernel_occupancy(const Trace& trace, size_t top);
// The same from summarize_kernels(trace) already at hand.
std::vector<KernelOccupancy> kernel_occupancy(const Trace& trace, std::vector<KernelGroup> groups, size_t top);

}  // namespace gpuscope::analysis

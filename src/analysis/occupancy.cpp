// Theoretical occupancy, after cuda_occupancy.h (CUDA 12/13) for cc >= 7.0:
//  - registers are allocated per warp in units of 256 (regs/thread x 32,
//    rounded up), from 4 sub-partitions of regs_per_SM / 4 each, so warps per
//    SM = 4 x floor((regs_per_SM / 4) / regs_per_warp); more than 255
//    regs/thread or more than regs_per_block per block cannot launch;
//  - shared memory per block = static + dynamic + 1 KB the system reserves per
//    block (cc >= 8.0), rounded up to 128 B; the SM's capacity is taken at its
//    largest carveout (max_shared_per_sm_bytes), so this limit is optimistic
//    when the driver picked a smaller carveout;
//  - warps and blocks per SM from the Device row.
#include <algorithm>
#include <array>
#include <cmath>
#include <map>

#include "gpuscope/analysis_occupancy.h"

namespace gpuscope::analysis {
namespace {

constexpr uint32_t kRegisterUnit = 256;  // registers per warp allocation unit
constexpr uint32_t kMaxRegsPerThread = 255;
constexpr uint32_t kSubPartitions = 4;
constexpr uint32_t kSharedUnit = 128;          // bytes, cc 8.x/9.x
constexpr uint32_t kSharedReservedCc8 = 1024;  // bytes per block, cc >= 8.0

uint64_t round_up(uint64_t v, uint64_t unit) { return (v + unit - 1) / unit * unit; }

// Counts that fit in 32 bits whenever the inputs are real; saturated when they are not.
uint32_t saturate(uint64_t v) { return static_cast<uint32_t>(std::min<uint64_t>(v, UINT32_MAX)); }

// The product of three dimensions: 0 when one is not positive (no launch has such a
// dimension), UINT64_MAX when it overflows (three factors below 2^31 can reach 2^93).
uint64_t product(const std::array<int32_t, 3>& dims) {
  uint64_t p = 1;
  for (int32_t d : dims) {
    if (d <= 0) return 0;
    if (__builtin_mul_overflow(p, static_cast<uint64_t>(d), &p)) return UINT64_MAX;
  }
  return p;
}

// Same grouping as summarize_kernels(): demangled name, else mangled.
bool same_group(const Trace& t, const Kernel& k, const KernelGroup& g) {
  const std::string& demangled = t.strings.get(k.name);
  const std::string& name = demangled.empty() ? t.strings.get(k.mangled_name) : demangled;
  if (name != g.name) return false;
  const auto& c = g.config;
  return k.grid[0] == c.grid[0] && k.grid[1] == c.grid[1] && k.grid[2] == c.grid[2] && k.block[0] == c.block[0] &&
         k.block[1] == c.block[1] && k.block[2] == c.block[2] && k.registers_per_thread == c.registers_per_thread;
}

}  // namespace

const char* to_string(OccupancyLimiter l) {
  switch (l) {
    case OccupancyLimiter::Warps: return "warps";
    case OccupancyLimiter::Blocks: return "blocks";
    case OccupancyLimiter::Registers: return "registers";
    case OccupancyLimiter::SharedMemory: return "shared memory";
    case OccupancyLimiter::None: return "cannot launch";
  }
  return "unknown";
}

OccupancyInput occupancy_input(const LaunchConfig& c) {
  const uint64_t threads = product(c.block);
  return {threads > UINT32_MAX ? 0 : static_cast<uint32_t>(threads), c.registers_per_thread,
          uint64_t{c.static_shared_bytes} + c.dynamic_shared_bytes, product(c.grid)};
}

std::optional<Occupancy> compute_occupancy(const Device& d, const OccupancyInput& in) {
  if (d.compute_major < 7 || d.max_warps_per_sm == 0 || d.max_blocks_per_sm == 0 || d.max_registers_per_sm == 0 ||
      d.warp_size == 0 || in.threads_per_block == 0)
    return std::nullopt;
  // Every product and sum below in 64 bits: a capture from elsewhere may hold any 32-bit value
  // (a warp size of 2^32 - 1 once made warps_per_block 0 and the division below a SIGFPE).
  Occupancy o;
  const uint64_t warps_per_block = (uint64_t{in.threads_per_block} + d.warp_size - 1) / d.warp_size;
  o.warps_per_block = saturate(warps_per_block);
  o.blocks_by_warps = saturate(d.max_warps_per_sm / warps_per_block);
  o.blocks_by_blocks = d.max_blocks_per_sm;

  const uint64_t registers_per_warp = round_up(uint64_t{in.registers_per_thread} * d.warp_size, kRegisterUnit);
  o.registers_per_warp = saturate(registers_per_warp);
  const uint64_t regs_per_block = registers_per_warp * round_up(warps_per_block, kSubPartitions);
  if (in.registers_per_thread > kMaxRegsPerThread ||
      (d.max_registers_per_block && regs_per_block > d.max_registers_per_block))
    o.blocks_by_registers = 0;
  else if (registers_per_warp == 0) o.blocks_by_registers = UINT32_MAX;
  else
    o.blocks_by_registers = saturate(kSubPartitions * ((d.max_registers_per_sm / kSubPartitions) / registers_per_warp) /
                                     warps_per_block);

  const uint64_t reserved = d.compute_major >= 8 ? kSharedReservedCc8 : 0;
  const uint64_t shared_per_block = round_up(in.shared_bytes_per_block + reserved, kSharedUnit);
  o.shared_per_block = saturate(shared_per_block);
  // Before sm_80 nothing is reserved, so a kernel without shared memory needs none: no limit
  // (and no division by zero).
  o.blocks_by_shared = d.max_shared_per_sm_bytes == 0 || shared_per_block == 0
                           ? UINT32_MAX
                           : saturate(d.max_shared_per_sm_bytes / shared_per_block);

  // The first limit reached, in the calculator's order of reporting.
  const std::pair<uint32_t, OccupancyLimiter> limits[] = {{o.blocks_by_warps, OccupancyLimiter::Warps},
                                                          {o.blocks_by_blocks, OccupancyLimiter::Blocks},
                                                          {o.blocks_by_registers, OccupancyLimiter::Registers},
                                                          {o.blocks_by_shared, OccupancyLimiter::SharedMemory}};
  o.blocks_per_sm = UINT32_MAX;
  for (const auto& [blocks, limiter] : limits)
    if (blocks < o.blocks_per_sm) o.blocks_per_sm = blocks, o.limiter = limiter;
  if (o.blocks_per_sm == 0) o.limiter = OccupancyLimiter::None;
  o.occupancy_percent = 100.0 * o.blocks_per_sm * o.warps_per_block / d.max_warps_per_sm;

  const uint64_t slots = static_cast<uint64_t>(o.blocks_per_sm) * d.sm_count;
  if (slots > 0 && in.blocks > 0) {
    o.waves = static_cast<double>(in.blocks) / static_cast<double>(slots);
    o.full_waves = in.blocks / slots;
    const uint64_t rest = in.blocks % slots;
    o.last_wave_percent = rest == 0 ? 100.0 : 100.0 * static_cast<double>(rest) / static_cast<double>(slots);
  }
  return o;
}

std::vector<KernelOccupancy> kernel_occupancy(const Trace& trace, size_t top) {
  return kernel_occupancy(trace, summarize_kernels(trace), top);
}

std::vector<KernelOccupancy> kernel_occupancy(const Trace& trace, std::vector<KernelGroup> groups, size_t top) {
  if (top > 0 && groups.size() > top) groups.resize(top);
  std::vector<KernelOccupancy> out;
  for (const KernelGroup& g : groups) {
    KernelOccupancy ko{g.name, g.config, g.duration.count, g.duration.total, "", std::nullopt};
    // The device of the first launch with this name and configuration.
    for (const Kernel& k : trace.kernels) {
      if (!same_group(trace, k, g)) continue;
      auto dev = std::find_if(trace.devices.begin(), trace.devices.end(),
                              [&](const Device& d) { return d.pid == k.pid && d.id == k.device; });
      if (dev == trace.devices.end()) break;
      ko.device_name = dev->name;
      ko.occupancy = compute_occupancy(*dev, occupancy_input(g.config));
      break;
    }
    out.push_back(std::move(ko));
  }
  return out;
}

}  // namespace gpuscope::analysis

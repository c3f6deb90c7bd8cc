// What the packed event tables need besides the row itself, one per file written or read: the
// time base their times are offsets from, and the dictionary of kernel launch configurations that
// kernels_packed refers to by id (kernel_launches).
#pragma once

#include <array>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "gpuscope/model.h"

namespace gpuscope::store {

// The columns that repeat across the launches of one kernel: its names and launch
// configuration. Stored once per distinct combination.
struct KernelLaunch {
  uint32_t id = 0;
  StringId mangled_name = 0, name = 0;
  int32_t grid[3] = {0, 0, 0};
  int32_t block[3] = {0, 0, 0};
  int32_t cluster[3] = {0, 0, 0};
  uint32_t registers_per_thread = 0;
  uint32_t static_shared_bytes = 0;
  uint32_t dynamic_shared_bytes = 0;
  uint32_t local_bytes_per_thread = 0;
};

// Offsets and durations in wrapping 64-bit arithmetic: any pair of times, however extreme
// (imported files carry what they carry), packs and unpacks to exactly the same values.
inline int64_t wrapping_sub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
inline int64_t wrapping_add(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}

struct RowCodec {
  TimeNs time_base = 0;  // ns, run.start_ns: packed times are stored as offsets from it

  // Writing: the id of this kernel's launch configuration, added to `launches` when new.
  uint32_t launch_id(const Kernel& kernel);
  // Reading: fills the kernel's launch fields from `launches`; throws Error for an id that
  // the file's kernel_launches table does not define (a corrupt capture).
  void apply_launch(int64_t id, Kernel& kernel) const;

  std::vector<KernelLaunch> launches;  // index = id

 private:
  using LaunchKey = std::array<uint32_t, 15>;
  struct LaunchKeyHash {
    size_t operator()(const LaunchKey& key) const;
  };
  std::unordered_map<LaunchKey, uint32_t, LaunchKeyHash> launch_ids_;
};

}  // namespace gpuscope::store

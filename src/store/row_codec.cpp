#include "store/row_codec.h"

#include <string>

#include "common/error.h"

namespace gpuscope::store {

namespace {

template <class Field>
uint32_t bits(Field value) {
  return static_cast<uint32_t>(value);
}

}  // namespace

size_t RowCodec::LaunchKeyHash::operator()(const LaunchKey& key) const {
  uint64_t hash = 1469598103934665603ull;  // FNV-1a over the 15 words
  for (uint32_t word : key) hash = (hash ^ word) * 1099511628211ull;
  return static_cast<size_t>(hash);
}

uint32_t RowCodec::launch_id(const Kernel& k) {
  const LaunchKey key{bits(k.mangled_name),   bits(k.name),     bits(k.grid[0]),
                      bits(k.grid[1]),        bits(k.grid[2]),  bits(k.block[0]),
                      bits(k.block[1]),       bits(k.block[2]), bits(k.cluster[0]),
                      bits(k.cluster[1]),     bits(k.cluster[2]), k.registers_per_thread,
                      k.static_shared_bytes,  k.dynamic_shared_bytes, k.local_bytes_per_thread};
  const auto [it, added] = launch_ids_.try_emplace(key, static_cast<uint32_t>(launches.size()));
  if (added) {
    KernelLaunch& launch = launches.emplace_back();
    launch.id = it->second;
    launch.mangled_name = k.mangled_name;
    launch.name = k.name;
    for (int i = 0; i < 3; ++i) {
      launch.grid[i] = k.grid[i];
      launch.block[i] = k.block[i];
      launch.cluster[i] = k.cluster[i];
    }
    launch.registers_per_thread = k.registers_per_thread;
    launch.static_shared_bytes = k.static_shared_bytes;
    launch.dynamic_shared_bytes = k.dynamic_shared_bytes;
    launch.local_bytes_per_thread = k.local_bytes_per_thread;
  }
  return it->second;
}

void RowCodec::apply_launch(int64_t id, Kernel& k) const {
  if (id < 0 || static_cast<uint64_t>(id) >= launches.size())
    throw Error("corrupt capture (a kernel refers to launch configuration " + std::to_string(id) +
                ", which kernel_launches does not hold)");
  const KernelLaunch& launch = launches[static_cast<size_t>(id)];
  k.mangled_name = launch.mangled_name;
  k.name = launch.name;
  for (int i = 0; i < 3; ++i) {
    k.grid[i] = launch.grid[i];
    k.block[i] = launch.block[i];
    k.cluster[i] = launch.cluster[i];
  }
  k.registers_per_thread = launch.registers_per_thread;
  k.static_shared_bytes = launch.static_shared_bytes;
  k.dynamic_shared_bytes = launch.dynamic_shared_bytes;
  k.local_bytes_per_thread = launch.local_bytes_per_thread;
}

}  // namespace gpuscope::store

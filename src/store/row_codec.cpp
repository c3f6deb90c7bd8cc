#include "store/row_codec.h"

#include <string>

#include "common/error.h"

namespace gpuscope::store {

namespace {

template <class Field>
uint32_t bits(Field value) {
  return static_cast<uint32_t>(value);
}

// Kernel and KernelLaunch name these fields alike: one copy serves both directions.
template <class From, class To>
void copy_launch_fields(const From& from, To& to) {
  to.mangled_name = from.mangled_name;
  to.name = from.name;
  for (int i = 0; i < 3; ++i) {
    to.grid[i] = from.grid[i];
    to.block[i] = from.block[i];
    to.cluster[i] = from.cluster[i];
  }
  to.registers_per_thread = from.registers_per_thread;
  to.static_shared_bytes = from.static_shared_bytes;
  to.dynamic_shared_bytes = from.dynamic_shared_bytes;
  to.local_bytes_per_thread = from.local_bytes_per_thread;
}

}  // namespace

size_t RowCodec::LaunchKeyHash::operator()(const LaunchKey& key) const {
  uint64_t hash = 1469598103934665603ull;  // FNV-1a over the 15 words
  for (uint32_t word : key) hash = (hash ^ word) * 1099511628211ull;
  return static_cast<size_t>(hash);
}

uint32_t RowCodec::launch_id(const Kernel& k) {
  const LaunchKey key{bits(k.mangled_name),  bits(k.name),           bits(k.grid[0]),         bits(k.grid[1]),
                      bits(k.grid[2]),       bits(k.block[0]),       bits(k.block[1]),        bits(k.block[2]),
                      bits(k.cluster[0]),    bits(k.cluster[1]),     bits(k.cluster[2]),      k.registers_per_thread,
                      k.static_shared_bytes, k.dynamic_shared_bytes, k.local_bytes_per_thread};
  const auto [it, added] = launch_ids_.try_emplace(key, static_cast<uint32_t>(launches.size()));
  if (added) {
    KernelLaunch& launch = launches.emplace_back();
    launch.id = it->second;
    copy_launch_fields(k, launch);
  }
  return it->second;
}

void RowCodec::apply_launch(int64_t id, Kernel& k) const {
  if (id < 0 || static_cast<uint64_t>(id) >= launches.size())
    throw Error("corrupt capture (a kernel refers to launch configuration " + std::to_string(id) +
                ", which kernel_launches does not hold)");
  copy_launch_fields(launches[static_cast<size_t>(id)], k);
}

}  // namespace gpuscope::store

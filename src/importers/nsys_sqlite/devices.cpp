// The GPUs of an nsys export, one Device per (process, CUDA device) its records use, with what
// TARGET_INFO_GPU and TARGET_INFO_CUDA_DEVICE say about them; and nsys's own warnings.
#include <map>
#include <set>
#include <string>

#include "importers/nsys_sqlite/readers.h"

namespace gpuscope::nsys {

namespace {

enum GpuColumn : size_t {
  kId,
  kCuDevice,
  kName,
  kUuid,
  kL2,
  kTotalMemory,
  kBandwidth,
  kClock,
  kSmCount,
  kMajor,
  kMinor,
  kRegsPerBlock,
  kShmemPerBlock,
  kShmemPerSm,
  kRegsPerSm,
  kWarpSize,
  kAsyncEngines,
  kWarpsPerSm,
  kBlocksPerSm,
  kThreadsPerBlock,
};
constexpr std::string_view kGpuColumns[] = {
    "id",
    "cuDevice",
    "name",
    "uuid",
    "l2CacheSize",
    "totalMemory",
    "memoryBandwidth",
    "clockRate",
    "smCount",
    "computeMajor",
    "computeMinor",
    "maxRegistersPerBlock",
    "maxShmemPerBlock",
    "maxShmemPerSm",
    "maxRegistersPerSm",
    "threadsPerWarp",
    "asyncEngines",
    "maxWarpsPerSm",
    "maxBlocksPerSm",
    "maxThreadsPerBlock",
};

struct Gpu {
  Device properties;  // pid and id are filled per process
  int64_t cuda_device = -1;
};

uint32_t u32(const NsysTable& rows, size_t slot) { return static_cast<uint32_t>(rows.integer(slot)); }

std::map<int64_t, Gpu> read_gpus(NsysSource& source, const std::string& table) {
  std::map<int64_t, Gpu> gpus;
  NsysTable rows(source, table, kGpuColumns);
  if (const std::string lacks = rows.missing({kSmCount, kMajor, kRegsPerSm, kShmemPerSm, kWarpsPerSm, kBlocksPerSm});
      !lacks.empty())
    source.gap(kGapDevices, table + " has no " + lacks + " column: occupancy cannot be computed");
  while (rows.next()) {
    Gpu& gpu = gpus[rows.integer(kId)];
    gpu.cuda_device = rows.integer(kCuDevice, -1);
    Device& d = gpu.properties;
    d.name = rows.text(kName);
    d.uuid = rows.text(kUuid);
    d.l2_cache_bytes = u32(rows, kL2);
    d.global_memory_bytes = static_cast<uint64_t>(rows.integer(kTotalMemory));
    d.global_memory_bandwidth_kbps = static_cast<uint64_t>(rows.integer(kBandwidth)) / 1000;  // B/s -> KB/s
    d.core_clock_khz = static_cast<uint32_t>(rows.integer(kClock) / 1000);                    // Hz -> kHz
    d.sm_count = u32(rows, kSmCount);
    d.compute_major = u32(rows, kMajor);
    d.compute_minor = u32(rows, kMinor);
    d.max_registers_per_block = u32(rows, kRegsPerBlock);
    d.max_shared_per_block_bytes = u32(rows, kShmemPerBlock);
    d.max_shared_per_sm_bytes = u32(rows, kShmemPerSm);
    d.max_registers_per_sm = u32(rows, kRegsPerSm);
    d.warp_size = rows.has(kWarpSize) ? u32(rows, kWarpSize) : 32;
    d.copy_engines = u32(rows, kAsyncEngines);
    d.max_warps_per_sm = u32(rows, kWarpsPerSm);
    d.max_blocks_per_sm = u32(rows, kBlocksPerSm);
    d.max_threads_per_block = u32(rows, kThreadsPerBlock);
  }
  return gpus;
}

struct CudaDevice {
  int64_t gpu = -1;
  uint32_t sm_count = 0;  // SMs visible to the process (MIG, green contexts)
};

// TARGET_INFO_CUDA_DEVICE: which GPU a process's CUDA device ordinal is, per process.
std::map<std::pair<uint32_t, uint32_t>, CudaDevice> read_cuda_devices(NsysSource& source) {
  std::map<std::pair<uint32_t, uint32_t>, CudaDevice> devices;
  const std::string table = source.table("TARGET_INFO_CUDA_DEVICE");
  if (table.empty()) return devices;
  static constexpr std::string_view kColumns[] = {"gpuId", "cudaId", "pid", "numMultiprocessors"};
  NsysTable rows(source, table, kColumns);
  while (rows.next())
    devices[{static_cast<uint32_t>(rows.integer(2)), static_cast<uint32_t>(rows.integer(1))}] = {
        rows.integer(0, -1), static_cast<uint32_t>(rows.integer(3))};
  return devices;
}

}  // namespace

void read_devices(NsysSource& source) {
  Trace& trace = source.trace();
  std::set<std::pair<uint32_t, uint32_t>> used;  // (pid, device)
  for (const Kernel& e : trace.kernels) used.emplace(e.pid, e.device);
  for (const Memcpy& e : trace.memcpys) used.emplace(e.pid, e.device);
  for (const Memset& e : trace.memsets) used.emplace(e.pid, e.device);
  for (const MemoryEvent& e : trace.memory_events) used.emplace(e.pid, e.device);
  if (used.empty()) return;

  const std::string gpu_table = source.table("TARGET_INFO_GPU");
  const std::map<int64_t, Gpu> gpus = gpu_table.empty() ? std::map<int64_t, Gpu>() : read_gpus(source, gpu_table);
  const auto cuda_devices = read_cuda_devices(source);
  if (gpus.empty())
    source.gap(kGapDevices,
               "the export has no TARGET_INFO_GPU rows: GPU names, SM counts and limits are unknown, "
               "so occupancy cannot be computed");

  for (const auto& [pid, device] : used) {
    Device& d = trace.devices.emplace_back();
    const auto cuda = cuda_devices.find({pid, device});
    // The process's ordinal -> the GPU: TARGET_INFO_CUDA_DEVICE, else the GPU whose cuDevice is
    // that ordinal, else the GPU with that id (single-process exports).
    const Gpu* gpu = nullptr;
    if (cuda != cuda_devices.end() && gpus.count(cuda->second.gpu)) gpu = &gpus.at(cuda->second.gpu);
    for (const auto& [id, g] : gpus)
      if (!gpu && g.cuda_device == device) gpu = &g;
    if (!gpu && gpus.count(device)) gpu = &gpus.at(device);
    if (gpu) d = gpu->properties;
    if (cuda != cuda_devices.end() && cuda->second.sm_count) d.sm_count = cuda->second.sm_count;
    d.pid = pid;
    d.id = device;
  }
}

void read_diagnostics(NsysSource& source) {
  const std::string table = source.table("DIAGNOSTIC_EVENT");
  if (table.empty()) return;
  const auto levels = source.enum_names("ENUM_DIAGNOSTIC_SEVERITY_LEVEL");
  static constexpr std::string_view kColumns[] = {"severity", "text", "globalPid"};
  NsysTable rows(source, table, kColumns);
  constexpr size_t kMaxListed = 20;  // a flood of warnings is summarised, not listed
  uint64_t listed = 0, unlisted = 0;
  while (rows.next()) {
    const int64_t severity = rows.integer(0, -1);
    auto level = levels.find(severity);
    const std::string name = level != levels.end() ? level->second
                             : severity == 2       ? "Warning"
                             : severity == 3       ? "Error"
                                                   : "";
    if (name != "Warning" && name != "Error") continue;  // nsys's info and verbose lines are not losses
    if (listed == kMaxListed) {
      ++unlisted;
      continue;
    }
    ++listed;
    const int64_t global_pid = rows.integer(2);  // negative: the session, not a process
    source.trace().data_loss.push_back({global_pid > 0 ? pid_of(global_pid) : 0, "nsys_diagnostic", 1,
                                        name + " from nsys: " + std::string(rows.text(1))});
  }
  if (unlisted) source.skipped("nsys_diagnostic", unlisted, "further warnings and errors in " + table + " not listed");
}

void read_streams(NsysSource& source) {
  const std::string table = source.table("TARGET_INFO_CUDA_STREAM");
  if (table.empty()) return;
  enum : size_t { kPid, kContext, kStream, kPriority, kFlag };
  static constexpr std::string_view kColumns[] = {"processId", "contextId", "streamId", "priority", "flag"};
  NsysTable rows(source, table, kColumns);
  rows.require(kStream);
  // The flag is CUPTI's CUpti_ActivityStreamFlag (ENUM_CUPTI_STREAM_TYPE): 1 default (blocking),
  // 2 non-blocking, 3 the NULL stream. The priority is CUPTI's unsigned field: 4294967293 is -3.
  static constexpr StreamFlag kFlags[] = {StreamFlag::Unknown, StreamFlag::Blocking, StreamFlag::NonBlocking,
                                          StreamFlag::Legacy};
  while (rows.next()) {
    Stream& s = source.trace().streams.emplace_back();
    s.pid = static_cast<uint32_t>(rows.integer(kPid));
    s.context = static_cast<uint32_t>(rows.integer(kContext));
    s.stream = static_cast<uint32_t>(rows.integer(kStream));
    s.priority = static_cast<int32_t>(static_cast<uint32_t>(rows.integer(kPriority)));
    const int64_t flag = rows.integer(kFlag);
    s.flag = flag >= 0 && flag < 4 ? kFlags[static_cast<size_t>(flag)] : StreamFlag::Unknown;
  }
}

}  // namespace gpuscope::nsys

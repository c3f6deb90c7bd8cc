// Kernels of an nsys export, and CUDA graph launches traced as a whole (nsys's default
// --cuda-graph-trace=graph), which become one GPU work item per launch.
#include <string>

#include "importers/nsys_sqlite/readers.h"

namespace gpuscope::nsys {

namespace {

enum KernelColumn : size_t {
  kStart,
  kEnd,
  kDevice,
  kContext,
  kStream,
  kCorrelation,
  kGlobalPid,
  kDemangledName,
  kShortName,
  kMangledName,
  kGridX,
  kGridY,
  kGridZ,
  kBlockX,
  kBlockY,
  kBlockZ,
  kClusterX,
  kClusterY,
  kClusterZ,
  kRegisters,
  kStaticShared,
  kDynamicShared,
  kLocalPerThread,
  kGraphId,
  kGraphNodeId,
};
static_assert(shares_gpu_columns(kStart, kDevice, kGlobalPid));
constexpr std::string_view kKernelColumns[] = {
    "start",
    "end",
    "deviceId",
    "contextId",
    "streamId",
    "correlationId",
    "globalPid",
    "demangledName",
    "shortName",
    "mangledName",
    "gridX",
    "gridY",
    "gridZ",
    "blockX",
    "blockY",
    "blockZ",
    "clusterX",
    "clusterY",
    "clusterZ",
    "registersPerThread",
    "staticSharedMemory",
    "dynamicSharedMemory",
    "localMemoryPerThread",
    "graphId",
    "graphNodeId",
};

int32_t dimension(const NsysTable& rows, size_t slot, int32_t absent) {
  return static_cast<int32_t>(rows.integer(slot, absent));
}

}  // namespace

void read_kernels(NsysSource& source) {
  const std::string table = source.table("CUPTI_ACTIVITY_KIND_KERNEL");
  if (table.empty()) return;
  NsysTable rows(source, table, kKernelColumns);
  rows.require(kStart);
  rows.require(kEnd);
  if (const std::string lacks = rows.missing(
          {kGridX, kGridY, kGridZ, kBlockX, kBlockY, kBlockZ, kRegisters, kStaticShared, kDynamicShared});
      !lacks.empty())
    source.gap(kGapLaunchConfig, table + " has no " + lacks + " column");
  // Names: demangledName is the full signature; shortName the bare function name that older
  // or trimmed exports may carry alone; mangledName only in full exports.
  const size_t name_slot = rows.has(kDemangledName) ? kDemangledName : rows.has(kShortName) ? kShortName : kMangledName;

  LaunchIndex launches(source.trace());
  auto& kernels = source.trace().kernels;
  while (rows.next()) {
    if (rows.lacks_time(kStart, kEnd)) continue;
    Kernel& k = kernels.emplace_back();
    read_gpu_placement(source, rows, launches, k);
    k.name = source.name(rows.integer(name_slot, -1));
    k.mangled_name = rows.is_null(kMangledName) ? k.name : source.name(rows.integer(kMangledName));
    k.grid[0] = dimension(rows, kGridX, 0);
    k.grid[1] = dimension(rows, kGridY, 1);
    k.grid[2] = dimension(rows, kGridZ, 1);
    k.block[0] = dimension(rows, kBlockX, 0);
    k.block[1] = dimension(rows, kBlockY, 1);
    k.block[2] = dimension(rows, kBlockZ, 1);
    k.cluster[0] = dimension(rows, kClusterX, 0);
    k.cluster[1] = dimension(rows, kClusterY, 0);
    k.cluster[2] = dimension(rows, kClusterZ, 0);
    k.registers_per_thread = static_cast<uint32_t>(rows.integer(kRegisters));
    k.static_shared_bytes = static_cast<uint32_t>(rows.integer(kStaticShared));
    k.dynamic_shared_bytes = static_cast<uint32_t>(rows.integer(kDynamicShared));
    k.local_bytes_per_thread = static_cast<uint32_t>(rows.integer(kLocalPerThread));
    k.graph_id = static_cast<uint32_t>(rows.integer(kGraphId));
    k.graph_node_id = static_cast<uint64_t>(rows.integer(kGraphNodeId));
  }
  source.untimed(table, rows.untimed_rows());
}

void read_graph_launches(NsysSource& source) {
  const std::string table = source.table("CUPTI_ACTIVITY_KIND_GRAPH_TRACE");
  if (table.empty()) return;
  enum : size_t { kStart, kEnd, kDevice, kContext, kStream, kCorrelation, kGlobalPid, kGraphId, kGraphExecId };
  static_assert(shares_gpu_columns(kStart, kDevice, kGlobalPid));
  static constexpr std::string_view kColumns[] = {"start",         "end",       "deviceId", "contextId",  "streamId",
                                                  "correlationId", "globalPid", "graphId",  "graphExecId"};
  NsysTable rows(source, table, kColumns);
  rows.require(kStart);
  rows.require(kEnd);
  LaunchIndex launches(source.trace());
  auto& kernels = source.trace().kernels;
  uint64_t launched = 0;
  while (rows.next()) {
    if (rows.lacks_time(kStart, kEnd)) continue;
    // One GPU work item per graph launch, so the kernel summary shows where graph time goes
    // instead of being empty (the trap of nsys's default graph tracing).
    Kernel& k = kernels.emplace_back();
    read_gpu_placement(source, rows, launches, k);
    k.graph_id = static_cast<uint32_t>(rows.integer(kGraphId));
    k.name = source.text("CUDA graph " + std::to_string(k.graph_id));
    k.mangled_name = k.name;
    ++launched;
  }
  source.untimed(table, rows.untimed_rows());
  if (launched) {
    source.skipped("nsys_graph_launches", launched,
                   table +
                       ": CUDA graphs were traced as whole launches (nsys --cuda-graph-trace=graph, its "
                       "default); each launch is one GPU item named \"CUDA graph <id>\" and the kernels inside "
                       "the graphs are not in the export (profile with --cuda-graph-trace=node for them)");
    source.gap(kGapLaunchConfig, "graph launches carry no grid, block or register counts");
  }
}

}  // namespace gpuscope::nsys

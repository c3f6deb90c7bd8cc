// CUDA graph nodes as they are made, so that the kernels a graph replays can be attributed to
// the code that captured them. A replayed kernel carries only the graph launch's correlation id
// and its node id (graph_node_id): nothing of the op, module or NVTX range that made the node.
// CUPTI's resource callbacks say when a node is made (GRAPHNODE_CREATED: by stream capture of a
// launch, copy or memset, or by cudaGraphAdd*Node) and when an instantiated graph clones it
// (GRAPHNODE_CLONED); each becomes a GraphNode record with the thread, the time and the recorded
// CUDA call in flight on the thread (the core API trace's, ApiRecorder::call_in_flight), and the
// importer resolves clones to the call that made their origin (importers/spool/graph_nodes.h).
//
// Threads: the callbacks run on the program's threads, only while graphs are built (never per
// replay), and queue into a RecordOutbox; the writer thread drains it.
#pragma once

#include <cupti.h>

#include <cstddef>
#include <cstdint>

#include "capture/cupti_loader.h"
#include "capture/record_outbox.h"
#include "spool/format.h"

namespace gpuscope::capture {

class GraphNodes {
 public:
  // Pending records are bounded; beyond this many (a stalled writer) nodes are dropped and counted.
  static constexpr size_t kMaxPending = 1u << 16;

  explicit GraphNodes(const CuptiApi& api)
      : api_(api),
        pending_(kMaxPending, "graph_nodes_dropped",
                 "CUDA graph nodes gpuscope could not queue for writing in time; their replayed kernels are not "
                 "attributed to the code that captured them") {}
  // Whether this libcupti can name graph nodes (cuptiGetGraphNodeId).
  bool available() const { return api_.GetGraphNodeId != nullptr; }
  // Program threads, from the callback hub: GRAPHNODE_CREATED and GRAPHNODE_CLONED.
  void on_resource_callback(CUpti_CallbackId cbid, const CUpti_ResourceData& data);
  // The writer thread: the queued records, and a Loss record for the nodes dropped since the last drain.
  void drain(RecordSink& sink) { pending_.drain(sink); }

 private:
  uint64_t node_id(CUgraphNode node) const;

  const CuptiApi& api_;
  RecordOutbox<spool::GraphNodeRecord, spool::RecordKind::GraphNode> pending_;
};

}  // namespace gpuscope::capture

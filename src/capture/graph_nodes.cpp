#include "capture/graph_nodes.h"

#include "capture/api_recorder.h"
#include "capture/process_info.h"  // realtime_ns: CUPTI's clock on Linux, as the API records'
#include "capture/threads.h"       // current_thread_id: the tid the API records carry

namespace gpuscope::capture {

uint64_t GraphNodes::node_id(CUgraphNode node) const {
  uint64_t id = 0;
  return node != nullptr && api_.GetGraphNodeId(node, &id) == CUPTI_SUCCESS ? id : 0;
}

void GraphNodes::on_resource_callback(CUpti_CallbackId cbid, const CUpti_ResourceData& data) {
  if (!available() || data.resourceDescriptor == nullptr) return;
  if (cbid != CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED && cbid != CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED) return;
  const auto& graph = *static_cast<const CUpti_GraphData*>(data.resourceDescriptor);
  spool::GraphNodeRecord r{};
  r.timestamp_ns = realtime_ns();
  r.node_id = node_id(graph.node);
  if (r.node_id == 0) return;
  if (cbid == CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED) r.origin_node_id = node_id(graph.originalNode);
  r.correlation_id = ApiRecorder::call_in_flight();
  r.tid = current_thread_id();
  pending_.push(r);
}

}  // namespace gpuscope::capture

// GraphNode records -> GraphNode rows: each node with the call that made it. The kernels a graph
// replay runs carry the id of a node of the instantiated graph, a clone of the node that stream
// capture (or cudaGraphAdd*Node) made; a clone takes its origin's call, thread and time,
// followed back through clones of clones.
#pragma once

#include <cstdint>
#include <vector>

#include "gpuscope/model.h"
#include "spool/format.h"

namespace gpuscope::spool {

// `nodes`: one process's records, in the order written. A node with a clone record is the clone
// (a node made during instantiation also has a creation record, which the clone record replaces);
// a clone whose origin never appears keeps its own thread and time and no call, and so does a
// clone in a cycle of clones (damaged input). Linear in the records, however long the chains.
void add_graph_nodes(Trace& trace, uint32_t pid, const std::vector<GraphNodeRecord>& nodes);

}  // namespace gpuscope::spool

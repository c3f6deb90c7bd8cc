// Trace exports for the viewers people already use: Chrome Trace Event JSON in the dialect
// PyTorch's profiler (Kineto) writes, and Perfetto's native protobuf. One registry
// (src/export/exporters.cpp); a new format is its writer plus one line there. Every export
// is made from the same track layout as the HTML timeline (src/export/tracks.h). docs/export.md.
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "gpuscope/model.h"

namespace gpuscope {

namespace tracks {
struct Layout;
}

// What an export carries beyond the timeline itself.
struct ExportSettings {
  // GPU work's details (kernel launch configurations, bytes copied) as arguments; off: the
  // lean form (Perfetto: ~29 instead of ~32 bytes per event on a launch storm, docs/export.md).
  bool details = true;
  // One rank's file of a job (export --per-rank): Chrome JSON carries it as Kineto's
  // distributedInfo {"backend": "nccl", "rank": rank, "world_size": world_size}, what HTA reads
  // to tell the ranks apart. world_size 0: not a rank's file, {"rank": 0} (HTA needs a rank).
  int32_t rank = 0;
  int32_t world_size = 0;
};

struct ExportFormat {
  std::string name;         // "chrome", "perfetto"
  std::string description;  // for --help and docs
  std::string extension;    // what the output is usually named: ".json", ".perfetto-trace"
  // Writes `trace`, laid out as `layout`, to `out`. Throws gpuscope::Error.
  void (*write)(const Trace& trace, const tracks::Layout& layout, const ExportSettings& settings,
                std::ostream& out) = nullptr;
};

const std::vector<ExportFormat>& export_formats();
std::vector<std::string> export_format_names();
// By name, case-insensitive; throws gpuscope::Error naming the formats on anything else.
const ExportFormat& find_export_format(std::string_view name);

}  // namespace gpuscope

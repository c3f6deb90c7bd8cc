// The registry of trace exports (gpuscope/export.h).
#include "common/error.h"
#include "common/names.h"
#include "export/writers.h"
#include "gpuscope/export.h"

namespace gpuscope {

const std::vector<ExportFormat>& export_formats() {
  static const std::vector<ExportFormat> formats = {
      {"chrome", "Chrome Trace Event JSON as PyTorch's profiler writes it (Perfetto UI, chrome://tracing, HTA)",
       ".json",
       [](const Trace& trace, const tracks::Layout& layout, const ExportSettings& settings, std::ostream& out) {
         exporting::write_chrome_trace(trace, layout, out, settings);
       }},
      {"perfetto", "Perfetto's native protobuf trace (Perfetto UI, trace_processor), compact", ".perfetto-trace",
       [](const Trace& trace, const tracks::Layout& layout, const ExportSettings& settings, std::ostream& out) {
         exporting::write_perfetto_trace(trace, layout, out, {.launch_details = settings.details});
       }},
  };
  return formats;
}

std::vector<std::string> export_format_names() { return names_of(export_formats()); }

const ExportFormat& find_export_format(std::string_view name) {
  if (const ExportFormat* f = find_named(export_formats(), name)) return *f;
  throw Error("unknown export format '" + std::string(name) + "' (expected " + or_list(export_format_names()) + ")");
}

}  // namespace gpuscope

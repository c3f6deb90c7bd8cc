// The registry of trace exports (gpuscope/export.h).
#include <algorithm>
#include <cctype>

#include "common/error.h"
#include "export/writers.h"
#include "gpuscope/export.h"

namespace gpuscope {

const std::vector<ExportFormat>& export_formats() {
  static const std::vector<ExportFormat> formats = {
      {"chrome", "Chrome Trace Event JSON as PyTorch's profiler writes it (Perfetto UI, chrome://tracing, HTA)", ".json",
       [](const Trace& trace, const tracks::Layout& layout, const ExportSettings& settings, std::ostream& out) {
         exporting::write_chrome_trace(trace, layout, out, settings.details);
       }},
      {"perfetto", "Perfetto's native protobuf trace (Perfetto UI, trace_processor), compact", ".perfetto-trace",
       [](const Trace& trace, const tracks::Layout& layout, const ExportSettings& settings, std::ostream& out) {
         exporting::write_perfetto_trace(trace, layout, out, {.launch_details = settings.details});
       }},
  };
  return formats;
}

std::vector<std::string> export_format_names() {
  std::vector<std::string> names;
  for (const ExportFormat& f : export_formats()) names.push_back(f.name);
  return names;
}

const ExportFormat& find_export_format(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const ExportFormat& f : export_formats())
    if (f.name == lower) return f;
  throw Error("unknown export format '" + std::string(name) + "'");
}

}  // namespace gpuscope

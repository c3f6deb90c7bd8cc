// An nsys SQLite export as a Trace: the readers of each record family in order, then what the
// export lacks (source gaps) and what it holds that gpuscope does not read (data loss).
#include "importers/nsys_sqlite/nsys_export.h"

#include "common/error.h"
#include "importers/nsys_sqlite/readers.h"

namespace gpuscope {

namespace {

// The export schema this importer was written against (nsys 2026.1 and 2026.2 write 3.24, 3.25).
// A newer major is still read by column name; the data-quality section says so.
constexpr int kKnownSchemaMajor = 3;

// Tables that describe the capture rather than hold its records: never reported as skipped.
bool is_metadata_table(const std::string& name) {
  for (std::string_view prefix : {"ENUM_", "META_DATA_", "TARGET_INFO_", "ANALYSIS_", "sqlite_", "NVTX_PAYLOAD_"})
    if (name.starts_with(prefix)) return true;
  return name == "StringIds" || name == "ThreadNames" || name == "ProcessStreams" || name == "PROCESSES";
}

// Record tables the readers did not touch (OS runtime calls, CPU samples, GPU metrics, ...):
// one data-loss row each, with its row count, so nothing the file holds disappears silently.
void report_unread_tables(nsys::NsysSource& source) {
  for (const std::string& table : source.tables()) {
    if (source.read_tables().count(table) || is_metadata_table(table)) continue;
    auto count = source.db().prepare("SELECT COUNT(*) FROM \"" + table + "\"");
    const int64_t rows = count.next() ? count.integer(0) : 0;
    if (rows > 0)
      source.skipped("nsys_skipped", static_cast<uint64_t>(rows), table + ": not a record kind gpuscope reads");
  }
  for (const std::string& view : source.views())
    source.skipped("nsys_skipped", 0, view + ": a view, not read (nsys writes tables; a view runs as code)");
}

void check_has_cuda_records(nsys::NsysSource& source) {
  for (std::string_view base :
       {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_GRAPH_TRACE", "CUPTI_ACTIVITY_KIND_RUNTIME",
        "CUPTI_ACTIVITY_KIND_DRIVER", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"})
    if (!source.table(base).empty()) return;
  throw Error(source.path() +
              ": an nsys export without CUDA records (no kernel, API or copy table; "
              "was nsys run with -t cuda?)");
}

}  // namespace

bool is_nsys_export(const Probe& probe) { return probe.sqlite && probe.has_table("META_DATA_EXPORT"); }

void read_nsys_export(const std::string& path, Trace& trace) {
  nsys::NsysSource source(path, trace);
  check_has_cuda_records(source);

  const nsys::ExportVersion version = nsys::read_export_metadata(source);
  Run& run = trace.run;
  run.source_tool = "nsys";
  run.source_version = version.product;
  run.source_schema = version.schema.empty() ? "export schema unknown" : "export schema " + version.schema;
  run.source_file = path;
  run.exit_code = -1;  // nsys exports do not record it
  if (version.major > kKnownSchemaMajor)
    source.skipped("nsys_schema_newer", 0,
                   "export schema " + version.schema + " is newer than the " + std::to_string(kKnownSchemaMajor) +
                       ".x this gpuscope knows; read by column name, tables and columns it does not know are "
                       "listed here");

  nsys::read_api_calls(source);  // first: GPU records look their launch calls up
  if (source.table("CUPTI_ACTIVITY_KIND_RUNTIME").empty() && source.table("CUPTI_ACTIVITY_KIND_DRIVER").empty())
    source.gap(kGapApiCalls, "the export has no CUPTI_ACTIVITY_KIND_RUNTIME table");
  nsys::read_kernels(source);
  nsys::read_graph_launches(source);
  nsys::read_memcpys(source);
  nsys::read_memsets(source);
  nsys::read_memory_usage(source);
  nsys::read_synchronizations(source);
  if (source.table("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION").empty())
    source.gap(kGapSynchronization, "the export has no CUPTI_ACTIVITY_KIND_SYNCHRONIZATION table");
  nsys::count_cuda_events(source);
  nsys::read_overheads(source);
  nsys::read_nvtx(source);
  nsys::read_diagnostics(source);
  nsys::read_processes(source);
  nsys::read_devices(source);
  nsys::read_streams(source);

  if (trace.kernels.empty() && trace.api_calls.empty() && trace.memcpys.empty() && trace.memsets.empty())
    throw Error(path + ": the nsys export holds no CUDA kernels, API calls or copies");
  if (source.unresolved_names())
    source.skipped("nsys_unresolved_names", source.unresolved_names(),
                   "distinct names referenced by an id StringIds does not hold; shown as <nsys string ID>");
  report_unread_tables(source);
}

}  // namespace gpuscope

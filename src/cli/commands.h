// The subcommands. main.cpp is the one place that reads flags and the
// environment; each command gets plain values and returns the process exit code.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpuscope/model.h"

namespace gpuscope::cli {

struct ReportSettings {
  std::string format = "text";  // a name from the format registry (gpuscope/report.h)
  size_t top = 15;
  std::string iteration_range;  // --iteration-range: the steps' NVTX range; empty: detected
};

struct ProfileOptions {
  std::string output;          // -o NAME; empty: named after the program
  bool force = false;          // overwrite an existing capture
  bool driver_api = false;     // also trace driver API calls
  bool driver_launches = true; // the driver API's launch functions; --no-driver-launches
  bool nccl_calls = true;      // NCCL's calls (sizes of collectives); --no-nccl-calls
  int flush_ms = 500;          // how often CUPTI hands buffers over (crash survival)
  int sync_flush_ms = 10;      // flush at a synchronization at most this often (GPU-fault survival)
  bool print_report = true;    // report on stderr when done
  bool keep_spools = false;    // keep NAME.<pid>.spool after import
  std::string inject_library;  // resolved path of libgpuscope_inject.so override, may be empty
  // Hardware metrics (docs/metrics.md): sets and raw names, expanded by profile.
  std::string metric_sets;               // --metrics sol,memory; empty: none
  std::vector<std::string> raw_metrics;  // --metric NAME, repeatable
  std::string kernel_regex;              // --kernel REGEX
  uint64_t launch_skip = 0;              // --launch-skip N
  uint64_t launch_count = 0;             // --launch-count N; 0: all
  uint32_t gpu_metrics_hz = 0;           // --gpu-metrics[=RATE]; 0: off
  std::string api = "full";              // --api full|lean
  std::string pytorch;                   // --pytorch[=ops|shapes|modules]; empty: off
  std::string capture_range;             // --capture-range cudaProfilerApi|nvtx:NAME[@DOMAIN]
  std::string capture_range_end = "stop";  // --capture-range-end stop|repeat[:N]
  double delay_s = 0, duration_s = 0;    // --delay S, --duration S; 0: not given
  ReportSettings report;
  std::vector<std::string> command;
};

struct ReportOptions {
  std::string input;   // any file gpuscope reads (importers/importer.h)
  std::string output;  // empty: stdout
  std::vector<std::string> metrics_from;  // --metrics-from FILE: per-kernel metrics (ncu CSV) to attach
  ReportSettings report;
};

struct ImportOptions {
  std::vector<std::string> inputs;  // spools of one run, or one file of another format
  std::vector<std::string> metrics_from;
  std::string output;
  bool force = false;
};

// `gpuscope merge -o OUT IN1 IN2 ...` (merge_command.cpp, docs/merge.md).
struct MergeOptions {
  std::vector<std::string> inputs;  // captures or other profilers' files, one or more ranks each
  std::string output;
  bool force = false;
  bool align = true;  // --no-align: measure clock offsets, never shift
  std::vector<std::string> offsets;  // --offset FILE=NS, repeatable
};

// `gpuscope export FILE --format chrome|perfetto -o OUT` (export_command.cpp).
struct ExportOptions {
  std::string input;
  std::string output;           // -o OUT; required
  std::string format;           // a name from the export registry (gpuscope/export.h)
  std::optional<uint32_t> run;  // --run N: only bench run N; nullopt: every run
  bool gzip = false;            // --gzip, or an output name ending in .gz
  bool details = true;          // --no-details: leave out the GPU work's arguments (smaller)
  bool per_rank = false;        // --per-rank: one file per rank of a job, OUT_rankN.EXT
  bool force = false;           // overwrite an existing output
};

struct QueryOptions {
  std::string input;
  std::string sql;
  bool header = false;
};

// `gpuscope metrics`: exactly one of list / sets / check / chips (metrics_command.cpp).
struct MetricsOptions {
  bool list = false;                     // --list: the metrics a chip supports
  bool sets = false;                     // --sets: gpuscope's named sets (no CUPTI needed)
  bool check = false;                    // --check: validate a list and count its replay passes
  bool chips = false;                    // --chips: the chips this CUPTI knows
  std::string chip;                      // --chip GH100; empty: the local GPU's
  bool sampling = false;                 // --sampling: PM sampling's metrics, not the range profiler's
  std::string filter;                    // --filter SUBSTR on the name, case-insensitive (list)
  bool submetrics = false;               // --submetrics: each metric's rollups/submetrics (list)
  std::string metric_sets;               // --metrics sol,stalls (check)
  std::vector<std::string> raw_metrics;  // --metric NAME, repeatable (check)
  std::string format = "text";           // text | json
  std::string host_library;              // $GPUSCOPE_CUPTI_HOST_LIB, may be empty
};

int run_profile(const ProfileOptions& options);
int run_report(const ReportOptions& options);
int run_import(const ImportOptions& options);
int run_query(const QueryOptions& options);
int run_export(const ExportOptions& options);
int run_merge(const MergeOptions& options);
int run_metrics(const MetricsOptions& options);

// Shared by profile and report. `profile` renders the trace it has just written
// (the store round trip is exact), so the report is not read back from disk.
std::string render(const Trace& trace, const ReportSettings& settings);

}  // namespace gpuscope::cli

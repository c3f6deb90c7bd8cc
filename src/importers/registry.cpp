// The importer registry and the paths every command reads its inputs through (importer.h).
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "common/error.h"
#include "common/names.h"
#include "common/temp_file.h"
#include "gpuscope/store.h"
#include "importers/finalize.h"
#include "importers/importer.h"
#include "importers/kineto_json/kineto_json.h"
#include "importers/ncu_csv/ncu_importer.h"
#include "importers/nsys_sqlite/nsys_export.h"
#include "importers/spool/spool_importer.h"
#include "importers/validate.h"
#include "spool/format.h"

namespace gpuscope {

namespace {

bool is_capture(const Probe& probe) { return probe.sqlite && probe.has_table("meta"); }

// Only ever read into an empty trace: captures are not combined (import_files). A capture is
// validated again: it may have been written by other means than an import (validation finds
// nothing twice).
void read_capture(const std::string& path, Trace& trace) {
  trace = read_trace(path);
  validate_trace(trace);
}

bool is_spool(const Probe& probe) {
  return probe.head.size() >= sizeof spool::kFileMagic &&
         std::equal(spool::kFileMagic, spool::kFileMagic + sizeof spool::kFileMagic, probe.head.begin());
}

void read_spool(const std::string& path, Trace& trace) { import_spool(path, trace); }

std::string known_formats() {
  std::vector<std::string> names;
  for (const Importer& importer : importers()) names.emplace_back(importer.description);
  return or_list(names);
}

}  // namespace

const std::vector<Importer>& importers() {
  static const std::vector<Importer> registry{
      {"gpuscope", "a gpuscope capture", is_capture, read_capture, nullptr, true},
      {"spool", "a gpuscope spool", is_spool, read_spool},
      {"nsys", "an Nsight Systems SQLite export", is_nsys_export, read_nsys_export},
      {"kineto", "a torch.profiler (Kineto) or Chrome JSON trace", is_chrome_trace, read_chrome_trace},
      {"ncu", "an Nsight Compute CSV (--csv --page raw or details)", is_ncu_csv, read_ncu_csv, attach_ncu_metrics},
  };
  return registry;
}

const Importer& detect_format(const std::string& path) {
  const Probe probe = probe_file(path);
  for (const Importer& importer : importers())
    if (importer.detect(probe)) return importer;
  if (probe.sqlite) throw Error(path + ": an SQLite database, but neither a gpuscope capture nor an nsys export");
  throw Error(path + ": not a format gpuscope reads (it reads " + known_formats() + ")");
}

namespace {

void attach_metrics(Trace& trace, const std::vector<std::string>& metrics_from) {
  for (const std::string& path : metrics_from) {
    const Importer& importer = detect_format(path);
    if (!importer.attach_metrics)
      throw Error(path + ": " + std::string(importer.description) + " has no per-kernel metrics to attach");
    importer.attach_metrics(path, trace);
  }
}

// One file read by the importer already detected for it.
Trace read_file(const Importer& importer, const std::string& path, const std::vector<std::string>& metrics_from) {
  Trace trace;
  importer.read(path, trace);
  if (!importer.finalized) finalize_trace(trace);
  attach_metrics(trace, metrics_from);
  return trace;
}

}  // namespace

Trace load_trace(const std::string& path, const std::vector<std::string>& metrics_from) {
  return read_file(detect_format(path), path, metrics_from);
}

Trace import_files(const std::vector<std::string>& paths, const std::vector<std::string>& metrics_from) {
  if (paths.empty()) throw Error("nothing to import");
  std::vector<const Importer*> formats;
  for (const std::string& path : paths) formats.push_back(&detect_format(path));
  const bool all_spools = std::all_of(formats.begin(), formats.end(),
                                      [](const Importer* f) { return f->name == "spool"; });
  if (paths.size() > 1 && !all_spools)
    throw Error("only spools of one run import together; import " + paths[1] + " on its own");
  if (!all_spools) return read_file(*formats.front(), paths.front(), metrics_from);

  Trace trace = import_spools(paths);
  if (trace.processes.empty()) {
    // Say why: the first unreadable spool's reason (each names its file).
    std::string why;
    for (const DataLoss& loss : trace.data_loss)
      if (loss.what == "spool_unreadable") {
        why = loss.detail;
        break;
      }
    throw Error("none of the spools could be read" + (why.empty() ? std::string() : ": " + why));
  }
  attach_metrics(trace, metrics_from);
  return trace;
}

Trace import_spools(const std::vector<std::string>& spools) {
  Trace trace;
  for (const std::string& path : spools) {
    try {
      import_spool(path, trace);
    } catch (const Error& error) {
      // One unreadable spool (a child killed before writing its header) must not cost the
      // others; say what was lost.
      trace.data_loss.push_back({0, "spool_unreadable", 1, error.what()});
    }
  }
  finalize_trace(trace);
  return trace;
}

std::string import_bytes(std::string_view bytes, Trace& trace) {
  // Every reader takes a path, so the bytes become a temporary file, removed afterwards. (A
  // memfd under /proc/self/fd would not do: SQLite resolves that link and cannot open it.)
  const TempFile file(bytes, "gpuscope-import");
  if (file.path().empty()) return "cannot write a temporary file";
  std::string error;
  try {
    trace = load_trace(file.path());
  } catch (const Error& e) {
    error = e.what();
  }
  return error;
}

}  // namespace gpuscope

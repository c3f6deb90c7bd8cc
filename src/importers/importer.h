// One importer per input format, behind one registry (registry.cpp): gpuscope's own capture and
// spool, and the files other profilers write. The format is told by content, never by the file's
// name, so `report run.json` and `report run.sqlite` work whatever they are called.
//
// Adding a format: a folder src/importers/NAME/ with a detect and a read function, plus one line
// in registry.cpp. A reader takes a path and appends to a Trace; it throws gpuscope::Error with a
// one-line message for anything it cannot read, and records what it skipped as data loss or
// source gaps. Every reader can be fed bytes (import_bytes) for fuzzing.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "gpuscope/model.h"

namespace gpuscope {

// What detection looks at: the start of the file, and for an SQLite file its tables.
struct Probe {
  std::string path;
  std::string head;                        // up to kProbeBytes, gunzipped when the file is gzip
  bool gzip = false;                       // the file is gzip-compressed (head is the plain text)
  bool sqlite = false;                     // the file is an SQLite 3 database
  std::vector<std::string> sqlite_tables;  // its table names, when sqlite
  bool has_table(std::string_view name) const;
};
inline constexpr size_t kProbeBytes = 64 * 1024;

struct Importer {
  std::string_view name;         // the --from name: "gpuscope", "spool", "nsys", "kineto", "ncu"
  std::string_view description;  // one line for --help and messages
  bool (*detect)(const Probe& probe);
  // Appends the file's records to `trace` (not yet finalized) and fills trace.run's source_*.
  void (*read)(const std::string& path, Trace& trace);
  // Attaches per-kernel metrics from this file to the kernels of `trace` (an ncu CSV merged into
  // a capture of the same program, `--metrics-from`); nullptr: the format has none.
  void (*attach_metrics)(const std::string& path, Trace& trace) = nullptr;
  bool finalized = false;  // read() leaves a finished trace (a gpuscope capture as stored)
};

// Every importer, in detection order.
const std::vector<Importer>& importers();

// Reads the start of `path`; throws Error for a missing or unreadable file.
Probe probe_file(const std::string& path);

// The importer for `path`; throws Error naming the formats gpuscope reads when none matches.
const Importer& detect_format(const std::string& path);

// Any file gpuscope reads, as a finished trace: a capture as stored, any other format imported
// in memory (nothing is written next to it). Then `metrics_from` files (ncu CSV) are attached.
Trace load_trace(const std::string& path, const std::vector<std::string>& metrics_from = {});

// Several inputs into one trace for `gpuscope import`: spools of one run (a process each), or
// one file of another format. Throws Error when they cannot be combined.
Trace import_files(const std::vector<std::string>& paths, const std::vector<std::string>& metrics_from = {});

// The spools a run left (a process each) as one finished trace; a spool that cannot be read is
// recorded as data loss, not thrown (`profile` and `bench` import whatever was captured).
Trace import_spools(const std::vector<std::string>& spools);

// For fuzzing and tests: the bytes as if they were a file. Returns "" when the bytes imported,
// else the one-line error a user would see; never throws, never crashes.
std::string import_bytes(std::string_view bytes, Trace& trace);

}  // namespace gpuscope

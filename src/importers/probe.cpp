// probe_file(): what format detection looks at (importer.h).
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "common/error.h"
#include "importers/importer.h"
#include "store/sqlite_db.h"

namespace gpuscope {

bool Probe::has_table(std::string_view name) const {
  return std::find(sqlite_tables.begin(), sqlite_tables.end(), name) != sqlite_tables.end();
}

Probe probe_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw Error(path + ": no such file");
  if (!std::filesystem::is_regular_file(path, ec)) throw Error(path + ": not a regular file");
  Probe probe;
  probe.path = path;
  // gzread reads a plain file as it is and a gzip file decompressed; gzdirect tells which.
  gzFile file = gzopen(path.c_str(), "rb");
  if (!file) throw Error(path + ": cannot read the file (permission denied?)");
  probe.head.resize(kProbeBytes);
  const int got = gzread(file, probe.head.data(), static_cast<unsigned>(kProbeBytes));
  probe.gzip = gzdirect(file) == 0;
  gzclose(file);
  // A gzip file cut short still gives what it had; only a read that yields nothing is an error.
  if (got < 0) throw Error(path + ": cannot read the file" + (probe.gzip ? " (corrupt gzip data)" : ""));
  probe.head.resize(static_cast<size_t>(got));

  if (!probe.gzip && probe.head.size() >= 16 && std::memcmp(probe.head.data(), "SQLite format 3", 16) == 0) {
    probe.sqlite = true;
    store::check_sqlite_file(path, "an SQLite database");
    store::Database db(path, store::Database::Mode::ReadOnly);
    auto tables = db.prepare("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')");
    while (tables.next()) probe.sqlite_tables.push_back(tables.text(0));
  }
  return probe;
}

}  // namespace gpuscope

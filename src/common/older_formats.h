// The gpuscope builds that read the files this one no longer reads: captures of an older schema
// and spools of an older format (docs/schema.md, "Versions"). A refusal names the newest of them
// that reads the file, so a user can still open it. A version bump adds the build before it here.
#pragma once

#include <iterator>
#include <string>

namespace gpuscope {

struct OlderReader {
  const char* build;
  int first_schema, last_schema;  // the capture schemas it reads
  int first_spool, last_spool;    // the spool formats it imports
};

inline constexpr OlderReader kOlderReaders[] = {
    {"gpuscope 0.1.0 built from commit f998382", 1, 10, 1, 5},
    {"gpuscope 0.1.0 built from commit 4ceb3eb", 10, 10, 5, 5},
    {"gpuscope 0.1.0 built from commit 7491957", 11, 11, 6, 6},
    {"gpuscope 0.1.0 built from commit 2a12258", 12, 12, 6, 6},
    {"gpuscope 0.1.0 built from commit 5fd2f68", 13, 13, 7, 7},
    {"gpuscope 0.1.0 built from commit 7fad77a", 13, 13, 8, 8},
};

// "gpuscope 0.1.0 built from commit f998382, which reads schemas v1 to v10" for a capture of
// `schema` (is_spool false) or a spool of format `schema`.
inline std::string older_reader_of(int schema, bool is_spool) {
  for (auto it = std::rbegin(kOlderReaders); it != std::rend(kOlderReaders); ++it) {
    const int first = is_spool ? it->first_spool : it->first_schema;
    const int last = is_spool ? it->last_spool : it->last_schema;
    if (schema < first || schema > last) continue;
    return std::string(it->build) + ", which reads " + (is_spool ? "spool formats v" : "schemas v") +
           std::to_string(first) + (first == last ? "" : " to v" + std::to_string(last));
  }
  return "an older gpuscope";
}

}  // namespace gpuscope

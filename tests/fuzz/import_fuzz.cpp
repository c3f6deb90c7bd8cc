// Every format at once, as a user's file reaches gpuscope: gpuscope::import_bytes detects the
// format by content and reads it as `report FILE` would. Its mutations cross formats (an SQLite
// header on JSON, a spool magic on CSV), which the per-format targets never try.
#include "common/error.h"
#include "fuzz_target.h"
#include "importers/importer.h"

void gpuscope::fuzz::fuzz_one(std::string_view bytes) {
  Trace trace;
  if (std::string error = import_bytes(bytes, trace); !error.empty()) throw Error(error);
}

// The Nsight Systems SQLite export importer (src/importers/nsys_sqlite), called directly.
#include "fuzz_target.h"

void gpuscope::fuzz::fuzz_one(std::string_view bytes) { read_as("nsys", bytes); }

// The Nsight Compute CSV importer (src/importers/ncu_csv), called directly.
#include "fuzz_target.h"

void gpuscope::fuzz::fuzz_one(std::string_view bytes) { read_as("ncu", bytes); }

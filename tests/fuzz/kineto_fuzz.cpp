// The torch.profiler (Kineto) / Chrome JSON importer (src/importers/kineto_json), called directly.
#include "fuzz_target.h"

void gpuscope::fuzz::fuzz_one(std::string_view bytes) { read_as("kineto", bytes); }

// The capture reader (src/store/reader.cpp, SQLite) and everything a command does with what it
// read: the analyses, the report model in every format, and the exports. SQLite pages carry no
// checksum, so mutated record values reach the analyses as a capture written by other means would.
#include "fuzz_target.h"

void gpuscope::fuzz::fuzz_one(std::string_view bytes) { analyse_everything(read_as("gpuscope", bytes)); }

// Facts about the profiled process that need no CUDA: clock, command line.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace gpuscope::capture {

// CLOCK_REALTIME in ns: the clock CUPTI's timestamps use on Linux.
int64_t realtime_ns();

// /proc/self/cmdline with the NUL separators turned into spaces; "" if unreadable.
std::string read_command_line();
// The pure part: raw cmdline bytes (NUL-separated, NUL-terminated) -> one line.
std::string command_line_from_raw(std::string_view raw);

}  // namespace gpuscope::capture

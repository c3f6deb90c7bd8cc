// The library's only way to talk to the user: one line "gpuscope: ..." on stderr.
// Written with a single write(2) on fd 2, so we never touch the program's stdio
// buffers or locks and lines from several processes do not interleave.
#pragma once

namespace gpuscope::capture {

void log_line(const char* format, ...) __attribute__((format(printf, 1, 2)));

}  // namespace gpuscope::capture

#include "capture/log.h"

#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace gpuscope::capture {

void log_line(const char* format, ...) {
  int saved_errno = errno;  // callers may still want it; never disturb the program's errno
  char line[1024];
  const char prefix[] = "gpuscope: ";
  std::memcpy(line, prefix, sizeof(prefix) - 1);
  size_t used = sizeof(prefix) - 1;

  // Keep one byte for the newline; vsnprintf itself keeps one for its terminator.
  const size_t room = sizeof(line) - used - 1;
  va_list args;
  va_start(args, format);
  int n = std::vsnprintf(line + used, room, format, args);
  va_end(args);
  if (n > 0) used += static_cast<size_t>(n) < room ? static_cast<size_t>(n) : room - 1;
  line[used++] = '\n';

  ssize_t rc;
  do {
    rc = ::write(2, line, used);
  } while (rc < 0 && errno == EINTR);
  errno = saved_errno;
}

}  // namespace gpuscope::capture

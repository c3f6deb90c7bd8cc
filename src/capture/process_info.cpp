#include "capture/process_info.h"

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>

namespace gpuscope::capture {

int64_t realtime_ns() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

std::string command_line_from_raw(std::string_view raw) {
  while (!raw.empty() && raw.back() == '\0') raw.remove_suffix(1);
  std::string line(raw);
  for (char& c : line) {
    if (c == '\0') c = ' ';
  }
  return line;
}

std::string read_command_line() {
  int fd = ::open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  std::string raw;
  char chunk[4096];
  for (;;) {
    ssize_t n = ::read(fd, chunk, sizeof(chunk));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    raw.append(chunk, static_cast<size_t>(n));
    if (raw.size() > (1u << 20)) break;  // a megabyte of arguments is plenty to show
  }
  ::close(fd);
  return command_line_from_raw(raw);
}

}  // namespace gpuscope::capture

#include "capture/process_info.h"

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

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

std::string distributed_identity(const char* (*get)(const char*)) {
  struct Launcher {
    const char* rank;
    const char* local_rank;
    const char* world_size;
  };
  static constexpr Launcher kLaunchers[] = {
      {"RANK", "LOCAL_RANK", "WORLD_SIZE"},
      {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_SIZE"},
      {"SLURM_PROCID", "SLURM_LOCALID", "SLURM_NTASKS"},
      {"PMI_RANK", "MPI_LOCALRANKID", "PMI_SIZE"},
  };
  // A non-negative decimal number below 2^24, else -1 (the importer checks again).
  auto number = [&](const char* name) -> long {
    const char* value = get(name);
    if (value == nullptr || *value == '\0') return -1;
    long n = 0;
    for (const char* c = value; *c; ++c) {
      if (*c < '0' || *c > '9' || n >= (1L << 24)) return -1;
      n = n * 10 + (*c - '0');
    }
    return n < (1L << 24) ? n : -1;
  };
  for (const Launcher& l : kLaunchers) {
    const long rank = number(l.rank);
    if (rank < 0) continue;
    return std::to_string(rank) + " " + std::to_string(number(l.local_rank)) + " " +
           std::to_string(number(l.world_size));
  }
  return "";
}

std::string distributed_identity() {
  return distributed_identity([](const char* name) -> const char* { return std::getenv(name); });
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

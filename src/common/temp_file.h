// A temporary file holding given bytes, removed when the object goes: for readers and tools that
// take a path (SQLite, nvdisasm) when what we have is bytes in memory.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

namespace gpuscope {

class TempFile {
 public:
  // Under $TMPDIR (else /tmp) as PREFIX-XXXXXX; path() is empty when it could not be made or written.
  TempFile(std::string_view bytes, const std::string& prefix) {
    std::error_code ec;
    std::filesystem::path dir = std::filesystem::temp_directory_path(ec);
    if (ec) dir = "/tmp";
    std::string path = (dir / (prefix + "-XXXXXX")).string();
    const int fd = mkstemp(path.data());
    if (fd < 0) return;
    size_t written = 0;
    while (written < bytes.size()) {
      const ssize_t n = write(fd, bytes.data() + written, bytes.size() - written);
      if (n <= 0) break;
      written += static_cast<size_t>(n);
    }
    close(fd);
    path_ = std::move(path);
    if (written != bytes.size()) remove();
  }
  ~TempFile() { remove(); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  const std::string& path() const { return path_; }

 private:
  void remove() {
    if (!path_.empty()) unlink(path_.c_str());
    path_.clear();
  }
  std::string path_;
};

}  // namespace gpuscope

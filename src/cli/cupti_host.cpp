// CuptiHost (cupti_host.h).
#include "cli/cupti_host.h"

#include <dlfcn.h>

#include <filesystem>

#include "common/error.h"

namespace gpuscope::cli {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

constexpr const char* kHostLibrary = "libgpuscope_cupti_host.so";
constexpr int kHostAbiVersion = 3;  // host_library.cpp's kAbiVersion

// $GPUSCOPE_CUPTI_HOST_LIB, else next to the binary, else ../lib/gpuscope/ (as for the capture
// library, capture_files.cpp).
std::string find_library(const std::string& override_path) {
  std::error_code ec;
  if (!override_path.empty()) {
    if (!fs::is_regular_file(override_path, ec))
      throw Error(std::string(kHostLibrary) + " not found at " + override_path + " (GPUSCOPE_CUPTI_HOST_LIB)");
    return fs::absolute(override_path).string();
  }
  const fs::path exe_dir = fs::read_symlink("/proc/self/exe", ec).parent_path();
  for (const fs::path& candidate : {exe_dir / kHostLibrary, exe_dir / "../lib/gpuscope" / kHostLibrary}) {
    if (fs::is_regular_file(candidate, ec)) return fs::canonical(candidate, ec).string();
  }
  throw Error(std::string(kHostLibrary) + " not found next to " + exe_dir.string() +
              "; CUPTI's host API needs it (build gpuscope with the CUDA toolkit's CUPTI headers)");
}

std::vector<const char*> c_strings(const std::vector<std::string>& texts) {
  std::vector<const char*> out;
  for (const std::string& text : texts) out.push_back(text.c_str());
  return out;
}

}  // namespace

CuptiHost::CuptiHost(const std::string& override_path) {
  const std::string path = find_library(override_path);
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) throw Error("cannot load " + path + ": " + dlerror());
  auto sym = [&](const char* name) {
    void* fn = dlsym(handle, name);
    if (fn == nullptr) throw Error(path + " lacks " + name + "; it is not from this gpuscope build");
    return fn;
  };
  const auto abi = reinterpret_cast<int (*)()>(sym("gpuscope_cupti_host_abi_version"));
  if (abi() != kHostAbiVersion)
    throw Error(path + " is from another gpuscope version (ABI " + std::to_string(abi()) + ")");
  chips_ = reinterpret_cast<char* (*)()>(sym("gpuscope_cupti_host_chips"));
  metrics_ = reinterpret_cast<char* (*)(const char*, int, int)>(sym("gpuscope_cupti_host_metrics"));
  check_ = reinterpret_cast<CheckFn>(sym("gpuscope_cupti_host_check"));
  local_chip_ = reinterpret_cast<char* (*)()>(sym("gpuscope_cupti_host_local_chip"));
  source_lines_ = reinterpret_cast<SourceLinesFn>(sym("gpuscope_cupti_host_source_lines"));
  free_ = reinterpret_cast<void (*)(char*)>(sym("gpuscope_cupti_host_free"));
}

json CuptiHost::chips() const { return take(chips_()); }

json CuptiHost::metrics(const std::string& chip, bool sampling, bool submetrics) const {
  return take(metrics_(chip.c_str(), sampling, submetrics));
}

json CuptiHost::check(const std::string& chip, bool sampling, const std::vector<std::string>& names,
                      const std::vector<std::string>& required) const {
  const auto n = c_strings(names), r = c_strings(required);
  return take(check_(chip.c_str(), sampling, n.data(), n.size(), r.data(), r.size()));
}

json CuptiHost::local_chip() const { return take(local_chip_()); }

json CuptiHost::source_lines(const std::string& cubin, const std::string& function,
                             const std::vector<uint64_t>& pcs) const {
  return take(source_lines_(cubin.data(), cubin.size(), function.c_str(), pcs.data(), pcs.size()));
}

// Parses and frees one answer; {"ok": false} becomes the error it carries.
json CuptiHost::take(char* raw) const {
  if (raw == nullptr) throw Error("out of memory in " + std::string(kHostLibrary));
  json doc = json::parse(raw, nullptr, false);
  free_(raw);
  if (doc.is_discarded()) throw Error(std::string(kHostLibrary) + " answered something that is not JSON");
  if (!doc.value("ok", false)) throw Error(doc.value("error", std::string("unknown error")));
  doc.erase("ok");
  return doc;
}

}  // namespace gpuscope::cli

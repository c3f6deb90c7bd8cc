// make_source_resolver (source_resolver.h).
#include "cli/source_resolver.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <utility>

#include "cli/cupti_host.h"
#include "cli/nvdisasm.h"
#include "common/error.h"
#include "importers/sass/cubin_elf.h"

namespace gpuscope::cli {
namespace {

class CliSourceResolver final : public analysis::SourceResolver {
 public:
  explicit CliSourceResolver(std::vector<std::string> source_dirs)
      : nvdisasm_(find_nvdisasm()), source_dirs_(std::move(source_dirs)) {
    try {
      const char* override_path = std::getenv("GPUSCOPE_CUPTI_HOST_LIB");
      host_.emplace(override_path ? override_path : "");
    } catch (const Error&) {
      // No host library: the section ranks PCs without lines and says so.
    }
  }

  std::vector<analysis::SourceLocation> lines(const std::string& cubin, const std::string& function,
                                              const std::vector<uint64_t>& pcs) const override {
    if (!host_) return {};
    // Library kernels (cuBLAS, cuDNN) have no line table: no need to ask CUPTI PC by PC.
    if (const auto info = sass::read_cubin(cubin); info && !info->has_line_table)
      return std::vector<analysis::SourceLocation>(pcs.size());
    try {
      const nlohmann::json answer = host_->source_lines(cubin, function, pcs);
      const nlohmann::json& rows = answer.at("lines");
      if (!rows.is_array() || rows.size() != pcs.size()) return {};
      std::vector<analysis::SourceLocation> out;
      out.reserve(rows.size());
      for (const nlohmann::json& row : rows) out.push_back({row.at(0).get<std::string>(), row.at(1).get<uint32_t>()});
      return out;
    } catch (const std::exception&) {
      return {};
    }
  }

  // One function at a time (a library's cubin holds thousands), by its symbol index.
  std::map<uint64_t, std::string> sass(const std::string& cubin, const std::string& function) const override {
    if (!nvdisasm_) return {};
    const auto info = sass::read_cubin(cubin);
    if (!info) return {};
    const auto symbol = info->functions.find(function);
    if (symbol == info->functions.end()) return {};
    return disassemble(*nvdisasm_, cubin, function, symbol->second);
  }

  // The path as the line table names it, else each source dir joined with the path's tail,
  // longest first ("/build/app/src/k.cu" under DIR: DIR/build/app/src/k.cu, DIR/app/src/k.cu, ...).
  std::string source_file(const std::string& path) const override {
    if (path.empty()) return "";
    if (std::string text = read_source(path); !text.empty()) return text;
    const std::filesystem::path named(path);
    std::vector<std::filesystem::path> parts;
    for (const auto& part : named.relative_path()) parts.push_back(part);
    for (const std::string& dir : source_dirs_)
      for (size_t from = 0; from < parts.size(); ++from) {
        std::filesystem::path candidate(dir);
        for (size_t i = from; i < parts.size(); ++i) candidate /= parts[i];
        if (std::string text = read_source(candidate); !text.empty()) return text;
      }
    return "";
  }

  std::string sass_unavailable() const override {
    return nvdisasm_ ? "nvdisasm could not disassemble the kernel"
                     : "nvdisasm not found (it comes with the CUDA toolkit: put its bin/ on PATH, set CUDA_HOME or "
                       "GPUSCOPE_NVDISASM)";
  }

 private:
  // Only a regular file of at most 4 MiB: a line table's path is data from the capture.
  static std::string read_source(const std::filesystem::path& path) {
    constexpr uintmax_t kMaxSourceBytes = uintmax_t{4} << 20;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec) || std::filesystem::file_size(path, ec) > kMaxSourceBytes || ec)
      return "";
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return in ? text.str() : "";
  }

  std::optional<std::string> nvdisasm_;
  std::vector<std::string> source_dirs_;
  std::optional<CuptiHost> host_;
};

}  // namespace

std::shared_ptr<const analysis::SourceResolver> make_source_resolver(std::vector<std::string> source_dirs) {
  return std::make_shared<const CliSourceResolver>(std::move(source_dirs));
}

}  // namespace gpuscope::cli

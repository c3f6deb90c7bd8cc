// make_source_resolver (source_resolver.h).
#include "cli/source_resolver.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "cli/cupti_host.h"
#include "cli/nvdisasm.h"
#include "common/error.h"
#include "importers/sass/cubin_elf.h"

namespace gpuscope::cli {
namespace {

class CliSourceResolver final : public analysis::SourceResolver {
 public:
  CliSourceResolver() : nvdisasm_(find_nvdisasm()) {
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

  // Only a regular file of at most 4 MiB: a line table's path is data from the capture.
  std::string source_file(const std::string& path) const override {
    constexpr uintmax_t kMaxSourceBytes = uintmax_t{4} << 20;
    std::error_code ec;
    if (path.empty() || !std::filesystem::is_regular_file(path, ec) ||
        std::filesystem::file_size(path, ec) > kMaxSourceBytes || ec)
      return "";
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return in ? text.str() : "";
  }

  std::string sass_unavailable() const override {
    return nvdisasm_ ? "nvdisasm could not disassemble the kernel"
                     : "nvdisasm not found (it comes with the CUDA toolkit: put its bin/ on PATH, set CUDA_HOME or "
                       "GPUSCOPE_NVDISASM)";
  }

 private:
  std::optional<std::string> nvdisasm_;
  std::optional<CuptiHost> host_;
};

}  // namespace

std::shared_ptr<const analysis::SourceResolver> make_source_resolver() {
  return std::make_shared<const CliSourceResolver>();
}

}  // namespace gpuscope::cli

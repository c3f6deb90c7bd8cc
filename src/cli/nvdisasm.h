// The CUDA toolkit's nvdisasm, run at report time on a cubin from a capture: SASS by PC offset
// for the Source section. Never in the profiled process (docs/report.md#source).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "importers/sass/nvdisasm_text.h"

namespace gpuscope::cli {

// nvdisasm's path: $GPUSCOPE_NVDISASM, else on PATH, else under $CUDA_HOME/bin or
// /usr/local/cuda/bin; nullopt when none is found.
std::optional<std::string> find_nvdisasm();

// Runs `nvdisasm -c -fun SYMBOL` on `cubin` (written to a temporary file): the function of that
// symbol index (importers/sass/cubin_elf.h), as its output parses (importers/sass/nvdisasm_text.h).
// Empty when nvdisasm fails, runs over `timeout_ms` (then killed) or prints more than max_bytes.
sass::FunctionSass disassemble(const std::string& nvdisasm, const std::string& cubin, const std::string& function,
                               uint32_t symbol, int timeout_ms = 60000, size_t max_bytes = size_t{64} << 20);

}  // namespace gpuscope::cli

// nvdisasm's text output read back: the SASS of a function by PC offset, for the report's Source
// section (the CLI runs nvdisasm on a capture's cubin, cli/nvdisasm.h). Any bytes are accepted:
// lines that are not instructions are skipped, so damaged or foreign text gives fewer entries,
// never an error; what it holds is bounded by the input.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace gpuscope::sass {

// A function's instructions by PC offset (from its first instruction).
using FunctionSass = std::map<uint64_t, std::string>;

// `nvdisasm -c CUBIN`'s output, per function (mangled name, from each section's ".text.NAME:"
// label): each line "/*0a30*/  @P0 BRA `(.L_x_3) ;   /* 0x... */" gives 0xa30 -> "@P0 BRA
// `(.L_x_3)"; a branch to a label of the function reads as its PC ("@P0 BRA 0x0a30"). Other
// lines (headers, labels, line-info comments) are skipped; instructions before any function label
// are left out.
std::map<std::string, FunctionSass> parse_nvdisasm(std::string_view text);

}  // namespace gpuscope::sass

// What the report needs from a cubin's ELF without a disassembler: each function's symbol index
// (nvdisasm's -fun takes indices, not names) and whether it has a line table (.debug_line or
// .nv_debug_line_sass; without one, no PC has a source line and CUPTI need not be asked). Any
// bytes are accepted: a header, section or symbol that lies outside the bytes ends the read
// with what was found; nothing is copied but the names.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace gpuscope::sass {

struct CubinInfo {
  std::map<std::string, uint32_t> functions;  // FUNC symbols: name -> symbol index
  bool has_line_table = false;
};

// nullopt: not a 64-bit little-endian ELF.
std::optional<CubinInfo> read_cubin(std::string_view bytes);

}  // namespace gpuscope::sass

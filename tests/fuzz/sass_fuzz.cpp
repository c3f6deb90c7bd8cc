// The readers of the report's Source section (src/importers/sass): a cubin's ELF and nvdisasm's
// text, both given every input.
#include "fuzz_target.h"
#include "importers/sass/cubin_elf.h"
#include "importers/sass/nvdisasm_text.h"

void gpuscope::fuzz::fuzz_one(std::string_view bytes) {
  sass::read_cubin(bytes);
  sass::parse_nvdisasm(bytes);
}

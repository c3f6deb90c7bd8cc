// read_cubin (cubin_elf.h): the ELF64 section headers, .symtab and its string table.
#include "importers/sass/cubin_elf.h"

#include <cstring>

namespace gpuscope::sass {
namespace {

constexpr uint32_t kSymtab = 2;       // SHT_SYMTAB
constexpr uint8_t kFunction = 2;      // STT_FUNC
constexpr size_t kSectionBytes = 64;  // sizeof(Elf64_Shdr)
constexpr size_t kSymbolBytes = 24;   // sizeof(Elf64_Sym)

// Reads a little-endian integer at `at`, or nothing when it lies outside `bytes`.
template <class T>
std::optional<T> field(std::string_view bytes, uint64_t at) {
  if (at > bytes.size() || bytes.size() - at < sizeof(T)) return std::nullopt;
  T value;
  std::memcpy(&value, bytes.data() + at, sizeof value);
  return value;
}

// The NUL-terminated name at `offset` of the string table [table, table + size).
std::string_view name_at(std::string_view bytes, uint64_t table, uint64_t size, uint64_t offset) {
  if (table > bytes.size() || size > bytes.size() - table || offset >= size) return {};
  const std::string_view strings = bytes.substr(table + offset, size - offset);
  return strings.substr(0, strings.find('\0'));
}

struct Section {
  uint32_t name = 0, type = 0, link = 0;
  uint64_t offset = 0, size = 0, entry_size = 0;
};

std::optional<Section> section(std::string_view bytes, uint64_t headers, uint64_t index) {
  const uint64_t at = headers + index * kSectionBytes;
  const auto name = field<uint32_t>(bytes, at), type = field<uint32_t>(bytes, at + 4);
  const auto offset = field<uint64_t>(bytes, at + 24), size = field<uint64_t>(bytes, at + 32);
  const auto link = field<uint32_t>(bytes, at + 40);
  const auto entry = field<uint64_t>(bytes, at + 56);
  if (!name || !type || !offset || !size || !link || !entry) return std::nullopt;
  return Section{*name, *type, *link, *offset, *size, *entry};
}

}  // namespace

std::optional<CubinInfo> read_cubin(std::string_view bytes) {
  if (bytes.size() < 64 ||
      bytes.substr(0, 4) !=
          "\x7f"
          "ELF" ||
      bytes[4] != 2 || bytes[5] != 1)
    return std::nullopt;
  const auto headers = field<uint64_t>(bytes, 0x28);
  const auto count = field<uint16_t>(bytes, 0x3c), names = field<uint16_t>(bytes, 0x3e);
  if (!headers || !count || !names) return std::nullopt;
  CubinInfo info;
  const std::optional<Section> name_table = section(bytes, *headers, *names);
  for (uint64_t i = 0; i < *count; ++i) {
    const std::optional<Section> s = section(bytes, *headers, i);
    if (!s) break;
    if (name_table) {
      const std::string_view name = name_at(bytes, name_table->offset, name_table->size, s->name);
      if (name == ".debug_line" || name == ".nv_debug_line_sass") info.has_line_table = true;
    }
    if (s->type != kSymtab || s->entry_size != kSymbolBytes) continue;
    const std::optional<Section> strings = section(bytes, *headers, s->link);
    if (!strings) continue;
    for (uint64_t k = 0; k < s->size / kSymbolBytes; ++k) {
      const uint64_t at = s->offset + k * kSymbolBytes;
      const auto name = field<uint32_t>(bytes, at);
      const auto kind = field<uint8_t>(bytes, at + 4);
      if (!name || !kind) break;
      if ((*kind & 0xf) != kFunction) continue;
      const std::string_view symbol = name_at(bytes, strings->offset, strings->size, *name);
      if (!symbol.empty()) info.functions.emplace(std::string(symbol), static_cast<uint32_t>(k));
    }
  }
  return info;
}

}  // namespace gpuscope::sass

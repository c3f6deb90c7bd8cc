// CRC-32 (IEEE 802.3, the zlib polynomial) for spool chunk checksums.
// Header-only and allocation-free so the injection library can use it too.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace gpuscope {

namespace detail {
constexpr std::array<uint32_t, 256> make_crc32_table() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    table[i] = c;
  }
  return table;
}
inline constexpr std::array<uint32_t, 256> kCrc32Table = make_crc32_table();
}  // namespace detail

// Continue a running CRC; start with crc = 0.
inline uint32_t crc32(const void* data, size_t bytes, uint32_t crc = 0) {
  const auto* p = static_cast<const unsigned char*>(data);
  crc = ~crc;
  for (size_t i = 0; i < bytes; ++i) crc = detail::kCrc32Table[(crc ^ p[i]) & 0xFF] ^ (crc >> 8);
  return ~crc;
}

}  // namespace gpuscope

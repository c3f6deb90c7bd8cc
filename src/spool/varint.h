// LEB128 varints and zigzag signs for the packed spool (packing.h). A value takes 7 bits a
// byte, low bits first, the top bit set on every byte but the last: a delta under 128 costs 1 byte,
// a 64-bit value at most kMaxVarintBytes. Zigzag maps small negative deltas to small numbers
// (0, -1, 1, -2 ... -> 0, 1, 2, 3 ...) so they stay short too.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gpuscope::spool {

inline constexpr size_t kMaxVarintBytes = 10;  // ceil(64 / 7)

inline uint64_t zigzag(uint64_t delta) {  // delta: a two's-complement difference
  return (delta << 1) ^ (0 - (delta >> 63));
}

inline uint64_t unzigzag(uint64_t value) { return (value >> 1) ^ (0 - (value & 1)); }

// Writes `value` at `out` (room for kMaxVarintBytes); returns the end.
inline uint8_t* put_varint(uint8_t* out, uint64_t value) {
  while (value >= 0x80) {
    *out++ = static_cast<uint8_t>(value) | 0x80;
    value >>= 7;
  }
  *out++ = static_cast<uint8_t>(value);
  return out;
}

// Reads a varint from [in, end). False when the bytes end before its last byte or it holds more
// than 64 bits (a damaged chunk); `in` then points anywhere in [in, end].
inline bool get_varint(const uint8_t*& in, const uint8_t* end, uint64_t& value) {
  uint64_t result = 0;
  for (unsigned shift = 0; shift < 64; shift += 7) {
    if (in == end) return false;
    const uint8_t byte = *in++;
    if (shift == 63 && byte > 1) return false;  // the 10th byte may only hold bit 63
    result |= static_cast<uint64_t>(byte & 0x7F) << shift;
    if (!(byte & 0x80)) {
      value = result;
      return true;
    }
  }
  return false;  // unreachable: the 10th byte either ended the varint or was refused
}

}  // namespace gpuscope::spool

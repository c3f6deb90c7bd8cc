#include "spool/packing.h"

#include <cstring>

namespace gpuscope::spool {

void ChunkPacker::reset() { std::memset(previous_, 0, sizeof previous_); }

uint8_t* ChunkPacker::pack(RecordKind kind, const Layout& layout, const void* body, uint8_t* out) {
  const auto* record = static_cast<const uint8_t*>(body);
  uint64_t* previous = previous_[static_cast<size_t>(kind)];
  uint64_t raw[kMaxFields];    // the fields as they are, widened
  uint64_t delta[kMaxFields];  // stored value - previous stored value, two's complement
  uint32_t mask = 0;
  for (unsigned i = 0; i < layout.count; ++i) {
    const Field& field = layout.fields[i];
    raw[i] = load_field(record, field);
    const uint64_t value = field.base == kNoBase ? raw[i] : raw[i] - raw[field.base];
    delta[i] = value - previous[i];
    previous[i] = value;
    mask |= static_cast<uint32_t>(delta[i] != 0) << i;
  }
  *out++ = static_cast<uint8_t>(kind);
  out = put_varint(out, mask);
  for (uint32_t rest = mask; rest != 0; rest &= rest - 1) out = put_varint(out, zigzag(delta[__builtin_ctz(rest)]));
  return out;
}

uint8_t* ChunkPacker::pack_string(RecordKind kind, uint32_t id, std::string_view text, uint8_t* out) {
  *out++ = static_cast<uint8_t>(kind);
  out = put_varint(out, id);
  out = put_varint(out, text.size());
  if (!text.empty()) std::memcpy(out, text.data(), text.size());
  return out + text.size();
}

}  // namespace gpuscope::spool

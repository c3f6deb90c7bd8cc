#include "spool/chunk_reader.h"

#include <cstring>

#include "spool/varint.h"

namespace gpuscope::spool {

void ChunkReader::start(const void* payload, size_t bytes) {
  at_ = static_cast<const uint8_t*>(payload);
  end_ = at_ + bytes;
  damaged_ = false;
  // Each chunk starts from zeros.
  std::memset(previous_, 0, sizeof previous_);
  std::memset(records_, 0, sizeof records_);
}

bool ChunkReader::next(RecordView& record) {
  if (damaged_ || at_ == end_) return false;
  const uint8_t kind_value = *at_++;
  const auto kind = static_cast<RecordKind>(kind_value);
  if (kind == RecordKind::String || kind == RecordKind::Text) return unpack_string(kind, record);
  const Layout* layout = layout_of(kind_value);
  if (!layout) return fail();
  uint64_t mask = 0;
  if (!get_varint(at_, end_, mask) || (mask >> layout->count) != 0) return fail();
  uint64_t* previous = previous_[kind_value];
  uint8_t* unpacked = records_[kind_value];
  // Changed fields, and those stored relative to a base (end_ns follows start_ns), in field order:
  // a base is always rewritten before the fields that depend on it.
  for (uint64_t rest = mask | layout->based; rest != 0; rest &= rest - 1) {
    const unsigned i = static_cast<unsigned>(__builtin_ctzll(rest));
    if (mask & (uint64_t{1} << i)) {
      uint64_t delta = 0;
      if (!get_varint(at_, end_, delta)) return fail();
      previous[i] += unzigzag(delta);
    }
    const Field& field = layout->fields[i];
    const uint64_t value = field.base == kNoBase ? previous[i] : previous[i] + previous[field.base];
    if (!store_field(unpacked, field, value)) return fail();
  }
  record = {kind, reinterpret_cast<const char*>(unpacked), layout->size};
  return true;
}

bool ChunkReader::unpack_string(RecordKind kind, RecordView& record) {
  uint64_t id = 0;
  uint64_t length = 0;
  if (!get_varint(at_, end_, id) || id > UINT32_MAX || !get_varint(at_, end_, length)) return fail();
  // The text is inside the payload, so it is never longer than a chunk may be.
  if (length > static_cast<size_t>(end_ - at_) || length > kMaxChunkPayload) return fail();
  const StringDef def{static_cast<uint32_t>(id), static_cast<uint32_t>(length)};
  string_.resize(sizeof def + length);
  std::memcpy(string_.data(), &def, sizeof def);
  if (length) std::memcpy(string_.data() + sizeof def, at_, length);
  at_ += length;
  record = {kind, string_.data(), static_cast<uint32_t>(string_.size())};
  return true;
}

}  // namespace gpuscope::spool

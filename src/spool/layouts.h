// The field table of the spool's fixed-size records (format.h): where each field of each struct
// lies, how wide it is and how the packed spool (packing.h) stores it. The structs stay the
// unpacked form; this table is what lets a chunk carry only the fields that changed.
//
// A layout lists the fields in the order their bits appear in a packed record's change mask. The
// mask is a varint, 7 fields a byte, so the fields that change on most records come first: a
// kernel whose name, grid and block are those of the previous one costs a 1-byte mask.
// Pads are not listed: they are never written and unpack as zeros.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "spool/format.h"

namespace gpuscope::spool {

inline constexpr size_t kMaxFields = 24;        // KernelRecord has the most: 22
inline constexpr size_t kMaxRecordBytes = 104;  // sizeof(KernelRecord), the largest struct
inline constexpr size_t kKindSlots = static_cast<size_t>(kLastRecordKind) + 1;  // 0 is no kind

struct Field {
  uint16_t offset;  // in the struct, bytes
  uint8_t width;    // bytes: 1, 2, 4 or 8
  bool is_signed;   // widened with its sign, so -1 after 0 is a delta of -1, not of 2^32 - 1
  int8_t base;      // index of an earlier field this one is stored relative to, or kNoBase:
                    // end_ns is stored as end_ns - start_ns, a duration, small and often repeated
};
inline constexpr int8_t kNoBase = -1;

struct Layout {
  uint16_t size;   // sizeof the struct: the only body size the kind may have
  uint8_t count;   // fields in `fields`
  uint32_t based;  // bit i set: fields[i] has a base (it changes whenever its base does)
  Field fields[kMaxFields];
};

// The layout of a fixed-size kind; nullptr for String and Text (bytes of any length) and for
// values that are no RecordKind.
const Layout* layout_of(uint32_t kind);
inline const Layout* layout_of(RecordKind kind) { return layout_of(static_cast<uint32_t>(kind)); }

// A field's value widened to 64 bits (sign- or zero-extended), and back. store_field() is false,
// and writes nothing, when the value does not fit the field's width: a damaged packed record.
// Inline: the packer and the reader call them for every field of every record.
template <class T>
inline T read_as(const uint8_t* at) {
  T value;
  std::memcpy(&value, at, sizeof value);
  return value;
}

inline uint64_t load_field(const uint8_t* record, const Field& field) {
  const uint8_t* at = record + field.offset;
  switch (field.width) {
    case 1: return field.is_signed ? uint64_t(int64_t(read_as<int8_t>(at))) : read_as<uint8_t>(at);
    case 2: return field.is_signed ? uint64_t(int64_t(read_as<int16_t>(at))) : read_as<uint16_t>(at);
    case 4: return field.is_signed ? uint64_t(int64_t(read_as<int32_t>(at))) : read_as<uint32_t>(at);
    default: return read_as<uint64_t>(at);
  }
}

inline bool store_field(uint8_t* record, const Field& field, uint64_t value) {
  if (field.width < 8) {
    const unsigned unused = 64 - 8 * field.width;  // bits above the field's width
    // The value must be what load_field() would give for its low bytes.
    const uint64_t widened = field.is_signed ? uint64_t(int64_t(value << unused) >> unused)
                                             : (value << unused) >> unused;
    if (widened != value) return false;
  }
  std::memcpy(record + field.offset, &value, field.width);  // little-endian: the low bytes
  return true;
}

}  // namespace gpuscope::spool

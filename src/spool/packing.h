// The packed spool: how a chunk's records are written so that a record costs its
// changes, not its struct. Layout of one packed record (all integers varints, varint.h):
//
//   kind        1 byte, a RecordKind
//   String/Text id, length, then `length` bytes
//   fixed kinds mask: bit i set = field i of the kind's layout (layouts.h) changed; then, for each
//               set bit from the lowest, zigzag(value - previous value) of that field
//
// "Previous" is the last record of the same kind in the same chunk, all zeros for the first one:
// every chunk decodes on its own, so a spool cut short keeps every whole chunk as before. A
// field with a base (end_ns) has the value end_ns - start_ns. Deltas are taken in 64 bits after
// widening each field with its sign; the reader refuses a value that does not fit the field.
//
// ChunkPacker (the writer's side) keeps the previous values; ChunkReader (chunk_reader.h) undoes it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "spool/format.h"
#include "spool/layouts.h"
#include "spool/varint.h"

namespace gpuscope::spool {

// The most bytes one packed fixed record takes: kind, a 32-bit mask, a full delta per field.
inline constexpr size_t kMaxPackedRecordBytes = 1 + 5 + kMaxFields * kMaxVarintBytes;
// The most bytes before the text of a packed String or Text record: kind, id and length.
inline constexpr size_t kMaxPackedStringHead = 1 + 5 + 5;

class ChunkPacker {
 public:
  ChunkPacker() { reset(); }

  // Starts a new chunk: every kind's previous record is all zeros again.
  void reset();

  // Packs one fixed-size record of `layout` (the kind's, from layout_of(kind)) at `out`, which has
  // room for kMaxPackedRecordBytes; returns the end of what was written. No allocation.
  uint8_t* pack(RecordKind kind, const Layout& layout, const void* body, uint8_t* out);

  // Packs a String or Text record at `out` (room for kMaxPackedStringHead + text.size()).
  static uint8_t* pack_string(RecordKind kind, uint32_t id, std::string_view text, uint8_t* out);

 private:
  uint64_t previous_[kKindSlots][kMaxFields];  // per kind, the previous record's stored values
};

}  // namespace gpuscope::spool

// Walks the records of one CRC-checked chunk payload: packed records (packing.h), which the reader
// unpacks back into the exact structs of format.h (pads zero); a String or Text record comes out
// as StringDef + text.
//
// Damage never reads outside the payload: a record cut by the chunk's end, an unknown packed
// kind, a change mask with bits beyond the kind's fields, a varint over 64 bits or a value too
// wide for its field ends the walk with damaged() true (the importer then treats the chunk as it
// treats a CRC failure). Each record consumes at least one byte, so a walk always ends.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "spool/format.h"
#include "spool/layouts.h"

namespace gpuscope::spool {

struct RecordView {
  RecordKind kind;   // String, Text or a kind with a layout (layouts.h)
  const char* body;  // the struct, or StringDef + text for String and Text
  uint32_t bytes;    // valid until the next call of next() or start()
};

class ChunkReader {
 public:
  ChunkReader() = default;
  ChunkReader(const ChunkReader&) = delete;
  ChunkReader& operator=(const ChunkReader&) = delete;

  // Starts on a payload; the payload must outlive the walk.
  void start(const void* payload, size_t bytes);

  // The next record; false at the end of the payload or at damage.
  bool next(RecordView& record);
  bool damaged() const { return damaged_; }

 private:
  bool unpack_string(RecordKind kind, RecordView& record);
  bool fail() {
    damaged_ = true;
    return false;
  }

  const uint8_t* at_ = nullptr;
  const uint8_t* end_ = nullptr;
  bool damaged_ = false;
  // Per kind: the previous record's stored values (end_ns as a duration) and the record
  // itself unpacked, which the next record of the kind updates in place, field by changed field.
  uint64_t previous_[kKindSlots][kMaxFields] = {};
  alignas(8) uint8_t records_[kKindSlots][kMaxRecordBytes] = {};
  std::vector<char> string_;  // the current String/Text as StringDef + text
};

}  // namespace gpuscope::spool

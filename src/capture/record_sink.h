// Where decoded records go. The activity decoder produces spool records; the spool
// writer (or a test double) consumes them. Keeping this seam tiny lets the decoder be
// tested on a CPU with synthesized CUPTI records and no file at all.
#pragma once

#include <cstdint>
#include <string_view>

#include "spool/format.h"

namespace gpuscope::capture {

class RecordSink {
 public:
  virtual ~RecordSink() = default;

  // The id of `text` (per process; 0 is always the empty string). The first time a
  // text is seen the sink defines it, before any record that could refer to the id.
  virtual uint32_t intern(std::string_view text) = 0;

  // Appends one record: `bytes` of `body` (one of the structs in spool/format.h).
  virtual void append(spool::RecordKind kind, const void* body, uint32_t bytes) = 0;

  template <class Record>
  void add(spool::RecordKind kind, const Record& record) {
    append(kind, &record, static_cast<uint32_t>(sizeof(Record)));
  }
};

}  // namespace gpuscope::capture

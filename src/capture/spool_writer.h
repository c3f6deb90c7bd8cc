// Writes one spool file (format: src/spool/format.h) from a single thread.
//
// Records are packed (spool/packing.h: only what changed since the previous record of the
// kind, as varint deltas; no allocation, no hashing) into an in-memory chunk; flush() frames it
// (ChunkHeader with CRC-32 of the payload), hands it to the kernel with write(2) and starts the
// packing over, so every chunk decodes on its own. Once write(2) returns, the chunk survives
// the process being killed, so the caller flushes after every CUPTI buffer. A chunk also goes
// out by itself once it passes kChunkTargetBytes of packed records, which bounds memory. There
// is no fsync: we guard against the process dying, not the machine.
//
// Strings are interned: intern() emits a String record into the current chunk the
// first time it sees a text, so a definition is always in the same or an earlier
// chunk than its first use, and a reader that keeps whole chunks never meets an
// undefined id. To bound memory with endlessly unique texts (NVTX names such as
// "step 12345"), the dedup table stops growing at kInternTableBytes; later new texts
// still get fresh ids and definitions, they just are not deduplicated.
//
// Not thread-safe: owned by one thread at a time (the injection's start-up code,
// then the writer thread).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "capture/record_sink.h"
#include "spool/format.h"
#include "spool/packing.h"

namespace gpuscope::capture {

class SpoolWriter final : public RecordSink {
 public:
  static constexpr size_t kChunkTargetBytes = 4u << 20;
  static constexpr size_t kMaxStringBytes = 1u << 20;  // longer texts are cut (never seen in practice)
  static constexpr size_t kInternTableBytes = 64u << 20;

  SpoolWriter();
  ~SpoolWriter() override;
  SpoolWriter(const SpoolWriter&) = delete;
  SpoolWriter& operator=(const SpoolWriter&) = delete;

  // Creates (truncates) `path` with O_CLOEXEC and writes the FileHeader.
  // On failure returns false and error() says why; the writer then stays unusable.
  bool open(const std::string& path, uint32_t pid, uint32_t parent_pid, int64_t created_ns);

  uint32_t intern(std::string_view text) override;
  // `bytes` must be the size of the kind's struct (format.h); a record that is not (a bug of
  // the caller, never seen) is counted as lost rather than written damaged.
  void append(spool::RecordKind kind, const void* body, uint32_t bytes) override;
  // Texts longer than `max_bytes` are cut (a cubin passes its own bound).
  void append_text(spool::TextKey key, std::string_view text, size_t max_bytes = kMaxStringBytes);

  // Writes the pending chunk, if any. Returns false once any write has failed.
  bool flush();
  // Appends the End record, flushes and closes the file.
  void finish(const spool::EndRecord& end);
  void close();

  int fd() const { return fd_; }
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  uint64_t records_written() const { return records_written_; }  // in chunks that reached the file
  uint64_t records_lost() const { return records_lost_; }        // dropped after a write error
  uint32_t pending_records() const { return pending_records_; }
  size_t pending_bytes() const { return used_ - sizeof(spool::ChunkHeader); }

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  void append_string(spool::RecordKind kind, uint32_t id, std::string_view text);
  uint8_t* reserve(size_t bytes);
  void commit(uint8_t* end);
  bool write_all(const void* data, size_t bytes);
  void fail(const char* what, int err);

  int fd_ = -1;
  // The chunk being filled: the ChunkHeader (filled in by flush()), then used_ - header bytes of
  // packed records. It grows by doubling and keeps its size between chunks (flush() cuts it back
  // only after a huge one), so packing a record does not pay for zero-filling room.
  std::vector<uint8_t> payload_;
  size_t used_ = sizeof(spool::ChunkHeader);
  spool::ChunkPacker packer_;
  uint32_t pending_records_ = 0;
  uint64_t records_written_ = 0;
  uint64_t records_lost_ = 0;
  std::unordered_map<std::string, uint32_t, Hash, std::equal_to<>> string_ids_;
  size_t string_table_bytes_ = 0;
  uint32_t next_string_id_ = 1;
  std::string error_;
};

}  // namespace gpuscope::capture

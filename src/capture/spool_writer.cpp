#include "capture/spool_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/crc32.h"

namespace gpuscope::capture {

SpoolWriter::SpoolWriter() : payload_(sizeof(spool::ChunkHeader)) {}

SpoolWriter::~SpoolWriter() { close(); }

bool SpoolWriter::open(const std::string& path, uint32_t pid, uint32_t parent_pid, int64_t created_ns) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    fail(("cannot create spool " + path).c_str(), errno);
    return false;
  }
  fd_ = fd;
  spool::FileHeader header{};
  std::memcpy(header.magic, spool::kFileMagic, sizeof(header.magic));
  header.version = spool::kVersion;
  header.header_bytes = sizeof(header);
  header.pid = pid;
  header.parent_pid = parent_pid;
  header.created_ns = created_ns;
  return write_all(&header, sizeof(header));
}

uint32_t SpoolWriter::intern(std::string_view text) {
  if (text.empty()) return 0;
  if (text.size() > kMaxStringBytes) text = text.substr(0, kMaxStringBytes);
  if (auto it = string_ids_.find(text); it != string_ids_.end()) return it->second;

  uint32_t id = next_string_id_++;
  append_string(spool::RecordKind::String, id, text);
  if (string_table_bytes_ < kInternTableBytes) {
    string_ids_.emplace(std::string(text), id);
    string_table_bytes_ += text.size() + 64;  // rough per-entry overhead of the hash table
  }
  return id;
}

void SpoolWriter::append(spool::RecordKind kind, const void* body, uint32_t bytes) {
  const spool::Layout* layout = spool::layout_of(kind);
  if (!layout || layout->size != bytes) {
    ++records_lost_;
    return;
  }
  if (uint8_t* out = reserve(spool::kMaxPackedRecordBytes)) commit(packer_.pack(kind, *layout, body, out));
}

void SpoolWriter::append_text(spool::TextKey key, std::string_view text, size_t max_bytes) {
  if (text.size() > max_bytes) text = text.substr(0, max_bytes);
  append_string(spool::RecordKind::Text, static_cast<uint32_t>(key), text);
}

void SpoolWriter::append_string(spool::RecordKind kind, uint32_t id, std::string_view text) {
  if (uint8_t* out = reserve(spool::kMaxPackedStringHead + text.size()))
    commit(spool::ChunkPacker::pack_string(kind, id, text, out));
}

// Room for one packed record of at most `bytes`; nullptr (the record counted as lost) once the
// writer has failed.
uint8_t* SpoolWriter::reserve(size_t bytes) {
  if (!ok()) {
    ++records_lost_;
    return nullptr;
  }
  if (pending_bytes() + bytes > spool::kMaxChunkPayload && !flush()) {
    ++records_lost_;
    return nullptr;
  }
  if (used_ + bytes > payload_.size()) payload_.resize(std::max(used_ + bytes, 2 * payload_.size()));
  return payload_.data() + used_;
}

void SpoolWriter::commit(uint8_t* end) {
  used_ = static_cast<size_t>(end - payload_.data());
  ++pending_records_;
  if (pending_bytes() >= kChunkTargetBytes) flush();
}

bool SpoolWriter::flush() {
  if (!ok()) return false;
  if (pending_records_ == 0) return true;
  spool::ChunkHeader header{};
  header.magic = spool::kChunkMagic;
  header.payload_bytes = static_cast<uint32_t>(pending_bytes());
  header.crc32 = crc32(payload_.data() + sizeof(header), header.payload_bytes);
  header.record_count = pending_records_;
  std::memcpy(payload_.data(), &header, sizeof(header));

  const uint32_t records = pending_records_;
  const bool written = write_all(payload_.data(), used_);
  if (written) records_written_ += records;
  else records_lost_ += records;
  used_ = sizeof(spool::ChunkHeader);
  pending_records_ = 0;
  packer_.reset();
  // Give memory back after an unusually large chunk (a huge string); keep the usual working size.
  if (payload_.size() > 2 * kChunkTargetBytes) {
    payload_.resize(kChunkTargetBytes);
    payload_.shrink_to_fit();
  }
  return written;
}

void SpoolWriter::finish(const spool::EndRecord& end) {
  add(spool::RecordKind::End, end);
  flush();
  close();
}

void SpoolWriter::close() {
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
}

bool SpoolWriter::write_all(const void* data, size_t bytes) {
  if (fd_ < 0) {
    if (ok()) fail("spool is not open", EBADF);
    return false;
  }
  const auto* p = static_cast<const uint8_t*>(data);
  while (bytes > 0) {
    ssize_t n = ::write(fd_, p, bytes);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("cannot write spool", errno);
      return false;
    }
    p += n;
    bytes -= static_cast<size_t>(n);
  }
  return true;
}

void SpoolWriter::fail(const char* what, int err) {
  if (!ok()) return;  // keep the first cause
  error_ = std::string(what) + ": " + std::strerror(err);
}

}  // namespace gpuscope::capture

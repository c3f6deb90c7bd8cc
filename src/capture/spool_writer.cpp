#include "capture/spool_writer.h"

#include <fcntl.h>
#include <unistd.h>

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
  spool::StringDef def{id, static_cast<uint32_t>(text.size())};
  append_parts(spool::RecordKind::String, &def, sizeof(def), text.data(), def.length);
  if (string_table_bytes_ < kInternTableBytes) {
    string_ids_.emplace(std::string(text), id);
    string_table_bytes_ += text.size() + 64;  // rough per-entry overhead of the hash table
  }
  return id;
}

void SpoolWriter::append(spool::RecordKind kind, const void* body, uint32_t bytes) {
  append_parts(kind, body, bytes, nullptr, 0);
}

void SpoolWriter::append_text(spool::TextKey key, std::string_view text) {
  if (text.size() > kMaxStringBytes) text = text.substr(0, kMaxStringBytes);
  spool::StringDef def{static_cast<uint32_t>(key), static_cast<uint32_t>(text.size())};
  append_parts(spool::RecordKind::Text, &def, sizeof(def), text.data(), def.length);
}

void SpoolWriter::append_parts(spool::RecordKind kind, const void* a, uint32_t a_bytes, const void* b,
                               uint32_t b_bytes) {
  if (!ok()) {
    ++records_lost_;
    return;
  }
  const size_t record_bytes = sizeof(spool::RecordHeader) + a_bytes + b_bytes;
  if (pending_bytes() + record_bytes > spool::kMaxChunkPayload) flush();

  spool::RecordHeader header{static_cast<uint16_t>(kind), 0, a_bytes + b_bytes};
  const size_t at = payload_.size();
  payload_.resize(at + record_bytes);
  uint8_t* out = payload_.data() + at;
  std::memcpy(out, &header, sizeof(header));
  if (a_bytes) std::memcpy(out + sizeof(header), a, a_bytes);
  if (b_bytes) std::memcpy(out + sizeof(header) + a_bytes, b, b_bytes);
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
  const bool written = write_all(payload_.data(), payload_.size());
  if (written) records_written_ += records;
  else records_lost_ += records;
  payload_.resize(sizeof(spool::ChunkHeader));
  pending_records_ = 0;
  // Give memory back after an unusually large chunk; keep the usual working size.
  if (payload_.capacity() > 2 * kChunkTargetBytes) payload_.shrink_to_fit();
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

// Builds spool bytes for tests, independently of the capture library's writer,
// so the importer is checked against the format contract (src/spool/format.h)
// itself. Also builds broken spools on purpose. Records are packed (src/spool/packing.h); the
// header states the current version unless told another, for the refusal of other versions.
#pragma once

#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/crc32.h"
#include "spool/format.h"
#include "spool/packing.h"

namespace gpuscope::testing {

class SpoolBuilder {
 public:
  SpoolBuilder(uint32_t pid, uint32_t parent_pid = 1, int64_t created_ns = 1'000'000,
               uint32_t version = spool::kVersion) {
    spool::FileHeader header{};
    std::memcpy(header.magic, spool::kFileMagic, sizeof header.magic);
    header.version = version;
    header.header_bytes = sizeof header;
    header.pid = pid;
    header.parent_pid = parent_pid;
    header.created_ns = created_ns;
    file_.resize(sizeof header);  // not append(): GCC 12 warns, wrongly, of an overflow there
    std::memcpy(file_.data(), &header, sizeof header);
  }

  // Body must be the kind's own struct.
  template <class Body>
  SpoolBuilder& record(spool::RecordKind kind, const Body& body) {
    const spool::Layout* layout = spool::layout_of(kind);
    if (!layout || layout->size != sizeof(Body)) throw std::logic_error("not the kind's struct");
    uint8_t packed[spool::kMaxPackedRecordBytes];
    append(chunk_, packed, static_cast<size_t>(packer_.pack(kind, *layout, &body, packed) - packed));
    ++chunk_records_;
    return *this;
  }

  SpoolBuilder& string(uint32_t id, const std::string& text, bool is_text = false) {
    const auto kind = is_text ? spool::RecordKind::Text : spool::RecordKind::String;
    std::vector<uint8_t> packed(spool::kMaxPackedStringHead + text.size());
    append(chunk_, packed.data(),
           static_cast<size_t>(spool::ChunkPacker::pack_string(kind, id, text, packed.data()) - packed.data()));
    ++chunk_records_;
    return *this;
  }

  // Bytes put into the current chunk as they are, counted as `records` records: damaged records.
  SpoolBuilder& raw(const std::vector<uint8_t>& bytes, uint32_t records = 1) {
    append(chunk_, bytes.data(), bytes.size());
    chunk_records_ += records;
    return *this;
  }

  // Closes the current chunk: header with CRC, then the payload.
  SpoolBuilder& flush() {
    spool::ChunkHeader header{spool::kChunkMagic, static_cast<uint32_t>(chunk_.size()),
                              crc32(chunk_.data(), chunk_.size()), chunk_records_};
    append(file_, &header, sizeof header);
    file_.insert(file_.end(), chunk_.begin(), chunk_.end());
    chunk_.clear();
    chunk_records_ = 0;
    packer_.reset();  // every chunk packs on its own
    return *this;
  }

  SpoolBuilder& end(int64_t end_ns, uint64_t dropped = 0) {
    record(spool::RecordKind::End, spool::EndRecord{end_ns, 0, dropped});
    return flush();
  }

  std::vector<char>& bytes() { return file_; }

  void write(const std::string& path) const {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(file_.data(), static_cast<std::streamsize>(file_.size()));
  }

 private:
  static void append(std::vector<char>& to, const void* data, size_t bytes) {
    const char* p = static_cast<const char*>(data);
    to.insert(to.end(), p, p + bytes);
  }

  spool::ChunkPacker packer_;
  std::vector<char> file_;
  std::vector<char> chunk_;
  uint32_t chunk_records_ = 0;
};

// A fresh, empty scratch directory per test.
std::string scratch_dir(const std::string& test_name);

}  // namespace gpuscope::testing

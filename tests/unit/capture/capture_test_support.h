// Test helpers for the capture library: a recording RecordSink, a synthesized CUPTI
// activity buffer (in the spirit of Kineto's MockCuptiActivityBuffer), and a minimal,
// independent spool reader that checks magic, CRC and record framing.
#pragma once

#include <cupti_activity.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "capture/record_sink.h"
#include "common/crc32.h"
#include "spool/chunk_reader.h"
#include "spool/format.h"

namespace gpuscope::capture::test {

// --- A RecordSink that keeps everything ---------------------------------------------------

class RecordingSink : public RecordSink {
 public:
  struct Record {
    spool::RecordKind kind;
    std::vector<uint8_t> body;
  };

  uint32_t intern(std::string_view text) override {
    if (text.empty()) return 0;
    auto it = ids.find(std::string(text));
    if (it != ids.end()) return it->second;
    uint32_t id = static_cast<uint32_t>(strings.size()) + 1;
    ids.emplace(std::string(text), id);
    strings[id] = std::string(text);
    return id;
  }
  void append(spool::RecordKind kind, const void* body, uint32_t bytes) override {
    const auto* p = static_cast<const uint8_t*>(body);
    records.push_back({kind, std::vector<uint8_t>(p, p + bytes)});
  }

  template <class T>
  T only(spool::RecordKind kind) const {
    T out{};
    int found = 0;
    for (const Record& r : records) {
      if (r.kind != kind) continue;
      ++found;
      if (r.body.size() == sizeof(T)) std::memcpy(&out, r.body.data(), sizeof(T));
    }
    if (found != 1) throw std::runtime_error("expected exactly one record of the kind");
    return out;
  }
  const std::string& str(uint32_t id) const {
    static const std::string empty;
    auto it = strings.find(id);
    return it == strings.end() ? empty : it->second;
  }

  std::map<std::string, uint32_t> ids;
  std::map<uint32_t, std::string> strings;
  std::vector<Record> records;
};

// --- A synthesized CUPTI buffer --------------------------------------------------------
// Layout (ours, not CUPTI's): per record an 8-byte prefix holding its size, then the
// record padded to 8 bytes. mock_next_record walks it like cuptiActivityGetNextRecord,
// including CUPTI_ERROR_INVALID_KIND for a record whose kind is INVALID (an incomplete one).

class MockActivityBuffer {
 public:
  template <class T>
  void add(const T& record) {
    add_bytes(&record, sizeof(T));
  }
  void add_incomplete() {
    CUpti_Activity invalid{};
    invalid.kind = CUPTI_ACTIVITY_KIND_INVALID;
    add_bytes(&invalid, sizeof(invalid));
  }
  // Copies into `out` (e.g. a pool buffer); returns the valid size.
  size_t copy_to(uint8_t* out, size_t capacity) const {
    if (bytes_.size() > capacity) throw std::runtime_error("mock buffer too large");
    std::memcpy(out, bytes_.data(), bytes_.size());
    return bytes_.size();
  }
  size_t size() const { return bytes_.size(); }
  uint8_t* data() { return bytes_.data(); }

 private:
  void add_bytes(const void* p, size_t n) {
    const size_t padded = (n + 7) & ~size_t{7};
    const size_t at = bytes_.size();
    bytes_.resize(at + 8 + padded, 0);
    uint64_t size = n;
    std::memcpy(bytes_.data() + at, &size, 8);
    std::memcpy(bytes_.data() + at + 8, p, n);
  }
  std::vector<uint8_t> bytes_;
};

inline CUptiResult mock_next_record(uint8_t* buffer, size_t valid, CUpti_Activity** record) {
  size_t offset;
  if (*record == nullptr) {
    offset = 0;
  } else {
    uint8_t* current = reinterpret_cast<uint8_t*>(*record);
    uint64_t size;
    std::memcpy(&size, current - 8, 8);
    offset = static_cast<size_t>(current - buffer) + ((size + 7) & ~uint64_t{7});
  }
  if (offset + 8 > valid) return CUPTI_ERROR_MAX_LIMIT_REACHED;
  auto* next = reinterpret_cast<CUpti_Activity*>(buffer + offset + 8);
  if (next->kind == CUPTI_ACTIVITY_KIND_INVALID) return CUPTI_ERROR_INVALID_KIND;
  *record = next;
  return CUPTI_SUCCESS;
}

// --- A minimal spool reader ---------------------------------------------------------------

struct ReadRecord {
  spool::RecordKind kind;
  std::vector<uint8_t> body;
  template <class T>
  T as() const {
    if (body.size() != sizeof(T)) throw std::runtime_error("record body has the wrong size");
    T out;
    std::memcpy(&out, body.data(), sizeof(T));
    return out;
  }
};

struct ReadSpool {
  bool header_ok = false;
  spool::FileHeader header{};
  size_t chunks = 0;
  bool truncated = false;  // trailing bytes that are not a whole valid chunk
  bool bad_crc = false;
  bool has_end = false;
  std::map<uint32_t, std::string> strings;
  std::map<uint32_t, std::string> texts;  // by TextKey
  std::vector<ReadRecord> records;        // everything but String/Text, in file order
  uint64_t total_records = 0;             // all records incl. String/Text/End

  std::vector<ReadRecord> of(spool::RecordKind kind) const {
    std::vector<ReadRecord> out;
    for (const ReadRecord& r : records)
      if (r.kind == kind) out.push_back(r);
    return out;
  }
};

inline std::vector<uint8_t> read_file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

inline ReadSpool read_spool_bytes(const std::vector<uint8_t>& bytes) {
  ReadSpool out;
  if (bytes.size() < sizeof(spool::FileHeader)) return out;
  std::memcpy(&out.header, bytes.data(), sizeof(out.header));
  if (std::memcmp(out.header.magic, spool::kFileMagic, 8) != 0 || out.header.version != spool::kVersion) return out;
  out.header_ok = true;
  size_t pos = out.header.header_bytes;
  while (pos < bytes.size()) {
    spool::ChunkHeader chunk;
    if (bytes.size() - pos < sizeof(chunk)) {
      out.truncated = true;
      break;
    }
    std::memcpy(&chunk, bytes.data() + pos, sizeof(chunk));
    if (chunk.magic != spool::kChunkMagic || chunk.payload_bytes > spool::kMaxChunkPayload ||
        bytes.size() - pos - sizeof(chunk) < chunk.payload_bytes) {
      out.truncated = true;
      break;
    }
    const uint8_t* payload = bytes.data() + pos + sizeof(chunk);
    if (crc32(payload, chunk.payload_bytes) != chunk.crc32) {
      out.bad_crc = true;
      break;
    }
    // The records of this chunk (the format's own chunk reader).
    spool::ChunkReader reader;
    reader.start(payload, chunk.payload_bytes);
    spool::RecordView record{};
    uint32_t count = 0;
    while (reader.next(record)) {
      const auto* body = reinterpret_cast<const uint8_t*>(record.body);
      if (record.kind == spool::RecordKind::String || record.kind == spool::RecordKind::Text) {
        spool::StringDef def;
        std::memcpy(&def, body, sizeof(def));
        if (sizeof(def) + def.length != record.bytes) throw std::runtime_error("string length mismatch");
        std::string text(record.body + sizeof(def), def.length);
        (record.kind == spool::RecordKind::String ? out.strings : out.texts)[def.id] = text;
      } else {
        if (record.kind == spool::RecordKind::End) out.has_end = true;
        out.records.push_back({record.kind, std::vector<uint8_t>(body, body + record.bytes)});
      }
      ++count;
    }
    if (reader.damaged()) throw std::runtime_error("a record crosses the chunk end or does not unpack");
    if (count != chunk.record_count) throw std::runtime_error("record_count mismatch");
    out.total_records += count;
    ++out.chunks;
    pos += sizeof(chunk) + chunk.payload_bytes;
  }
  return out;
}

inline ReadSpool read_spool(const std::string& path) { return read_spool_bytes(read_file_bytes(path)); }

// A fresh scratch directory per test (named after the pid, suite and test) that is
// removed afterwards; path_ is a spool path in it, named as the injection names them.
class SpoolDirTest : public ::testing::Test {
 protected:
  explicit SpoolDirTest(std::string spool_name) : spool_name_(std::move(spool_name)) {}
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::temp_directory_path() /
           ("gpuscope_capture_test_" + std::to_string(::getpid()) + "_" + info->test_suite_name() + "_" + info->name());
    std::filesystem::create_directories(dir_);
    path_ = (dir_ / spool_name_).string();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string spool_name_;
  std::filesystem::path dir_;
  std::string path_;
};

}  // namespace gpuscope::capture::test

// Damaged packed chunks: whatever the bytes, the chunk reader stops with damaged()
// and the importer drops that chunk and what follows, as after a CRC failure. Never a read past
// the payload (the ASan stage runs these), never a hang.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "importers/spool/record_decoder.h"
#include "importers/spool/spool_importer.h"
#include "spool/chunk_reader.h"
#include "spool/packing.h"
#include "spool_builder.h"

namespace gpuscope {
namespace {

using spool::RecordKind;
using testing::SpoolBuilder;

spool::KernelRecord stream7_kernel(int64_t start, uint32_t correlation) {
  spool::KernelRecord k{};
  k.start_ns = start;
  k.end_ns = start + 1500;
  k.stream = 7;
  k.name = 1;
  k.grid[0] = 64;
  k.block[0] = 128;
  k.correlation_id = correlation;
  return k;
}

// A packed chunk of every shape of record: a String, a Text, kernels (first: every field; then
// deltas), an API call, an End. `ends` gets the offset after each record.
std::vector<char> packed_chunk(std::vector<size_t>& ends) {
  spool::ChunkPacker packer;
  std::vector<char> out(4096);
  auto* base = reinterpret_cast<uint8_t*>(out.data());
  uint8_t* at = spool::ChunkPacker::pack_string(RecordKind::String, 1, "_Z4gemmPf", base);
  ends.push_back(static_cast<size_t>(at - base));
  at = spool::ChunkPacker::pack_string(RecordKind::Text, 1, "./train --epochs 1", at);
  ends.push_back(static_cast<size_t>(at - base));
  auto add = [&](RecordKind kind, const auto& r) {
    at = packer.pack(kind, *spool::layout_of(kind), &r, at);
    ends.push_back(static_cast<size_t>(at - base));
  };
  for (uint32_t i = 0; i < 3; ++i) add(RecordKind::Kernel, stream7_kernel(2'000'000 + 5000 * i, 10 + i));
  add(RecordKind::Api, spool::ApiRecord{1'999'000, 2'001'000, 4242, 211, 1, -1, 10, 0, {}});
  add(RecordKind::End, spool::EndRecord{9'000'000, 6, 0});
  out.resize(ends.back());
  return out;
}

bool decodes(const std::vector<char>& payload, uint32_t records) {
  Trace trace;
  spool::RecordDecoder decoder(trace, 1, 0, 0);
  return decoder.decode_chunk(payload, records);
}

TEST(SpoolPackedDamage, EveryCutOfAChunkIsDamagedOrShort) {
  std::vector<size_t> ends;
  const std::vector<char> chunk = packed_chunk(ends);
  const auto records = static_cast<uint32_t>(ends.size());
  ASSERT_TRUE(decodes(chunk, records));
  for (size_t cut = 0; cut < chunk.size(); ++cut) {
    const std::vector<char> prefix(chunk.begin(), chunk.begin() + static_cast<std::ptrdiff_t>(cut));
    EXPECT_FALSE(decodes(prefix, records)) << "cut at " << cut;
    // The reader itself: damaged unless the cut falls between two records.
    spool::ChunkReader reader;
    reader.start(prefix.data(), prefix.size());
    spool::RecordView r{};
    size_t read = 0;
    while (reader.next(r)) ++read;
    const bool on_boundary = cut == 0 || std::find(ends.begin(), ends.end(), cut) != ends.end();
    EXPECT_EQ(reader.damaged(), !on_boundary) << "cut at " << cut;
    if (on_boundary) {
      EXPECT_EQ(read == 0 ? 0 : ends[read - 1], cut);
    }
  }
}

// Bytes that no packer writes: each ends the walk as damaged.
TEST(SpoolPackedDamage, ImpossibleRecordsAreDamaged) {
  const uint8_t kernel = static_cast<uint8_t>(RecordKind::Kernel);
  const uint8_t memcpy_kind = static_cast<uint8_t>(RecordKind::Memcpy);
  const uint8_t text = static_cast<uint8_t>(RecordKind::Text);
  const std::vector<std::vector<uint8_t>> cases = {
      {0x00},                                                                      // no kind
      {20},                                                                        // past the last kind
      {0xFF, 0x00},                                                                // not a kind
      {kernel, 0x80, 0x80, 0x80, 0x80, 0x01},                                      // mask bit 28: Kernel has 22 fields
      {kernel, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01},  // a varint over 10 bytes
      {kernel, 0x04, 0x80, 0x80, 0x80, 0x80, 0x20},                                // correlation_id (u32) set to 2^33
      {memcpy_kind, 0x20, 0x80, 0x04},                                             // copy_kind (u8) set to 256
      {text, 0x01, 0x05, 'a', 'b'},                                                // 5 text bytes announced, 2 there
      {text, 0x80, 0x80, 0x80, 0x80, 0x10, 0x00},                                  // id 2^32
  };
  for (const auto& bytes : cases) {
    spool::ChunkReader reader;
    reader.start(bytes.data(), bytes.size());
    spool::RecordView r{};
    EXPECT_FALSE(reader.next(r)) << int(bytes[0]) << " of " << bytes.size() << " bytes";
    EXPECT_TRUE(reader.damaged());
  }
}

// In a whole spool: the chunks before the damaged one are kept, the spool is truncated.
TEST(SpoolPackedDamage, ADamagedChunkEndsTheReadablePart) {
  const std::string dir = testing::scratch_dir("spool_packed_damage");
  SpoolBuilder b(600, 1, 1000);
  b.string(1, "gemm").record(RecordKind::Kernel, stream7_kernel(2000, 10)).flush();
  b.raw({static_cast<uint8_t>(RecordKind::Kernel), 0x80, 0x80, 0x80, 0x80, 0x01});
  b.end(5000);
  b.write(dir + "/d.600.spool");
  Trace t;
  const SpoolImportResult r = import_spool(dir + "/d.600.spool", t);
  EXPECT_TRUE(r.truncated);
  EXPECT_GT(r.bytes_discarded, 0u);
  EXPECT_EQ(t.kernels.size(), 1u);
}

}  // namespace
}  // namespace gpuscope

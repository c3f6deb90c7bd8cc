// The packed spool (src/spool/packing.h, chunk_reader.h): every record kind comes back
// byte for byte (pads zero), whatever its values, and damaged packed bytes end the walk instead
// of being read past. Damage: spool_packed_damage_test.cpp.
#include <gtest/gtest.h>

#include <climits>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "spool/chunk_reader.h"
#include "spool/packing.h"
#include "spool/varint.h"

namespace gpuscope::spool {
namespace {

// One kind's struct as raw bytes, and where its pads are (never written, unpacked as zeros).
struct Sample {
  RecordKind kind;
  std::vector<uint8_t> bytes;
};

struct Pad {
  RecordKind kind;
  size_t offset, size;
};
#define GS_PAD(Rec, kind) \
  Pad { RecordKind::kind, offsetof(Rec, pad), sizeof(Rec::pad) }
const Pad kPads[] = {GS_PAD(ProcessRecord, Process),
                     GS_PAD(DeviceRecord, Device),
                     GS_PAD(ApiRecord, Api),
                     GS_PAD(KernelRecord, Kernel),
                     GS_PAD(MemsetRecord, Memset),
                     GS_PAD(MemoryRecord, Memory),
                     GS_PAD(SyncRecord, Sync),
                     GS_PAD(MarkerRecord, Marker),
                     GS_PAD(OverheadRecord, Overhead),
                     GS_PAD(ApiCountRecord, ApiCount),
                     GS_PAD(MetricCollectionRecord, MetricCollection),
                     GS_PAD(CommCallRecord, CommCall),
                     GS_PAD(StreamRecord, Stream),
                     GS_PAD(PcSampleRecord, PcSample),
                     GS_PAD(PcSamplingRecord, PcSampling)};
#undef GS_PAD

std::vector<RecordKind> fixed_kinds() {
  std::vector<RecordKind> kinds;
  for (uint32_t k = 0; k < 256; ++k)
    if (layout_of(k)) kinds.push_back(static_cast<RecordKind>(k));
  return kinds;
}

void zero_pads(Sample& s) {
  for (const Pad& p : kPads)
    if (p.kind == s.kind) std::memset(s.bytes.data() + p.offset, 0, p.size);
}

// Packs the samples as one chunk; `ends` gets the offset after each record.
std::vector<uint8_t> pack_chunk(const std::vector<Sample>& samples, std::vector<size_t>* ends = nullptr) {
  ChunkPacker packer;
  std::vector<uint8_t> out(samples.size() * kMaxPackedRecordBytes);
  uint8_t* at = out.data();
  for (const Sample& s : samples) {
    const Layout* layout = layout_of(s.kind);
    at = packer.pack(s.kind, *layout, s.bytes.data(), at);
    if (ends) ends->push_back(static_cast<size_t>(at - out.data()));
  }
  out.resize(static_cast<size_t>(at - out.data()));
  return out;
}

// Reads a chunk back; false if the reader reported damage.
bool unpack_chunk(const std::vector<uint8_t>& chunk, std::vector<Sample>& out) {
  ChunkReader reader;
  reader.start(chunk.data(), chunk.size());
  RecordView r{};
  while (reader.next(r)) out.push_back({r.kind, std::vector<uint8_t>(r.body, r.body + r.bytes)});
  return !reader.damaged();
}

void expect_round_trip(std::vector<Sample> samples) {
  for (Sample& s : samples) zero_pads(s);
  std::vector<Sample> back;
  ASSERT_TRUE(unpack_chunk(pack_chunk(samples), back));
  ASSERT_EQ(back.size(), samples.size());
  for (size_t i = 0; i < samples.size(); ++i) {
    EXPECT_EQ(back[i].kind, samples[i].kind) << i;
    EXPECT_EQ(back[i].bytes, samples[i].bytes) << "record " << i << ", kind " << int(samples[i].kind);
  }
}

Sample filled(RecordKind kind, uint8_t byte) { return {kind, std::vector<uint8_t>(layout_of(kind)->size, byte)}; }

// Every field of every kind at 64-bit extremes: INT64_MIN/MAX times make end - start wrap.
Sample extreme(RecordKind kind, bool high) {
  Sample s = filled(kind, 0);
  for (unsigned i = 0; i < layout_of(kind)->count; ++i) {
    const Field& f = layout_of(kind)->fields[i];
    uint64_t v = f.width == 8 ? (high ? uint64_t(INT64_MAX) : uint64_t(INT64_MIN))
                              : (high ? ~uint64_t(0) >> (64 - 8 * f.width) : 0);
    std::memcpy(s.bytes.data() + f.offset, &v, f.width);
  }
  return s;
}

TEST(SpoolPacking, EveryKindRoundTripsWithAnyValues) {
  std::mt19937_64 random(16);
  for (RecordKind kind : fixed_kinds()) {
    std::vector<Sample> samples;
    samples.push_back(filled(kind, 0));     // all zeros: an empty mask
    samples.push_back(filled(kind, 0xFF));  // every field changed, -1 in the signed ones
    samples.push_back(filled(kind, 0xFF));  // unchanged
    samples.push_back(extreme(kind, false));
    samples.push_back(extreme(kind, true));
    samples.push_back(extreme(kind, false));  // the largest negative deltas
    for (int i = 0; i < 50; ++i) {
      Sample s = filled(kind, 0);
      for (uint8_t& b : s.bytes) b = static_cast<uint8_t>(random());
      samples.push_back(s);
    }
    SCOPED_TRACE(int(kind));
    expect_round_trip(samples);
  }
}

TEST(SpoolPacking, KindsInterleaveEachAgainstItsOwnPrevious) {
  std::vector<Sample> samples;
  for (int i = 0; i < 3; ++i)
    for (RecordKind kind : fixed_kinds()) samples.push_back(i == 1 ? extreme(kind, true) : filled(kind, uint8_t(i)));
  expect_round_trip(samples);
}

TEST(SpoolPacking, ARepeatedLaunchCostsOnlyWhatChanged) {
  KernelRecord k{};
  k.start_ns = 1'700'000'000'000'000'000;
  k.end_ns = k.start_ns + 40'000;
  k.stream = 7, k.name = 12, k.correlation_id = 1000;
  k.grid[0] = 1024, k.block[0] = 256, k.registers_per_thread = 64;
  ChunkPacker packer;
  uint8_t out[kMaxPackedRecordBytes];
  const Layout& layout = *layout_of(RecordKind::Kernel);
  packer.pack(RecordKind::Kernel, layout, &k, out);
  k.start_ns += 50'000, k.end_ns += 50'000, k.correlation_id += 3;
  // kind, mask, start delta (3 bytes), correlation delta; the duration is the same.
  EXPECT_EQ(packer.pack(RecordKind::Kernel, layout, &k, out) - out, 6);
  packer.reset();  // a new chunk starts from zeros
  EXPECT_GT(packer.pack(RecordKind::Kernel, layout, &k, out) - out, 20);
}

TEST(SpoolPacking, StringsRoundTripEmptyAndLong) {
  const std::string texts[] = {"", "x", std::string(1u << 20, 'y')};
  for (const std::string& text : texts) {
    std::vector<uint8_t> chunk(kMaxPackedStringHead + text.size());
    chunk.resize(
        static_cast<size_t>(ChunkPacker::pack_string(RecordKind::Text, UINT32_MAX, text, chunk.data()) - chunk.data()));
    ChunkReader reader;
    reader.start(chunk.data(), chunk.size());
    RecordView r{};
    ASSERT_TRUE(reader.next(r));
    EXPECT_EQ(r.kind, RecordKind::Text);
    StringDef def{};
    ASSERT_EQ(r.bytes, sizeof def + text.size());
    std::memcpy(&def, r.body, sizeof def);
    EXPECT_EQ(def.id, UINT32_MAX);
    EXPECT_EQ(def.length, text.size());
    EXPECT_EQ(std::string(r.body + sizeof def, def.length), text);
    EXPECT_FALSE(reader.next(r));
    EXPECT_FALSE(reader.damaged());
  }
}

TEST(SpoolPacking, VarintsRoundTripAndRefuseOverlongOrCutOnes) {
  for (uint64_t v : {uint64_t(0), uint64_t(127), uint64_t(128), uint64_t(INT64_MAX), ~uint64_t(0)}) {
    uint8_t bytes[kMaxVarintBytes];
    const uint8_t* end = put_varint(bytes, v);
    const uint8_t* in = bytes;
    uint64_t back = 1;
    ASSERT_TRUE(get_varint(in, end, back));
    EXPECT_EQ(back, v);
    EXPECT_EQ(in, end);
    for (const uint8_t* cut = bytes; cut < end; ++cut) {
      in = bytes;
      EXPECT_FALSE(get_varint(in, cut, back)) << v;
    }
  }
  const uint8_t too_long[11] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
  const uint8_t* in = too_long;
  uint64_t v = 0;
  EXPECT_FALSE(get_varint(in, too_long + 11, v));
  const uint8_t over_64_bits[10] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02};
  in = over_64_bits;
  EXPECT_FALSE(get_varint(in, over_64_bits + 10, v));
  for (int64_t d : {int64_t(0), int64_t(-1), int64_t(1), INT64_MIN, INT64_MAX})
    EXPECT_EQ(static_cast<int64_t>(unzigzag(zigzag(static_cast<uint64_t>(d)))), d);
}

}  // namespace
}  // namespace gpuscope::spool

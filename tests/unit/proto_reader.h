// A minimal protobuf decoder for the Perfetto export tests, written from the wire-format
// spec (https://protobuf.dev/programming-guides/encoding/), independent of the encoder in
// src/export/proto_writer.h so a mistake there is not mirrored here.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace gpuscope::testing {

struct ProtoField {
  uint32_t number = 0;
  uint32_t wire_type = 0;  // 0 varint, 1 fixed64, 2 length-delimited
  uint64_t value = 0;      // varint and fixed64
  std::string_view bytes;  // length-delimited
};

// Every field of one message, in order. Throws std::runtime_error on malformed input.
inline std::vector<ProtoField> decode_proto(std::string_view data) {
  size_t pos = 0;
  const auto varint = [&]() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos >= data.size()) throw std::runtime_error("truncated varint");
      const uint8_t b = static_cast<uint8_t>(data[pos++]);
      v |= uint64_t(b & 0x7F) << shift;
      if (!(b & 0x80)) return v;
    }
    throw std::runtime_error("varint longer than 10 bytes");
  };
  std::vector<ProtoField> fields;
  while (pos < data.size()) {
    const uint64_t key = varint();
    ProtoField f;
    f.number = static_cast<uint32_t>(key >> 3);
    f.wire_type = static_cast<uint32_t>(key & 7);
    if (f.number == 0) throw std::runtime_error("field number 0");
    if (f.wire_type == 0) {
      f.value = varint();
    } else if (f.wire_type == 1) {
      if (pos + 8 > data.size()) throw std::runtime_error("truncated fixed64");
      for (int i = 0; i < 8; ++i) f.value |= uint64_t(static_cast<uint8_t>(data[pos + i])) << (8 * i);
      pos += 8;
    } else if (f.wire_type == 2) {
      const uint64_t n = varint();
      if (n > data.size() - pos) throw std::runtime_error("length past the end");
      f.bytes = data.substr(pos, n);
      pos += n;
    } else {
      throw std::runtime_error("unexpected wire type " + std::to_string(f.wire_type));
    }
    fields.push_back(f);
  }
  return fields;
}

// The first field `number` of a message, or nullptr.
inline const ProtoField* find_field(const std::vector<ProtoField>& fields, uint32_t number) {
  for (const ProtoField& f : fields)
    if (f.number == number) return &f;
  return nullptr;
}

}  // namespace gpuscope::testing

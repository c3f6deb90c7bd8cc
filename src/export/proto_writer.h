// A small protobuf encoder: the part of the wire format the Perfetto export needs
// (https://protobuf.dev/programming-guides/encoding/): varints, fixed64 and double fields, and
// length-delimited fields (strings, bytes, nested messages).
//
// Why our own: no protobuf library to link or ship to the GPU hosts and nothing to generate at
// build time; Debian's libprotobuf would add a heavy dependency and a protoc step for the dozen
// fields we write. docs/export.md, "Encoding".
//
// A message is built bottom-up: a nested message is encoded first, so its length is known when
// the parent appends it. Perfetto's packets are small (tens of bytes), so each is built whole
// and then written; the trace itself streams. Buffers are reused (clear() keeps capacity).
#pragma once

#include <cstdint>
#include <cstring>
#include <ostream>
#include <string>
#include <string_view>

namespace gpuscope::exporting {

class ProtoMessage {
 public:
  // Wire type 0: uint32/64, enums, bools, and int64 (a negative one takes 10 bytes, as in
  // protobuf; we write none).
  ProtoMessage& varint(uint32_t field, uint64_t value) {
    tag(field, 0);
    put_varint(data_, value);
    return *this;
  }
  ProtoMessage& fixed64(uint32_t field, uint64_t value) {  // wire type 1, little-endian
    tag(field, 1);
    for (int i = 0; i < 8; ++i) data_.push_back(static_cast<char>(value >> (8 * i)));
    return *this;
  }
  ProtoMessage& double_value(uint32_t field, double value) {  // wire type 1, IEEE 754
    uint64_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    return fixed64(field, bits);
  }
  ProtoMessage& bytes(uint32_t field, std::string_view value) {  // wire type 2
    tag(field, 2);
    put_varint(data_, value.size());
    data_.append(value);
    return *this;
  }
  ProtoMessage& message(uint32_t field, const ProtoMessage& nested) { return bytes(field, nested.data_); }

  const std::string& data() const { return data_; }
  bool empty() const { return data_.empty(); }
  void clear() { data_.clear(); }

  // Writes `message` as length-delimited field `field` straight to `out` (no copy).
  static void write_field(std::ostream& out, uint32_t field, const ProtoMessage& message) {
    std::string header;
    put_varint(header, (uint64_t(field) << 3) | 2);
    put_varint(header, message.data_.size());
    out.write(header.data(), static_cast<std::streamsize>(header.size()));
    out.write(message.data_.data(), static_cast<std::streamsize>(message.data_.size()));
  }

 private:
  void tag(uint32_t field, uint8_t wire_type) { put_varint(data_, (uint64_t(field) << 3) | wire_type); }

  // Base 128, least significant group first, high bit set on every byte but the last.
  static void put_varint(std::string& to, uint64_t value) {
    while (value >= 0x80) {
      to.push_back(static_cast<char>((value & 0x7F) | 0x80));
      value >>= 7;
    }
    to.push_back(static_cast<char>(value));
  }

  std::string data_;
};

}  // namespace gpuscope::exporting

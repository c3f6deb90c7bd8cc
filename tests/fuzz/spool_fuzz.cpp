// The spool importer (src/importers/spool): chunk framing, record decoding and the import. Every
// chunk carries a CRC-32 of its payload and a chunk that fails it ends the readable part, so
// almost every mutation would stop at the CRC check; the target writes each chunk's correct CRC
// first, so mutated records reach the decoder. (A wrong CRC is fuzzed by the import target.)
#include <cstring>
#include <string>

#include "common/crc32.h"
#include "fuzz_target.h"
#include "spool/format.h"

namespace {

// Walks the chunks as import_spool does and rewrites their CRCs; stops where the framing breaks.
void fix_chunk_crcs(std::string& bytes) {
  gpuscope::spool::FileHeader header;
  if (bytes.size() < sizeof header) return;
  std::memcpy(&header, bytes.data(), sizeof header);
  size_t at = header.header_bytes;
  gpuscope::spool::ChunkHeader chunk;
  while (at >= sizeof header && at + sizeof chunk <= bytes.size()) {
    std::memcpy(&chunk, bytes.data() + at, sizeof chunk);
    const size_t payload = at + sizeof chunk;
    if (chunk.magic != gpuscope::spool::kChunkMagic || chunk.payload_bytes > bytes.size() - payload) return;
    chunk.crc32 = gpuscope::crc32(bytes.data() + payload, chunk.payload_bytes);
    std::memcpy(bytes.data() + at, &chunk, sizeof chunk);
    at = payload + chunk.payload_bytes;
  }
}

}  // namespace

void gpuscope::fuzz::fuzz_one(std::string_view bytes) {
  std::string fixed(bytes);
  fix_chunk_crcs(fixed);
  analyse_everything(read_as("spool", fixed));
}

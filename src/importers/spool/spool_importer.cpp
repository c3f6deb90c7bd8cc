#include "importers/spool/spool_importer.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include "common/crc32.h"
#include "common/error.h"
#include "common/older_formats.h"
#include "importers/finalize.h"
#include "importers/spool/record_decoder.h"
#include "spool/format.h"

namespace gpuscope {

namespace {

spool::FileHeader read_file_header(std::ifstream& in, const std::string& path) {
  spool::FileHeader header{};
  in.read(reinterpret_cast<char*>(&header), sizeof header);
  if (static_cast<size_t>(in.gcount()) < sizeof spool::kFileMagic ||
      std::memcmp(header.magic, spool::kFileMagic, sizeof spool::kFileMagic) != 0)
    throw Error(path + ": not a gpuscope spool file");
  if (static_cast<size_t>(in.gcount()) < sizeof header)
    throw Error(path + ": the spool is cut short inside its header; nothing was captured");
  if (header.version == 0) throw Error(path + ": corrupt spool header (format version 0)");
  const std::string version = "spool format v" + std::to_string(header.version) + "; this one reads only v" +
                              std::to_string(spool::kVersion);
  if (header.version < spool::kVersion)
    throw Error(path + ": this spool was written by an older gpuscope (" + version + "): import it with " +
                older_reader_of(static_cast<int>(header.version), true));
  if (header.version > spool::kVersion)
    throw Error(path + ": this spool was written by a newer gpuscope (" + version + "); upgrade gpuscope");
  if (header.header_bytes < sizeof header) throw Error(path + ": corrupt spool header");
  in.seekg(header.header_bytes);
  return header;
}

// Reads the next chunk's payload; false at a clean end of file or at the first
// damaged chunk (short, bad magic, bad CRC), which ends the readable part.
enum class ChunkStatus { Ok, EndOfFile, Damaged };

ChunkStatus read_chunk(std::ifstream& in, std::vector<char>& payload, uint32_t& record_count) {
  spool::ChunkHeader chunk{};
  in.read(reinterpret_cast<char*>(&chunk), sizeof chunk);
  if (in.gcount() == 0) return ChunkStatus::EndOfFile;
  if (static_cast<size_t>(in.gcount()) < sizeof chunk || chunk.magic != spool::kChunkMagic ||
      chunk.payload_bytes > spool::kMaxChunkPayload)
    return ChunkStatus::Damaged;
  payload.resize(chunk.payload_bytes);
  in.read(payload.data(), chunk.payload_bytes);
  if (static_cast<size_t>(in.gcount()) < chunk.payload_bytes) return ChunkStatus::Damaged;
  if (crc32(payload.data(), payload.size()) != chunk.crc32) return ChunkStatus::Damaged;
  record_count = chunk.record_count;
  return ChunkStatus::Ok;
}

// How many records the spool's chunks say they hold, from their headers alone (payloads are
// skipped, not read). Each record takes at least a byte, so a header cannot claim more records
// than its payload has bytes: the count is bounded by the file's size. Reading stops at the first
// header that is not one; the decoding pass finds what is wrong there.
uint64_t records_announced(std::ifstream& in, uint64_t file_bytes) {
  const std::streampos first_chunk = in.tellg();
  uint64_t records = 0;
  spool::ChunkHeader chunk{};
  while (in.read(reinterpret_cast<char*>(&chunk), sizeof chunk) && chunk.magic == spool::kChunkMagic &&
         chunk.payload_bytes <= spool::kMaxChunkPayload) {
    records += std::min<uint64_t>(chunk.record_count, chunk.payload_bytes);
    const std::streamoff next = in.tellg() + static_cast<std::streamoff>(chunk.payload_bytes);
    if (static_cast<uint64_t>(next) > file_bytes) break;
    in.seekg(next);
  }
  in.clear();
  in.seekg(first_chunk);
  return records;
}

}  // namespace

SpoolImportResult import_spool(const std::string& path, Trace& trace) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open the spool");
  const spool::FileHeader header = read_file_header(in, path);
  std::error_code ec;
  const uint64_t file_bytes = std::filesystem::file_size(path, ec);

  // Launches are a kernel and an API record each, nearly all of a big spool: room for half the
  // records in each, so the two vectors grow at most once instead of doubling about twenty times
  // (each doubling copies the vector and faults in fresh pages: a fifth of a 2M-record import on
  // the 2-core development machine, docs/performance.md).
  if (!ec) {
    const uint64_t half = records_announced(in, file_bytes) / 2;
    try {
      trace.kernels.reserve(trace.kernels.size() + half);
      trace.api_calls.reserve(trace.api_calls.size() + half);
    } catch (const std::exception&) {
      // Only a hint (a hostile file can announce more than memory holds): decoding grows the
      // vectors as the records really come.
    }
  }
  spool::RecordDecoder decoder(trace, header.pid, header.parent_pid, header.created_ns);
  SpoolImportResult result;
  result.pid = header.pid;
  std::vector<char> payload;
  uint64_t good_bytes = header.header_bytes;
  for (;;) {
    uint32_t record_count = 0;
    const ChunkStatus status = read_chunk(in, payload, record_count);
    if (status == ChunkStatus::EndOfFile) break;
    if (status == ChunkStatus::Damaged || !decoder.decode_chunk(payload, record_count)) {
      result.bytes_discarded = ec ? 0 : file_bytes - good_bytes;
      break;
    }
    good_bytes += sizeof(spool::ChunkHeader) + payload.size();
  }
  result.records = decoder.records();
  result.truncated = !decoder.saw_end();
  decoder.finish(result.bytes_discarded);
  return result;
}

Trace import_spool(const std::string& path) {
  Trace trace;
  import_spool(path, trace);
  finalize_trace(trace);
  return trace;
}

}  // namespace gpuscope

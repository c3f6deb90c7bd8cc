// Turns the records of one process's spool into trace-model events.
// Owns the per-process state: the spool's string ids (translated into the
// trace's string table), NVTX ranges still open and the latest metric-collection
// status per kind. Metric records are decoded in metric_records.cpp.
#pragma once

#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "gpuscope/model.h"
#include "importers/spool/pc_samples.h"
#include "spool/chunk_reader.h"
#include "spool/format.h"

namespace gpuscope::spool {

// Copies a fixed-size record body; false when the size does not match the layout.
template <class Body>
bool read_body(const char* bytes, uint32_t size, Body& out) {
  if (size != sizeof(Body)) return false;
  std::memcpy(&out, bytes, sizeof(Body));
  return true;
}

class RecordDecoder {
 public:
  RecordDecoder(Trace& trace, uint32_t pid, uint32_t parent_pid, int64_t created_ns);

  // Decodes one CRC-checked chunk payload (packed records, spool/chunk_reader.h). False if the
  // records inside do not unpack correctly (the chunk and everything after it are then discarded).
  bool decode_chunk(const std::vector<char>& payload, uint32_t record_count);

  // Adds the process row, closes ranges left open and records what was lost.
  void finish(uint64_t bytes_discarded);

  uint64_t records() const { return records_; }
  bool saw_end() const { return saw_end_; }

 private:
  bool decode_record(RecordKind kind, const char* body, uint32_t bytes);
  bool decode_metric_record(RecordKind kind, const char* body, uint32_t bytes);
  void finish_metrics();
  bool define_string(const char* body, uint32_t bytes, bool is_text);
  StringId string(uint32_t spool_id);
  StringId demangled(StringId mangled);
  void on_marker(const MarkerRecord& marker);
  NvtxKind close_on_thread(uint64_t id, uint32_t start_tid, uint32_t end_tid);
  void seen(int64_t timestamp_ns);

  struct OpenRange {
    NvtxRange range;
  };

  Trace& trace_;
  Process process_;
  ChunkReader reader_;  // kept between chunks: it reuses its buffer for strings
  std::unordered_map<uint32_t, StringId> strings_;
  std::unordered_map<uint64_t, OpenRange> open_ranges_;
  std::unordered_map<uint32_t, std::vector<uint64_t>> thread_stacks_;  // tid -> open range ids
  std::unordered_map<StringId, StringId> demangled_;                   // mangled name -> demangled name
  // "kernel" / "sampling" -> the last status record seen: the writer sends one when
  // collection starts and an updated one at the end, so a crash leaves the first.
  std::map<std::string, MetricCollection> collections_;
  std::vector<CommCallRecord> comm_calls_;    // linked to their kernels at the end (comm_calls.h)
  std::vector<GraphNodeRecord> graph_nodes_;  // resolved at the end (graph_nodes.h)
  std::vector<HostOp> torch_ops_;             // their CUDA calls are linked at the end
  PcSampleCollector pc_samples_;              // summed and written at the end
  StringId cpu_op_ = 0;                       // "cpu_op", interned at the first op
  uint64_t records_ = 0;
  uint64_t unknown_string_refs_ = 0;
  uint64_t unmatched_range_ends_ = 0;
  uint64_t non_finite_metrics_ = 0;
  bool saw_end_ = false;
  bool saw_status_ = false;
  int64_t last_seen_ns_ = 0;
};

}  // namespace gpuscope::spool

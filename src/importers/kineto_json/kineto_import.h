// The parts of the torch.profiler (Kineto) / Chrome JSON importer (kineto_json.h): the file
// streams (json_stream.h) event by event into a Trace. What maps to what, and what a Kineto
// trace lacks, is in docs/import.md.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpuscope/model.h"
#include "gpuscope/torch_annotations.h"
#include "importers/kineto_json/kineto_event.h"
#include "importers/kineto_json/kineto_json.h"

namespace gpuscope::kineto {

// State of one import: events are mapped as they stream past (kineto_mapping.cpp); what needs
// the whole file (the time base, which process launched the GPU work, gaps) is done at the
// end (kineto_finish.cpp).
class TraceImport {
 public:
  TraceImport(std::string path, Trace& trace) : path_(std::move(path)), trace_(trace) {}
  void read();

 private:
  void read_top_level(JsonStream& in);
  void read_events(JsonStream& in);
  void map(JsonStream& in, const Event& e);
  void complete_event(JsonStream& in, const Event& e);
  void kernel(JsonStream& in, const Event& e);
  void memcpy(JsonStream& in, const Event& e);
  void memset(JsonStream& in, const Event& e);
  void api_call(JsonStream& in, const Event& e);
  void host_op(JsonStream& in, const Event& e);
  void gpu_annotation(const Event& e);
  void synchronization(JsonStream& in, const Event& e);
  void memory_event(JsonStream& in, const Event& e);
  void metadata_event(const Event& e);
  uint32_t cpu_pid(JsonStream& in, const Event& e);  // records the process; 0 when not a real one
  void seen(TimeNs start, TimeNs end);

  void finish();
  uint32_t assign_owners();
  void apply_time_base();
  void add_processes();
  void add_devices(uint32_t owner);
  void check_flows();
  void add_gaps_and_run();

  std::string path_;
  Trace& trace_;

  // From the top-level object.
  bool has_base_ = false;
  int64_t base_ns_ = 0;
  bool has_events_ = false;
  bool kineto_ = false;  // Kineto's own keys or categories: torch.profiler wrote it
  std::string schema_version_, trace_name_;
  nlohmann::json device_properties_, distributed_info_;
  uint32_t cupti_version_ = 0, runtime_version_ = 0, driver_version_ = 0;
  int profile_memory_ = -1;  // the "profile_memory" flag when the trace states it

  // Gathered while streaming.
  std::map<uint32_t, std::string> process_names_;
  struct Span {
    TimeNs first = INT64_MAX, last = INT64_MIN;
  };
  std::map<uint32_t, Span> cpu_pids_;
  TimeNs first_ = INT64_MAX, last_ = INT64_MIN;              // over every mapped record, as written
  std::vector<std::pair<uint32_t, uint64_t>> gpu_external_;  // (correlation, External id) of GPU work
  std::vector<uint32_t> flow_ends_;                          // ac2g "f" ids
  std::map<std::string, uint64_t> skipped_;                  // events of categories not mapped
  uint64_t cpu_memory_events_ = 0, sync_events_ = 0, kernels_with_config_ = 0, copies_without_kinds_ = 0;
  uint64_t string_pid_events_ = 0;
};

}  // namespace gpuscope::kineto

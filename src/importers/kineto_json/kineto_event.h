// One trace event of a Chrome/Kineto JSON trace as the importer needs it: the common fields and
// the arguments Kineto writes (libkineto's output_json.cpp names them). Parsed in place from
// the stream, reusing one Event so strings keep their capacity across millions of events.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "importers/kineto_json/json_stream.h"

namespace gpuscope::kineto {

// An argument that is a number; `wrong_type` when the key was there with another JSON type
// (an error only if the event's category needs it).
struct NumArg {
  bool present = false;
  bool wrong_type = false;
  int64_t value = 0;
};

struct EventArgs {
  NumArg external_id;  // "External id": the framework op that launched it (Kineto's correlation of ops)
  NumArg correlation;  // "correlation": CUPTI's correlation id
  NumArg device, context, stream;
  NumArg registers;        // "registers per thread"
  NumArg shared_memory;    // "shared memory": static + dynamic bytes per block
  NumArg bytes;            // "bytes" of a copy or memset
  NumArg sequence_number;  // "Sequence number": autograd's forward/backward pairing
  NumArg cbid;
  NumArg mem_bytes;    // "Bytes" of a [memory] event: > 0 allocated, < 0 freed
  NumArg device_id;    // "Device Id" of a [memory] event: -1 for CPU memory
  NumArg device_type;  // "Device Type" of a [memory] event: 0 CPU, 1 CUDA
  NumArg rank;         // "Rank" (collectives)
  // A communication kernel's message (PyTorch's record_param_comms, copied onto the kernel):
  // element counts of one rank's input and output, their type and the communicator's size.
  NumArg in_nelems, out_nelems, group_size;
  std::string dtype;  // "dtype": c10's type name ("Float", "BFloat16", ...); empty when absent
  uint64_t addr = 0;  // "Addr" of a [memory] event
  int32_t grid[3] = {0, 0, 0}, block[3] = {0, 0, 0};
  bool has_grid = false, has_block = false;
  std::string input_dims;  // "Input Dims" as compact JSON; empty when absent
  std::string name;        // "name" of a metadata event (process_name, thread_name)
  bool has_name = false;

  void clear();
};

struct Event {
  std::string ph, cat, name;
  int64_t pid = 0, tid = 0;
  bool pid_is_number = false, tid_is_number = false;  // Kineto writes "Spans", "Traces", "" for its own rows
  int64_t ts = 0, dur = 0;  // ns, as written (relative to baseTimeNanoseconds when the trace has it)
  bool has_ts = false, has_dur = false;
  int64_t id = 0;  // flow id ("s"/"f" events)
  bool has_id = false;
  EventArgs args;
  uint64_t index = 0;  // position in traceEvents, for messages
};

// Reads the next event object (the stream is at its '{') into `event`.
void read_event(JsonStream& in, Event& event);

}  // namespace gpuscope::kineto

// The trace laid out as a timeline viewer shows it: lane groups (a process with its CPU
// threads, a GPU with its streams), tracks whose slices are packed into rows, flows from each
// launch call to the GPU work it started, CUDA graph replays as spans over their nodes, and
// counter tracks (memory in use, GPU-wide samples). One layout feeds the HTML timeline and both
// exports (Chrome JSON, Perfetto protobuf), so every viewer names and orders the lanes the same
// way.
//
// The layout refers back to the trace instead of copying it: a Slice's `source` indexes the
// trace vector of its kind, where a renderer finds every detail (grid, bytes, return code); a
// graph replay, which is no record of the trace, indexes Layout::graph_replays.
// The layout is only valid while that trace lives.
//
// Records without times (start <= 0, or end < start) never enter the layout: they are counted
// in Layout::untimed, so a viewer can say what it could not place.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpuscope/model.h"

namespace gpuscope::tracks {

enum class SliceKind : uint8_t {
  Kernel,      // source: trace.kernels
  Memcpy,      // source: trace.memcpys
  Memset,      // source: trace.memsets
  RuntimeApi,  // source: trace.api_calls
  DriverApi,   // source: trace.api_calls
  Nvtx,        // source: trace.nvtx_ranges
  Overhead,    // source: trace.overheads (CUPTI's and gpuscope's own time)
  GraphReplay  // source: Layout::graph_replays (one replay of a CUDA graph on one stream)
};
const char* to_string(SliceKind kind);  // "kernel", "memcpy", "memset", "cuda_runtime", ...

// One box on a track.
struct Slice {
  TimeNs start = 0, end = 0;  // capture clock, ns (as in the trace)
  uint32_t source = 0;        // index into the trace vector of `kind`
  uint32_t name = 0;          // index into Layout::names
  uint32_t row = 0;           // row within the track, 0 = top (see Track)
  SliceKind kind = SliceKind::Kernel;
};

// A point event: an NVTX mark.
struct Instant {
  TimeNs time = 0;
  uint32_t source = 0;  // index into trace.nvtx_marks
  uint32_t name = 0;    // index into Layout::names
};

enum class TrackKind : uint8_t {
  Thread,      // a CPU thread: CUDA API calls and NVTX push/pop ranges, nested
  Stream,      // a GPU stream: kernels, copies, memsets; a graph replay's span above its nodes
  NvtxRanges,  // a process's NVTX start/end ranges (they may cross threads and overlap)
  Overhead     // a process's profiler overhead (CUPTI buffer flushes, metric replay)
};

// Slices are sorted by start (then longer first). Rows: each slice sits in the lowest row
// whose previous slice has ended, so slices of one row never overlap. When every slice of a
// row > 0 lies inside a slice of the row above, `nests` is true and the rows are nesting
// depths (an API call inside an NVTX range sits one row below it): a viewer that nests slices
// itself (Chrome JSON) can put the whole track in one lane. Otherwise each row is its own lane.
struct Track {
  uint32_t group = 0;  // index into Layout::groups
  TrackKind kind = TrackKind::Thread;
  uint32_t tid = 0;     // Thread: the OS thread id
  uint32_t stream = 0;  // Stream: CUPTI's stream id
  std::string name;     // "thread 4711", "stream 7", "stream 13 (non-blocking, priority -3)"
  uint32_t rows = 0;
  bool nests = true;
  std::vector<Slice> slices;
  std::vector<Instant> marks;
};

// A step function: each point's value holds from its time until the next point, the last
// one until `end`.
struct CounterPoint {
  TimeNs time = 0;
  double value = 0;
};
struct Counter {
  uint32_t group = 0;  // the device group it belongs to
  std::string name;    // "Memory in use", or the metric's short title ("SM active")
  std::string key;     // stable: "memory_in_use", or the metric's full name
  std::string unit;    // "bytes" or "%"
  std::vector<CounterPoint> points;
  TimeNs end = 0;
};

enum class GroupKind : uint8_t { Process, Device };

// A process (its threads, NVTX ranges, overhead) or one GPU as one process saw it (its
// streams and counters). Groups are ordered: each process, then the devices it used.
struct Group {
  GroupKind kind = GroupKind::Process;
  uint32_t pid = 0;
  uint32_t device = 0;  // Device: the CUDA ordinal in that process
  uint32_t run_id = 0;  // bench run, 0 in a single capture
  int32_t rank = -1;    // the process's rank in a distributed job; -1: unknown (not launched as one)
  // "process 4711: ./bsr_spmm --iters 5", "GPU 0: NVIDIA H200 (process 4711)"; with a rank
  // "rank 1 · process 4711: python train.py", "GPU 1: NVIDIA H200 (rank 1, process 4711)"
  std::string name;
  std::vector<uint32_t> tracks;    // indices into Layout::tracks, in display order
  std::vector<uint32_t> counters;  // indices into Layout::counters
};

// One replay (launch) of a CUDA graph: the nodes (kernels, copies, memsets with a graph id) of
// one graph that carry one launch correlation id in one run and process (analysis_graphs.h).
// Timed nodes only. A replay gets one GraphReplay slice on each stream its nodes ran on, from
// that stream's first node start to its last node end, so the slice holds those nodes one row
// below it.
struct GraphReplay {
  uint32_t run_id = 0, pid = 0;
  uint32_t graph_id = 0;
  uint32_t correlation_id = 0;  // the launch call's (cudaGraphLaunch, cuGraphLaunch)
  uint32_t replay = 0;          // 1-based, by first node start among its graph's replays
  uint32_t replays = 0;         // of its graph in this run and process
  uint32_t nodes = 0;           // timed nodes, all streams
  TimeNs start = 0, end = 0;    // first node start to last node end, all streams
};

struct SliceRef {
  uint32_t track = 0;
  uint32_t slice = 0;  // index into that track's slices
};

// A launch call (from) and the GPU work it started (to), matched by process and
// correlation id.
struct Flow {
  SliceRef from, to;
  uint32_t correlation_id = 0;
};

struct Layout {
  TimeNs origin = 0;  // the time viewers show as 0: the run's start, or the first event
  TimeNs end = 0;     // the last event's end (or the run's end, if later)
  // Slice and mark names, each once: kernel names (demangled), API functions, NVTX names,
  // "memcpy HtoD", "memset". Index 0 is "".
  std::vector<std::string> names;
  std::vector<Group> groups;
  std::vector<Track> tracks;
  std::vector<Counter> counters;
  std::vector<Flow> flows;                 // sorted by `to`; GPU work only (a graph replay's flows go to its nodes)
  std::vector<GraphReplay> graph_replays;  // by run, pid, graph id, replay
  size_t slices = 0;                       // all slices of all tracks
  size_t untimed = 0;                      // records left out because they have no valid time
};

struct LayoutOptions {
  std::optional<uint32_t> run_id;  // only this bench run's records; nullopt: all
};

Layout layout_tracks(const Trace& trace, const LayoutOptions& options = {});

// The CUPTI correlation id of a slice's record (GPU work, API calls, a graph replay's launch),
// 0 for other kinds.
uint32_t correlation_of(const Trace& trace, const Layout& layout, const Slice& slice);

}  // namespace gpuscope::tracks

// scale_run(): a capture shaped like a data-parallel training run, sized by its record count, for
// the scale benchmark (bench/scale_bench.cpp). See synth.h for the shape.
//
// One host thread per device launches its step; a loader thread feeds every device. Threads are
// generated step by step in turn, each with its own clock, so the records come out nearly in time
// order as a real capture's do. Deterministic (splitmix64 seeded by the options, no clocks).
#include <algorithm>
#include <cstdio>

#include "common/sample_common.h"
#include "gpuscope/metric_sets.h"
#include "synth.h"

namespace gpuscope::synth {
namespace {

constexpr uint32_t kFirstPid = 5000;
constexpr uint32_t kLoaderTid = 100;  // added to the pid
constexpr uint32_t kFirstStream = 7;  // streams of a device: 7, 8, ... (CUPTI-like ids)
constexpr uint32_t kCopyStream = 3;   // the loader's stream on each device
constexpr uint32_t kNoStream = 0xFFFFFFFF;
constexpr TimeNs kRunStart = 1'795'800'000'000'000'000;  // CLOCK_REALTIME ns, late 2026
constexpr TimeNs kSampleWindowNs = 100'000'000;          // NVML GPM's ~100 ms window
constexpr uint32_t kKernelsPerLayer = 6;

// CUPTI runtime callback ids of the functions used.
enum Cbid : uint32_t {
  kMalloc = 20,
  kFree = 22,
  kMemcpy = 31,
  kMemcpyAsync = 41,
  kMemsetAsync = 51,
  kStreamSynchronize = 131,
  kEventRecord = 135,
  kStreamWaitEvent = 146,
  kDeviceSynchronize = 165,
  kLaunchKernel = 211
};

struct KernelName {
  StringId name, mangled;
  TimeNs ns;  // typical duration
  int32_t grid, block;
  uint32_t registers;
};

class ScaleWriter {
 public:
  ScaleWriter(Trace& t, const ScaleOptions& o) : t_(t), o_(o), rng_(o.seed) {
    // Hundreds of distinct kernels: a layer's kernels differ by layer, pass and operator.
    for (uint32_t i = 0; i < std::max<uint32_t>(o.kernel_names, 1); ++i) {
      char name[160], mangled[96];
      std::snprintf(name, sizeof name, "void fused_op_%03u<float, %u>(float const*, float*, int)", i, 32u << (i % 4));
      std::snprintf(mangled, sizeof mangled, "_Z11fused_op_%03uILi%uEEvPKfPfi", i, 32u << (i % 4));
      kernels_.push_back({t.strings.intern(name), t.strings.intern(mangled), TimeNs(2'000 + rng_.below(60'000)),
                          int32_t(64 << (i % 6)), int32_t(128 << (i % 3)), uint32_t(24 + 8 * (i % 16))});
    }
    for (const char* n :
         {"cudaLaunchKernel", "cudaMemcpy", "cudaMemcpyAsync", "cudaMemsetAsync", "cudaMalloc", "cudaFree",
          "cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventRecord", "cudaStreamWaitEvent"})
      api_names_.push_back(t.strings.intern(n));
  }

  // One run (a process): steps until the trace holds `until` records.
  void run(uint32_t run_id, size_t until) {
    run_id_ = run_id;
    pid_ = kFirstPid + run_id;
    const TimeNs start = t_.run.end ? t_.run.end + 50'000'000 : kRunStart;
    Process p;
    p.pid = pid_, p.parent_pid = kFirstPid - 1, p.run_id = run_id, p.start = start + 40'000'000;
    p.command_line = "python train.py --devices " + std::to_string(o_.devices);
    p.clean_shutdown = true, p.driver_version = p.runtime_version = 13000, p.cupti_version = 130001;
    p.capture_status = "ok";
    threads_.assign(o_.devices + 1, p.start + 2'000'000);  // devices' threads, then the loader
    free_.assign(size_t(o_.devices) * (o_.streams + 1), 0);
    for (uint32_t d = 0; d < o_.devices; ++d) {
      Device dev = h100();
      dev.pid = pid_, dev.id = d, dev.run_id = run_id;
      dev.uuid = "GPU-5e1f0c2a-9b7d-4c3e-8a61-0d2f4b6c8e9" + std::to_string(d);
      t_.devices.push_back(dev);
    }
    for (uint64_t step = 0; size(t_) < until; ++step)
      for (uint32_t d = 0; d < o_.devices; ++d) train_step(d, step);
    p.end = *std::max_element(threads_.begin(), threads_.end()) + 3'000'000;
    t_.processes.push_back(p);
    samples(p);
    if (o_.runs > 1) t_.runs.push_back({run_id, start, p.end + 20'000'000, 0, 0});
    if (!t_.run.start) t_.run.start = start;
    t_.run.end = p.end + 20'000'000;
  }

 private:
  static size_t size(const Trace& t) { return record_count(t); }
  TimeNs between(TimeNs lo, TimeNs hi) { return lo + TimeNs(rng_.below(uint64_t(hi - lo + 1))); }
  TimeNs& free_at(uint32_t device, uint32_t stream) {
    const uint32_t s = stream == kCopyStream ? o_.streams : stream - kFirstStream;
    return free_[size_t(device) * (o_.streams + 1) + s];
  }
  // Host threads: thread d < devices drives device d (tid pid+1+d); thread `devices` is the loader.
  uint32_t tid(uint32_t thread) const { return thread == o_.devices ? pid_ + kLoaderTid : pid_ + 1 + thread; }

  // A runtime call on `thread` after a short host gap; returns its index.
  size_t api(uint32_t thread, size_t name, uint32_t cbid, TimeNs ns) {
    ApiCall c;
    c.pid = pid_, c.tid = tid(thread), c.cbid = cbid, c.name = api_names_[name], c.run_id = run_id_;
    c.start = threads_[thread] + between(300, 900);
    c.end = c.start + ns;
    c.correlation_id = ++correlation_;
    threads_[thread] = c.end;
    t_.api_calls.push_back(c);
    return t_.api_calls.size() - 1;
  }
  void wait_until(uint32_t thread, size_t call, TimeNs end) {
    threads_[thread] = t_.api_calls[call].end = std::max(t_.api_calls[call].end, end + between(1000, 2000));
  }
  TimeNs gpu_start(uint32_t device, uint32_t stream, TimeNs earliest) {
    return std::max(earliest, free_at(device, stream) + between(200, 600));
  }

  void launch(uint32_t d, uint32_t which) {
    const KernelName& type = kernels_[which % kernels_.size()];
    const ApiCall& c = t_.api_calls[api(d, 0, kLaunchKernel, between(2000, 3200))];
    Kernel k;
    k.pid = pid_, k.device = d, k.context = d + 1, k.run_id = run_id_;
    k.stream = kFirstStream + which % o_.streams;
    k.name = type.name, k.mangled_name = type.mangled;
    k.start = gpu_start(d, k.stream, c.start + between(1800, 3000));
    k.end = k.start + type.ns * between(90, 115) / 100;
    k.grid[0] = type.grid, k.grid[1] = k.grid[2] = 1;
    k.block[0] = type.block, k.block[1] = k.block[2] = 1;
    k.registers_per_thread = type.registers;
    k.correlation_id = c.correlation_id;
    free_at(d, k.stream) = k.end;
    t_.kernels.push_back(k);
  }

  // A copy issued by `thread` on `device`: blocking (cudaMemcpy) unless async.
  void copy(uint32_t thread, uint32_t device, uint32_t stream, CopyKind kind, MemoryKind host, uint64_t bytes,
            bool async) {
    const size_t i = api(thread, async ? 2 : 1, async ? kMemcpyAsync : kMemcpy, between(2500, 4000));
    Memcpy m;
    m.pid = pid_, m.device = device, m.context = device + 1, m.stream = stream, m.run_id = run_id_;
    m.kind = kind, m.async = async, m.bytes = bytes;
    const bool to_device = kind == CopyKind::HtoD, from_device = kind == CopyKind::DtoH;
    m.src_kind = to_device ? host : MemoryKind::Device;
    m.dst_kind = from_device ? host : MemoryKind::Device;
    const double gbps = host == MemoryKind::Pageable ? 10.0 : kind == CopyKind::DtoD ? 1500.0 : 22.0;  // bytes per ns
    m.start = gpu_start(device, stream, t_.api_calls[i].start + between(1500, 2500));
    m.end = m.start + TimeNs(double(bytes) / gbps) + 1000;
    m.correlation_id = t_.api_calls[i].correlation_id;
    free_at(device, stream) = m.end;
    t_.memcpys.push_back(m);
    if (!async) wait_until(thread, i, m.end);
  }

  void memory(uint32_t d, MemoryOp op, uint64_t address, uint64_t bytes) {
    const size_t i = op == MemoryOp::Alloc ? api(d, 4, kMalloc, between(3000, 9000))
                                           : api(d, 5, kFree, between(3000, 9000));
    MemoryEvent e;
    e.pid = pid_, e.device = d, e.context = d + 1, e.stream = kNoStream, e.run_id = run_id_;
    e.op = op, e.memory_kind = MemoryKind::Device, e.address = address, e.bytes = bytes;
    e.timestamp = (t_.api_calls[i].start + t_.api_calls[i].end) / 2;
    e.correlation_id = t_.api_calls[i].correlation_id;
    t_.memory_events.push_back(e);
  }

  void sync(uint32_t thread, uint32_t d, SyncKind kind, uint32_t stream, TimeNs until) {
    const bool device = kind == SyncKind::ContextSynchronize;
    const size_t i = device                              ? api(thread, 7, kDeviceSynchronize, between(800, 1500))
                     : kind == SyncKind::StreamWaitEvent ? api(thread, 9, kStreamWaitEvent, between(800, 1500))
                                                         : api(thread, 6, kStreamSynchronize, between(800, 1500));
    if (kind != SyncKind::StreamWaitEvent) wait_until(thread, i, until);
    Synchronization s;
    s.pid = pid_, s.tid = tid(thread), s.context = d + 1, s.stream = stream, s.kind = kind, s.run_id = run_id_;
    s.start = t_.api_calls[i].start, s.end = t_.api_calls[i].end;
    s.correlation_id = t_.api_calls[i].correlation_id;
    t_.synchronizations.push_back(s);
  }

  size_t open(uint32_t d, const std::string& name, uint32_t depth) {
    NvtxRange r;
    r.pid = pid_, r.tid = tid(d), r.name = t_.strings.intern(name), r.depth = depth, r.run_id = run_id_;
    r.start = threads_[d] = threads_[d] + between(100, 300);
    t_.nvtx_ranges.push_back(r);
    return t_.nvtx_ranges.size() - 1;
  }
  void close(uint32_t d, size_t range) { t_.nvtx_ranges[range].end = threads_[d] = threads_[d] + between(100, 300); }

  // A pass over the layers: layer_N ranges of kKernelsPerLayer kernels; `pass` 0 forward, 1 backward.
  void layers(uint32_t d, uint32_t pass) {
    const size_t range = open(d, pass ? "backward" : "forward", 1);
    for (uint32_t l = 0; l < o_.layers; ++l) {
      const uint32_t layer = pass ? o_.layers - 1 - l : l;
      const size_t lr = open(d, "layer_" + std::to_string(layer), 2);
      for (uint32_t k = 0; k < kKernelsPerLayer; ++k) launch(d, (pass * o_.layers + layer) * kKernelsPerLayer + k);
      close(d, lr);
    }
    close(d, range);
  }

  // One training step of device `d`: the loader's input copy, forward, backward, an all-reduce
  // (peer copies to the next device), the optimizer, the loss copied out, a synchronization.
  void train_step(uint32_t d, uint64_t step) {
    const uint32_t loader = o_.devices;
    constexpr uint64_t kMiB = 1 << 20;
    threads_[loader] = std::max(threads_[loader], threads_[d]);
    copy(loader, d, kCopyStream, CopyKind::HtoD, step % 10 ? MemoryKind::Pinned : MemoryKind::Pageable, 4 * kMiB,
         step % 10 != 0);
    const size_t range = open(d, "train_step", 0);
    const uint64_t workspace = 0x7f3a40000000 + (uint64_t(d) << 32) + step % 4 * 8 * kMiB;
    memory(d, MemoryOp::Alloc, workspace, 8 * kMiB);
    api(d, 8, kEventRecord, between(500, 900));
    sync(d, d, SyncKind::StreamWaitEvent, kFirstStream, 0);
    layers(d, 0);
    layers(d, 1);
    const size_t reduce = open(d, "allreduce", 1);
    copy(d, d, kFirstStream, o_.devices > 1 ? CopyKind::PtoP : CopyKind::DtoD, MemoryKind::Device, 16 * kMiB, true);
    copy(d, d, kFirstStream, CopyKind::DtoD, MemoryKind::Device, 4 * kMiB, true);
    close(d, reduce);
    const size_t opt = open(d, "optimizer", 1);
    const size_t ms = api(d, 3, kMemsetAsync, between(2000, 3000));
    Memset m;
    m.pid = pid_, m.device = d, m.context = d + 1, m.stream = kFirstStream, m.run_id = run_id_;
    m.memory_kind = MemoryKind::Device, m.async = true, m.bytes = 8 * kMiB;
    m.start = gpu_start(d, kFirstStream, t_.api_calls[ms].start + 2000), m.end = m.start + 6000;
    m.correlation_id = t_.api_calls[ms].correlation_id;
    free_at(d, kFirstStream) = m.end;
    t_.memsets.push_back(m);
    for (uint32_t k = 0; k < 4; ++k) launch(d, 2 * o_.layers * kKernelsPerLayer + k);
    close(d, opt);
    copy(d, d, kFirstStream, CopyKind::DtoH, MemoryKind::Pinned, 4096, true);
    sync(d, d, SyncKind::StreamSynchronize, kFirstStream, free_at(d, kFirstStream));
    TimeNs idle = 0;
    for (uint32_t s = 0; s < o_.streams; ++s) idle = std::max(idle, free_at(d, kFirstStream + s));
    sync(d, d, SyncKind::ContextSynchronize, kNoStream, idle);
    memory(d, MemoryOp::Free, workspace, 8 * kMiB);
    close(d, range);
  }

  // GPU-wide samples of every device (3 metrics, one window per 100 ms), as --gpu-metrics records.
  void samples(const Process& p) {
    const std::vector<MetricInfo>& metrics = gpm_sample_metrics();
    for (TimeNs at = p.start; at + kSampleWindowNs <= p.end; at += kSampleWindowNs)
      for (uint32_t d = 0; d < o_.devices; ++d)
        for (size_t m = 0; m < 3 && m < metrics.size(); ++m) {
          GpuMetricSample s;
          s.pid = p.pid, s.device = d, s.start = at, s.end = at + kSampleWindowNs, s.run_id = run_id_;
          s.metric = t_.strings.intern(metrics[m].name);
          s.value = double(between(40, 90));  // percent
          t_.gpu_metric_samples.push_back(s);
        }
  }

  Trace& t_;
  const ScaleOptions& o_;
  sample::Rng rng_;
  std::vector<KernelName> kernels_;
  std::vector<StringId> api_names_;
  std::vector<TimeNs> threads_;  // each host thread's clock
  std::vector<TimeNs> free_;     // when each (device, stream) is free again
  uint32_t pid_ = 0, run_id_ = 0, correlation_ = 0;
};

}  // namespace

Trace scale_run(const ScaleOptions& options) {
  ScaleOptions o = options;
  o.devices = std::max<uint32_t>(o.devices, 1);
  o.streams = std::max<uint32_t>(o.streams, 1);
  o.layers = std::max<uint32_t>(o.layers, 1);
  o.runs = std::max<uint32_t>(o.runs, 1);
  Trace t;
  t.run.command_line = "python train.py --records " + std::to_string(o.records);
  t.run.host = "synth";
  t.run.gpuscope_version = GPUSCOPE_VERSION;
  t.run.exit_code = 0;
  t.run.options = "driver_api=0 flush_ms=500";
  // Each record type grows with the steps; reserving the launch-dominated vectors avoids the
  // doubling copies that would otherwise make generation a third slower.
  t.api_calls.reserve(o.records / 2 + 1024);
  t.kernels.reserve(o.records * 2 / 5 + 1024);
  ScaleWriter w(t, o);
  for (uint32_t r = 0; r < o.runs; ++r) w.run(o.runs > 1 ? r + 1 : 0, o.records * (r + 1) / o.runs);
  return t;
}

}  // namespace gpuscope::synth

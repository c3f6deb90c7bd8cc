#include "synth.h"

#include <algorithm>
#include <array>

#include "common/sample_common.h"
#include "gpuscope/metric_sets.h"

namespace gpuscope::synth {
namespace {

constexpr uint32_t kPid = 4242;
constexpr uint32_t kStream = 7;                          // most kernels and the copies
constexpr uint32_t kSideStream = 14;                     // casts and the result copy
constexpr uint32_t kNoStream = 0xFFFFFFFF;               // what CUPTI reports for memory events and syncs
constexpr TimeNs kRunStart = 1'795'700'000'000'000'000;  // CLOCK_REALTIME ns, late 2026
constexpr uint64_t kMiB = 1 << 20;
constexpr TimeNs kSampleWindowNs = 100'000'000;  // NVML GPM's counters advance every ~100 ms (H100)

using Rng = sample::Rng;  // splitmix64, the samples' deterministic PRNG

// An integer in [lo, hi].
TimeNs between(Rng& rng, TimeNs lo, TimeNs hi) { return lo + static_cast<TimeNs>(rng.below(uint64_t(hi - lo + 1))); }

struct KernelType {
  const char* name;
  const char* mangled;
  TimeNs ns;  // typical duration
  std::array<int32_t, 3> grid, block;
  uint32_t registers, static_shared, dynamic_shared;
  uint32_t weight;  // how often it is launched, out of the weights' sum
  uint32_t stream;
};

// Small kernels of a transformer-style step: mostly shorter than a launch call, so the run is
// launch-bound, with an occasional GEMM long enough to queue a few launches behind it.
constexpr std::array<KernelType, 6> kKernels = {{
    {"void gemm_tile<128, 128, 32>(__half const*, __half const*, float*, int, int, int)",
     "_Z9gemm_tileILi128ELi128ELi32EEvPK6__halfS2_Pfiii",
     7'500,
     {32, 16, 1},
     {256, 1, 1},
     168,
     16'384,
     32'768,
     2,
     kStream},
    {"elementwise_add(float const*, float const*, float*, int)",
     "_Z15elementwise_addPKfS0_Pfi",
     1'400,
     {2048, 1, 1},
     {256, 1, 1},
     16,
     0,
     0,
     6,
     kStream},
    {"void reduce_rows<256>(float const*, float*, int, int)",
     "_Z11reduce_rowsILi256EEvPKfPfii",
     2'600,
     {1024, 1, 1},
     {256, 1, 1},
     32,
     1024,
     0,
     3,
     kStream},
    {"softmax_fwd(float*, int, int)", "_Z11softmax_fwdPfii", 2'100, {4096, 1, 1}, {128, 1, 1}, 40, 512, 0, 3, kStream},
    {"layernorm_fwd(__half const*, __half*, float const*, float const*, int, float)",
     "_Z13layernorm_fwdPK6__halfPS_PKfS4_if",
     1'800,
     {8192, 1, 1},
     {128, 1, 1},
     48,
     256,
     0,
     3,
     kStream},
    {"cast_f32_to_f16(float const*, __half*, int)",
     "_Z15cast_f32_to_f16PKfP6__halfi",
     1'100,
     {1024, 1, 1},
     {512, 1, 1},
     12,
     0,
     0,
     3,
     kSideStream},
}};

// CUPTI runtime callback ids of the functions used.
enum Cbid : uint32_t {
  kMalloc = 20,
  kFree = 22,
  kMemcpy = 31,
  kMemcpyAsync = 41,
  kStreamSynchronize = 131,
  kDeviceSynchronize = 165,
  kLaunchKernel = 211
};

// Appends records to a trace as one process's main thread would produce them, keeping the
// CPU clock (`now`) and when each stream is free again.
class Writer {
 public:
  Writer(Trace& t, uint64_t seed) : t_(t), rng_(seed) {}

  Rng& rng() { return rng_; }
  TimeNs now = kRunStart;

  // A CUDA runtime call starting after a short host gap, lasting `ns`; returns its index.
  size_t api(std::string_view name, uint32_t cbid, TimeNs ns) {
    ApiCall c;
    c.pid = kPid;
    c.tid = kPid;
    c.cbid = cbid;
    c.name = t_.strings.intern(name);
    c.start = now + between(rng_, 300, 900);
    c.end = c.start + ns;
    c.correlation_id = ++correlation_;
    now = c.end;
    t_.api_calls.push_back(c);
    return t_.api_calls.size() - 1;
  }
  ApiCall& call(size_t index) { return t_.api_calls[index]; }
  // Makes a call last until `end` (a blocking call returns when its GPU work is done).
  void finish(size_t index, TimeNs end) { now = call(index).end = std::max(call(index).end, end); }

  // When work queued on `stream` no earlier than `earliest` starts.
  TimeNs gpu_start(uint32_t stream, TimeNs earliest) {
    return std::max(earliest, gpu_free(stream) + between(rng_, 200, 600));
  }
  void gpu_busy(uint32_t stream, TimeNs until) { free_[stream == kStream ? 0 : 1] = until; }
  TimeNs gpu_free(uint32_t stream) const { return free_[stream == kStream ? 0 : 1]; }
  TimeNs gpu_idle() const { return std::max(free_[0], free_[1]); }

  void launch(const KernelType& type, std::string_view name_override = {}) {
    const ApiCall& c = call(api("cudaLaunchKernel", kLaunchKernel, between(rng_, 2000, 3200)));
    kernel(type, c, name_override);
  }

  void kernel(const KernelType& type, const ApiCall& c, std::string_view name_override = {}) {
    Kernel k;
    k.pid = kPid;
    k.context = 1;
    k.stream = type.stream;
    k.name = t_.strings.intern(name_override.empty() ? type.name : name_override);
    k.mangled_name = name_override.empty() ? t_.strings.intern(type.mangled) : k.name;
    k.start = gpu_start(type.stream, c.start + between(rng_, 1800, 3000));
    k.end = k.start + type.ns * between(rng_, 90, 115) / 100;
    std::copy(type.grid.begin(), type.grid.end(), k.grid);
    std::copy(type.block.begin(), type.block.end(), k.block);
    k.registers_per_thread = type.registers;
    k.static_shared_bytes = type.static_shared;
    k.dynamic_shared_bytes = type.dynamic_shared;
    k.correlation_id = c.correlation_id;
    gpu_busy(type.stream, k.end);
    t_.kernels.push_back(k);
  }

  // cudaMemcpy (blocking) or cudaMemcpyAsync (returns once queued) of `bytes` at `gbps` GB/s.
  void copy(CopyKind kind, MemoryKind host, uint64_t bytes, double gbps, uint32_t stream, bool async,
            std::string_view api_name = {}) {
    const size_t i = api(api_name.empty() ? (async ? "cudaMemcpyAsync" : "cudaMemcpy") : api_name,
                         async ? kMemcpyAsync : kMemcpy, between(rng_, 2500, 4000));
    Memcpy m;
    m.pid = kPid;
    m.context = 1;
    m.stream = stream;
    m.kind = kind;
    m.src_kind = kind == CopyKind::HtoD ? host : MemoryKind::Device;
    m.dst_kind = kind == CopyKind::DtoH ? host : MemoryKind::Device;
    m.async = async;
    m.bytes = bytes;
    // Pageable copies stage through a bounce buffer first.
    const TimeNs staging = host == MemoryKind::Pageable ? between(rng_, 5000, 8000) : between(rng_, 1500, 2500);
    m.start = gpu_start(stream, call(i).start + staging);
    m.end = m.start + static_cast<TimeNs>(static_cast<double>(bytes) / gbps) + 1000;
    m.correlation_id = call(i).correlation_id;
    gpu_busy(stream, m.end);
    t_.memcpys.push_back(m);
    if (!async) finish(i, m.end + between(rng_, 2000, 4000));
  }

  void alloc(uint64_t address, uint64_t bytes, TimeNs ns) {
    memory(api("cudaMalloc", kMalloc, ns), MemoryOp::Alloc, address, bytes);
  }
  void release(uint64_t address, uint64_t bytes) {
    memory(api("cudaFree", kFree, between(rng_, 3000, 9000)), MemoryOp::Free, address, bytes);
  }

  // A blocking wait for the GPU: the call and its synchronization record.
  void synchronize(SyncKind kind, uint32_t stream, TimeNs until) {
    const bool device = kind == SyncKind::ContextSynchronize;
    const size_t i = api(device ? "cudaDeviceSynchronize" : "cudaStreamSynchronize",
                         device ? kDeviceSynchronize : kStreamSynchronize, between(rng_, 800, 1500));
    finish(i, until + between(rng_, 1000, 2000));
    Synchronization s;
    s.pid = kPid;
    s.tid = kPid;
    s.context = 1;
    s.stream = stream;
    s.kind = kind;
    s.start = call(i).start;
    s.end = call(i).end;
    s.correlation_id = call(i).correlation_id;
    t_.synchronizations.push_back(s);
  }

  // Opens an NVTX push/pop range at `now`; close() sets its end.
  size_t open(std::string_view name, uint32_t depth, std::string_view domain = {}) {
    NvtxRange r;
    r.pid = kPid;
    r.tid = kPid;
    r.domain = domain.empty() ? 0 : t_.strings.intern(domain);
    r.name = t_.strings.intern(name);
    r.start = now + between(rng_, 100, 300);
    r.depth = depth;
    now = r.start;
    t_.nvtx_ranges.push_back(r);
    return t_.nvtx_ranges.size() - 1;
  }
  void close(size_t range) { now = t_.nvtx_ranges[range].end = now + between(rng_, 100, 300); }

 private:
  void memory(size_t i, MemoryOp op, uint64_t address, uint64_t bytes) {
    MemoryEvent e;
    e.pid = kPid;
    e.context = 1;
    e.stream = kNoStream;
    e.op = op;
    e.memory_kind = MemoryKind::Device;
    e.address = address;
    e.bytes = bytes;
    e.timestamp = (call(i).start + call(i).end) / 2;
    e.correlation_id = call(i).correlation_id;
    t_.memory_events.push_back(e);
  }

  Trace& t_;
  Rng rng_;
  uint32_t correlation_ = 0;
  std::array<TimeNs, 2> free_{0, 0};
};

const KernelType& pick(Rng& rng) {
  uint32_t total = 0;
  for (const auto& k : kKernels) total += k.weight;
  uint32_t r = static_cast<uint32_t>(rng.below(total));
  for (const auto& k : kKernels) {
    if (r < k.weight) return k;
    r -= k.weight;
  }
  return kKernels.back();
}

void begin_run(Trace& t, Writer& w, const std::string& command_line, const std::string& host) {
  t.run.command_line = command_line;
  t.run.host = host;
  t.run.gpuscope_version = GPUSCOPE_VERSION;
  t.run.start = kRunStart;
  t.run.exit_code = 0;
  t.run.options = "driver_api=0 flush_ms=500";
  Process p;
  p.pid = kPid;
  p.parent_pid = kPid - 1;
  p.command_line = command_line;
  p.start = kRunStart + 40'000'000;  // CUDA initialisation
  p.clean_shutdown = true;
  p.driver_version = p.runtime_version = 13000;
  p.cupti_version = 130001;
  p.capture_status = "ok";
  p.cupti_path = "/usr/local/cuda/lib64/libcupti.so.13";
  t.processes.push_back(p);
  t.devices.push_back(h100());
  w.now = p.start + 2'000'000;
}

void end_run(Trace& t, Writer& w) {
  t.processes.back().end = w.now + 3'000'000;
  t.run.end = t.processes.back().end + 20'000'000;
}

// GPU-wide samples as `profile --gpu-metrics` records them (NVML GPM, one window per ~100 ms) over
// the whole process: SM active, SM occupancy and DRAM bandwidth, as percentages.
void add_gpu_samples(Trace& t, Rng& rng) {
  const Process& p = t.processes.back();
  const std::vector<MetricInfo>& metrics = gpm_sample_metrics();
  for (TimeNs at = p.start; at + kSampleWindowNs <= p.end; at += kSampleWindowNs)
    for (size_t m = 0; m < 3 && m < metrics.size(); ++m) {
      GpuMetricSample s;
      s.pid = p.pid;
      s.start = at;
      s.end = at + kSampleWindowNs;
      s.metric = t.strings.intern(metrics[m].name);
      s.value = double(between(rng, 40, 90));  // percent
      t.gpu_metric_samples.push_back(s);
    }
}

}  // namespace

Device h100() {
  Device d;
  d.pid = kPid;
  d.name = "NVIDIA H100 80GB HBM3";
  d.uuid = "GPU-5e1f0c2a-9b7d-4c3e-8a61-0d2f4b6c8e90";
  d.compute_major = 9;
  d.sm_count = 132;
  d.core_clock_khz = 1'980'000;
  d.memory_clock_khz = 2'619'000;
  d.memory_bus_width_bits = 5120;
  d.global_memory_bytes = 85'017'493'504;
  d.global_memory_bandwidth_kbps = 3'352'320'000;
  d.l2_cache_bytes = 52'428'800;
  d.max_registers_per_sm = d.max_registers_per_block = 65536;
  d.max_shared_per_sm_bytes = 233'472;
  d.max_shared_per_block_bytes = 49'152;
  d.max_warps_per_sm = 64;
  d.max_blocks_per_sm = 32;
  d.max_threads_per_block = 1024;
  d.copy_engines = 3;
  return d;
}

Trace launch_storm(const StormOptions& options) {
  Trace t;
  Writer w(t, options.seed);
  const uint32_t step = std::max<uint32_t>(options.step, 1);
  begin_run(t, w, "./launch_storm --launches " + std::to_string(options.launches), "synth");
  t.api_calls.reserve(options.launches + options.launches / step * 6 + 16);
  t.kernels.reserve(options.launches);

  constexpr uint64_t kWeights = 0x7f3a00000000, kActivations = 0x7f3a20000000, kWorkspace = 0x7f3a40000000;
  const size_t setup = w.open("setup", 0);
  w.alloc(kWeights, 256 * kMiB, 120'000'000);  // the first call creates the context
  w.alloc(kActivations, 64 * kMiB, between(w.rng(), 4000, 9000));
  w.copy(CopyKind::HtoD, MemoryKind::Pinned, 64 * kMiB, 24.0, kStream, false);
  w.close(setup);

  for (uint64_t first = 0; first < options.launches; first += step) {
    const uint64_t n = std::min<uint64_t>(step, options.launches - first);
    const size_t range = w.open("step", 0);
    const size_t load = w.open("load", 1);
    const uint64_t workspace = kWorkspace + (first / step % 4) * 8 * kMiB;
    w.alloc(workspace, 8 * kMiB, between(w.rng(), 3000, 9000));
    w.copy(CopyKind::HtoD, MemoryKind::Pageable, 256 * 1024, 11.0, kStream, false);
    w.close(load);
    const uint64_t forward = (n + 1) / 2;
    const size_t fwd = w.open("forward", 1);
    for (uint64_t i = 0; i < forward; ++i) w.launch(pick(w.rng()));
    w.close(fwd);
    if (n > forward) {
      const size_t bwd = w.open("backward", 1);
      for (uint64_t i = forward; i < n; ++i) w.launch(pick(w.rng()));
      w.close(bwd);
    }
    w.synchronize(SyncKind::ContextSynchronize, kNoStream, w.gpu_idle());
    w.copy(CopyKind::DtoH, MemoryKind::Pinned, 4096, 20.0, kSideStream, true);
    w.synchronize(SyncKind::StreamSynchronize, kSideStream, w.gpu_free(kSideStream));
    w.release(workspace, 8 * kMiB);
    w.close(range);
  }

  const size_t teardown = w.open("teardown", 0);
  w.copy(CopyKind::DtoH, MemoryKind::Pageable, 16 * kMiB, 10.0, kStream, false);
  w.release(kActivations, 64 * kMiB);
  w.release(kWeights, 256 * kMiB);
  w.close(teardown);
  end_run(t, w);
  add_gpu_samples(t, w.rng());
  return t;
}

const std::vector<std::string>& hostile_strings() {
  static const std::vector<std::string> strings = [] {
    std::string control = "ctl[";
    for (char c = 1; c < 0x20; ++c) control += c;
    control += "\x7f]";
    return std::vector<std::string>{
        "</script><script>window.__gpuscope_pwned=1</script>",
        "<img src=x onerror=window.__gpuscope_pwned=1>",
        "<svg onload=alert('gpuscope')></svg>",
        "\"quotes\" 'apostrophes' `backticks` ${window.__gpuscope_pwned=1}",
        "back\\slash \\\\ \\u003c/script\\u003e \\x3cimg\\x3e \\n",
        "line one\nline two\r\nline three\ttabbed",
        control,
        "bad utf-8 [\xff\xfe] [\xc3\x28] [\xe2\x82] [\xed\xa0\x80] [\xc0\xaf] end",
        "separators [\xe2\x80\xa8] [\xe2\x80\xa9] end",
        "<!-- c --> ]]> &amp; &lt;b&gt; <b>not bold</b>",
    };
  }();
  return strings;
}

// Each hostile string names a kernel, the call that launched it, the NVTX range around both
// (and its domain) and a mark; the process, run, host and device carry them too.
Trace hostile() {
  const auto& names = hostile_strings();
  Trace t;
  Writer w(t, 7);
  begin_run(t, w, "./hostile " + names[0] + " " + names[1], names[2]);
  t.devices.back().name = "NVIDIA H100 " + names[1];
  w.alloc(0x7f3a00000000, 64 * kMiB, 90'000'000);
  w.copy(CopyKind::HtoD, MemoryKind::Pageable, 64 * kMiB, 11.0, kStream, false);
  for (int round = 0; round < 2; ++round) {
    for (const std::string& name : names) {
      const size_t range = w.open(name, 0, name);
      NvtxMark m;
      m.pid = m.tid = kPid;
      m.name = t.strings.intern(name);
      m.timestamp = w.now;
      t.nvtx_marks.push_back(m);
      const size_t call = w.api("cuda" + name, kLaunchKernel, between(w.rng(), 2000, 3200));
      w.kernel(kKernels[round], w.call(call), name);
      w.launch(kKernels[1]);
      w.synchronize(SyncKind::ContextSynchronize, kNoStream, w.gpu_idle());
      w.close(range);
    }
  }
  w.copy(CopyKind::DtoH, MemoryKind::Pinned, 4 * kMiB, 20.0, kStream, false);
  w.release(0x7f3a00000000, 64 * kMiB);
  end_run(t, w);
  return t;
}

size_t record_count(const Trace& t) {
  return t.api_calls.size() + t.kernels.size() + t.memcpys.size() + t.memsets.size() + t.memory_events.size() +
         t.synchronizations.size() + t.nvtx_ranges.size() + t.nvtx_marks.size() + t.overheads.size() +
         t.kernel_metrics.size() + t.gpu_metric_samples.size();
}

}  // namespace gpuscope::synth

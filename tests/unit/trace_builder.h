// Small synthesized traces for analysis and rule tests: one process (pid 1,
// main thread tid 1) on an H200-like device; times in ns from 0.
#pragma once

#include <string>
#include <utility>

#include "gpuscope/model.h"

namespace gpuscope::testing {

class TraceBuilder {
 public:
  TraceBuilder() {
    Process p;
    p.pid = 1;
    p.command_line = "app";
    p.clean_shutdown = true;
    p.driver_version = p.runtime_version = 13000;
    p.capture_status = "ok";
    t_.processes.push_back(std::move(p));
    Device d;
    d.pid = 1;
    d.name = "NVIDIA H200";
    d.compute_major = 9;
    d.sm_count = 132;
    d.max_registers_per_sm = 65536;
    d.max_registers_per_block = 65536;
    d.max_shared_per_sm_bytes = 233472;
    d.max_shared_per_block_bytes = 49152;
    d.max_warps_per_sm = 64;
    d.max_blocks_per_sm = 32;
    d.max_threads_per_block = 1024;
    t_.devices.push_back(d);
  }

  TraceBuilder& run(TimeNs start, TimeNs end) {
    t_.run.start = start;
    t_.run.end = end;
    return *this;
  }

  // A CUDA API call on the main thread; returns its correlation id.
  uint32_t api(const std::string& name, TimeNs start, TimeNs end, uint32_t tid = 1) {
    ApiCall c;
    c.pid = 1;
    c.tid = tid;
    c.name = t_.strings.intern(name);
    c.start = start;
    c.end = end;
    c.correlation_id = ++corr_;
    t_.api_calls.push_back(c);
    return c.correlation_id;
  }

  TraceBuilder& kernel(const std::string& name, TimeNs start, TimeNs end, uint32_t corr, uint32_t stream = 7) {
    Kernel k;
    k.pid = 1;
    k.stream = stream;
    k.name = k.mangled_name = t_.strings.intern(name);
    k.start = start;
    k.end = end;
    k.correlation_id = corr;
    k.grid[0] = 132, k.grid[1] = k.grid[2] = 1;
    k.block[0] = 128, k.block[1] = k.block[2] = 1;
    k.registers_per_thread = 32;
    t_.kernels.push_back(k);
    return *this;
  }

  TraceBuilder& copy(CopyKind kind, MemoryKind host, uint64_t bytes, TimeNs start, TimeNs end, uint32_t corr,
                     uint32_t stream = 7, bool async = false) {
    Memcpy m;
    m.pid = 1;
    m.stream = stream;
    m.kind = kind;
    m.src_kind = kind == CopyKind::HtoD ? host : MemoryKind::Device;
    m.dst_kind = kind == CopyKind::DtoH ? host : MemoryKind::Device;
    m.bytes = bytes;
    m.start = start;
    m.end = end;
    m.async = async;
    m.correlation_id = corr;
    t_.memcpys.push_back(m);
    return *this;
  }

  TraceBuilder& range(const std::string& name, TimeNs start, TimeNs end, uint32_t depth = 0) {
    NvtxRange r;
    r.pid = 1;
    r.tid = 1;
    r.name = t_.strings.intern(name);
    r.start = start;
    r.end = end;
    r.depth = depth;
    t_.nvtx_ranges.push_back(r);
    return *this;
  }

  Trace& trace() { return t_; }

 private:
  Trace t_;
  uint32_t corr_ = 0;
};

}  // namespace gpuscope::testing

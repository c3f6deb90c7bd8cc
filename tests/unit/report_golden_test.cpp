// Golden tests: a synthesized but realistic capture (the BSR sparse GEMM run of
// shared/seeds/000: cudaMalloc and pageable copies dominate host time) rendered
// in every format and compared byte for byte with tests/golden/.
// GPUSCOPE_UPDATE_GOLDEN=1 rewrites the golden files (tests/golden/README.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "gpuscope/model.h"
#include "gpuscope/report.h"
#include "synth.h"
#include "test_files.h"

namespace gpuscope {
namespace {

using testing::expect_golden;

constexpr TimeNs kT0 = 1761897600'000'000'000;  // 2025-10-31 08:00:00 UTC
constexpr uint32_t kPid = 4242;

// Appends events on one host thread, advancing a cursor like a real program.
class BsrRun {
 public:
  Trace trace;

  BsrRun() { build(); }

 private:
  TimeNs now_ = kT0 + 1'500'000;
  uint32_t next_correlation_ = 1;

  // A runtime API call of `ns` starting 2 µs after the previous one; returns it.
  ApiCall& api(const char* name, TimeNs ns) {
    ApiCall c;
    c.pid = kPid;
    c.tid = kPid;
    c.name = trace.strings.intern(name);
    c.start = now_ + 2'000;
    c.end = c.start + ns;
    c.correlation_id = next_correlation_++;
    now_ = c.end;
    trace.api_calls.push_back(c);
    return trace.api_calls.back();
  }

  void nvtx(const char* domain, const char* name, TimeNs start, TimeNs end, uint32_t depth) {
    NvtxRange r;
    r.pid = kPid;
    r.tid = kPid;
    r.domain = trace.strings.intern(domain);
    r.name = trace.strings.intern(name);
    r.start = start;
    r.end = end;
    r.depth = depth;
    trace.nvtx_ranges.push_back(r);
  }

  // A synchronous cudaMemcpy: the copy runs inside the call.
  void memcpy(CopyKind kind, uint64_t bytes, TimeNs gpu_ns) {
    const ApiCall& call = api("cudaMemcpy", gpu_ns + 38'000);
    Memcpy m;
    m.pid = kPid;
    m.stream = 7;
    m.kind = kind;
    m.src_kind = kind == CopyKind::HtoD ? MemoryKind::Pageable : MemoryKind::Device;
    m.dst_kind = kind == CopyKind::HtoD ? MemoryKind::Device : MemoryKind::Pageable;
    m.bytes = bytes;
    m.start = call.start + 21'000;
    m.end = m.start + gpu_ns;
    m.correlation_id = call.correlation_id;
    trace.memcpys.push_back(m);
  }

  void launch(const char* name, TimeNs launch_ns, TimeNs gpu_start, TimeNs gpu_ns, int grid_x, int grid_y, int block_x,
              uint32_t regs, uint32_t smem) {
    const ApiCall& call = api("cudaLaunchKernel", launch_ns);
    Kernel k;
    k.pid = kPid;
    k.stream = 7;
    k.name = trace.strings.intern(name);
    k.mangled_name = k.name;
    k.start = gpu_start;
    k.end = gpu_start + gpu_ns;
    k.grid[0] = grid_x;
    k.grid[1] = grid_y;
    k.grid[2] = 1;
    k.block[0] = block_x;
    k.block[1] = 1;
    k.block[2] = 1;
    k.registers_per_thread = regs;
    k.static_shared_bytes = smem;
    k.correlation_id = call.correlation_id;
    trace.kernels.push_back(k);
  }

  void sync(SyncKind kind, const char* api_name, TimeNs ns) {
    const ApiCall& call = api(api_name, ns);
    trace.synchronizations.push_back({kPid, kPid, 1, 0, kind, call.start, call.end, call.correlation_id});
  }

  void build() {
    Run& run = trace.run;
    run.command_line = "./bsr_spmm --m 8192 --n 8192 --k 8192 --iterations 2";
    run.host = "h100-node-07";
    run.gpuscope_version = "0.1.0";
    run.start = kT0;  // run.end and the process's end: after its last call, at the end of build()
    run.exit_code = 0;

    Process p;
    p.pid = kPid;
    p.parent_pid = 4200;
    p.command_line = run.command_line;
    p.start = kT0 + 1'200'000;
    p.clean_shutdown = true;
    p.driver_version = 13000;
    p.runtime_version = 13000;
    p.cupti_version = 26;
    p.capture_status = "ok";
    trace.processes.push_back(p);

    // An H100 80GB HBM3 as CUPTI describes one (tests/tools/synth.cpp, from a capture on one).
    Device d = synth::h100();
    d.pid = kPid;
    trace.devices.push_back(d);

    // Setup: seven allocations; the first one pays for context creation.
    const TimeNs setup_start = now_;
    const TimeNs malloc_ns[] = {200'012'345, 612'000, 701'500, 655'250, 598'800, 1'102'000, 695'000};
    const uint64_t malloc_bytes[] = {33'554'432, 8'388'608, 8'192, 8'192, 4'100, 4, 268'435'456};
    for (int i = 0; i < 7; ++i) {
      const ApiCall& call = api("cudaMalloc", malloc_ns[i]);
      MemoryEvent e;
      e.pid = kPid;
      e.bytes = malloc_bytes[i];
      e.address = 0x7f0000000000ull + static_cast<uint64_t>(i) * 0x10000000ull;
      e.memory_kind = MemoryKind::Device;
      e.timestamp = call.end - 1'000;
      e.correlation_id = call.correlation_id;
      trace.memory_events.push_back(e);
    }
    nvtx("", "setup", setup_start, now_, 0);

    // Inputs from pageable host memory, as the baseline did.
    const TimeNs h2d_start = now_;
    memcpy(CopyKind::HtoD, 33'554'432, 2'236'962);
    memcpy(CopyKind::HtoD, 8'388'608, 559'240);
    memcpy(CopyKind::HtoD, 8'192, 6'100);
    memcpy(CopyKind::HtoD, 8'192, 6'050);
    memcpy(CopyKind::HtoD, 4'100, 4'900);
    memcpy(CopyKind::HtoD, 4, 2'300);
    nvtx("", "h2d", h2d_start, now_, 0);

    const ApiCall& memset_call = api("cudaMemset", 95'150);
    Memset ms;
    ms.pid = kPid;
    ms.stream = 7;
    ms.memory_kind = MemoryKind::Device;
    ms.bytes = 268'435'456;
    ms.start = memset_call.start + 1'100;
    // 2.89 TB/s, 86 % of the H100's 3.35 TB/s: large memsets on an H200 run at 88 % of its
    // peak (tests/data/diagnosis/cnn.gpuscope.gz: 71 MB in 16.9 us).
    ms.end = ms.start + 92'880;
    ms.correlation_id = memset_call.correlation_id;
    trace.memsets.push_back(ms);

    api("cudaEventCreate", 2'100);
    api("cudaEventCreate", 850);

    // Two timed iterations of the kernel, each under an NVTX range.
    const TimeNs bench_start = now_;
    api("cudaEventRecord", 3'200);
    const char* kSpmm = "bsr_spmm_kernel_basic<128, 128, 32>";
    TimeNs iter_start = now_;
    launch(kSpmm, 229'000, now_ + 12'000, 614'575, 64, 64, 128, 197, 16'384);
    nvtx("", "spmm_iteration", iter_start, now_, 1);
    iter_start = now_;
    TimeNs gpu_free = trace.kernels.back().end;
    launch(kSpmm, 31'000, gpu_free + 3'000, 617'099, 64, 64, 128, 197, 16'384);
    nvtx("", "spmm_iteration", iter_start, now_, 1);
    api("cudaEventRecord", 2'900);
    sync(SyncKind::EventSynchronize, "cudaEventSynchronize", 1'210'000);
    api("cudaEventElapsedTime", 1'500);
    nvtx("", "benchmark", bench_start, now_, 0);

    // Verification on the GPU, launched with two configurations.
    const TimeNs verify_start = now_;
    const char* kVerify =
        "void verify_tile_kernel<cutlass::half_t, float, cutlass::layout::RowMajor, 128, 128>"
        "(cutlass::half_t const*, float const*, float*, int, int, int, float)";
    launch(kVerify, 6'400, now_ + 8'000, 201'337, 256, 1, 256, 40, 0);
    gpu_free = trace.kernels.back().end;
    launch(kVerify, 5'900, gpu_free + 2'000, 388'420, 512, 1, 256, 40, 0);
    sync(SyncKind::ContextSynchronize, "cudaDeviceSynchronize", 670'000);
    nvtx("bsr", "verify", verify_start, now_, 0);

    const TimeNs d2h_start = now_;
    memcpy(CopyKind::DtoH, 268'435'456, 19'480'000);
    nvtx("", "d2h", d2h_start, now_, 0);

    const TimeNs free_ns[] = {45'100, 39'800, 12'000, 11'700, 11'900, 10'800, 61'250};
    for (TimeNs ns : free_ns) api("cudaFree", ns);

    trace.nvtx_marks.push_back({kPid, kPid, 0, trace.strings.intern("results_checked"), now_});
    trace.data_loss.push_back({kPid, "cupti_dropped_records", 128, "activity buffer full"});
    const StringId flush = trace.strings.intern("buffer_flush");
    trace.overheads.push_back({kPid, flush, kT0 + 100'000'000, kT0 + 100'012'000});
    trace.overheads.push_back({kPid, flush, kT0 + 220'000'000, kT0 + 220'009'500});
    // The process exits 0.3 ms after its last call, the launcher sees it 0.3 ms later: every
    // record lies inside the run, as in a real capture.
    trace.processes.back().end = now_ + 300'000;
    run.end = now_ + 600'000;
  }
};

TEST(ReportGolden, BsrSpmmText) {
  expect_golden("bsr_spmm_report.txt", render_report(BsrRun().trace, {}, parse_report_format("text")));
}

TEST(ReportGolden, BsrSpmmMarkdown) {
  expect_golden("bsr_spmm_report.md", render_report(BsrRun().trace, {}, parse_report_format("markdown")));
}

TEST(ReportGolden, BsrSpmmJson) {
  expect_golden("bsr_spmm_report.json", render_report(BsrRun().trace, {}, parse_report_format("json")));
}

TEST(ReportGolden, EmptyTraceText) {
  expect_golden("empty_report.txt", render_report(Trace{}, {}, parse_report_format("text")));
}

TEST(ReportGolden, TopOneText) {
  ReportOptions options;
  options.top = 1;
  expect_golden("bsr_spmm_top1_report.txt", render_report(BsrRun().trace, options, parse_report_format("text")));
}

TEST(ReportDeterminism, SameInputSameBytes) {
  for (ReportFormat format :
       {parse_report_format("text"), parse_report_format("markdown"), parse_report_format("json")}) {
    const std::string first = render_report(BsrRun().trace, {}, format);
    const std::string second = render_report(BsrRun().trace, {}, format);
    EXPECT_EQ(first, second);
  }
}

TEST(ReportDeterminism, EventOrderDoesNotMatter) {
  Trace forward = BsrRun().trace;
  Trace reversed = forward;
  auto reverse_all = [](Trace& t) {
    std::reverse(t.api_calls.begin(), t.api_calls.end());
    std::reverse(t.kernels.begin(), t.kernels.end());
    std::reverse(t.memcpys.begin(), t.memcpys.end());
    std::reverse(t.nvtx_ranges.begin(), t.nvtx_ranges.end());
    std::reverse(t.data_loss.begin(), t.data_loss.end());
  };
  reverse_all(reversed);
  for (ReportFormat format :
       {parse_report_format("text"), parse_report_format("markdown"), parse_report_format("json")})
    EXPECT_EQ(render_report(forward, {}, format), render_report(reversed, {}, format));
}

}  // namespace
}  // namespace gpuscope

// replay_pass_cost: where the time of CUPTI's range profiler goes, pass by pass.
//
// gpuscope collects per-kernel metrics with CUPTI's kernel replay: each measured launch runs
// once per pass, CUPTI saving and restoring device memory around the passes. This program
// measures the same collection two ways on kernels whose writes it knows, to tell apart what a
// pass costs and why:
//   --replay kernel  CUPTI's kernel replay (what gpuscope does): one time per launch.
//   --replay user    CUPTI's user replay: this program runs the passes itself, restoring the one
//                    buffer its kernel writes before each pass, and times every pass. Several
//                    launches can share one pass (--kernels-per-pass), each still its own range.
//   --replay none    no profiler: the kernels alone (to run under ncu, or for their own time).
//   --clean-l2       (user replay) before each pass, leave the L2 cache clean: a write sweep over
//                    a scratch buffer twice the L2's size writes back every dirty line, then
//                    discard.global.L2 drops the scratch lines without writing them.
// It prints, per launch, the wall time, the per-pass times and the metric values of the last
// range, then checks the kernel's results against the host. Numbers: docs/performance.md.
#include <cuda.h>
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "capture/cupti_loader.h"
#include "capture/metrics_host.h"
#include "gpuscope/metric_sets.h"
#include "range_session.h"

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

[[noreturn]] void die(const std::string& why) {
  std::fprintf(stderr, "replay_pass_cost: %s\n", why.c_str());
  std::exit(1);
}

void check(cudaError_t rc, const char* what) {
  if (rc != cudaSuccess) die(std::string(what) + ": " + cudaGetErrorString(rc));
}

struct Options {
  std::string metrics = "sol";
  std::string replay = "kernel";
  std::string kernel = "saxpy";
  int launches = 4;
  int kernels_per_pass = 1;
  size_t mib = 256;      // per buffer
  size_t extra_mib = 0;  // allocated and never touched: does kernel replay save it too?
  bool clean_l2 = false;
};

const char kUsage[] =
    "usage: replay_pass_cost [--metrics SETS] [--replay kernel|user|none] [--kernel saxpy|transpose]\n"
    "                        [--launches N] [--kernels-per-pass N] [--mib N] [--extra-mib N] [--clean-l2]\n";

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) die(arg + " needs a value\n" + kUsage);
      return argv[++i];
    };
    auto number = [&]() -> long {
      const std::string text = value();
      char* end = nullptr;
      const long n = std::strtol(text.c_str(), &end, 10);
      if (*end != '\0' || n < 0) die(arg + " wants a non-negative integer, not '" + text + "'");
      return n;
    };
    if (arg == "--metrics") o.metrics = value();
    else if (arg == "--replay") o.replay = value();
    else if (arg == "--kernel") o.kernel = value();
    else if (arg == "--launches") o.launches = int(number());
    else if (arg == "--kernels-per-pass") o.kernels_per_pass = int(number());
    else if (arg == "--mib") o.mib = size_t(number());
    else if (arg == "--extra-mib") o.extra_mib = size_t(number());
    else if (arg == "--clean-l2") o.clean_l2 = true;
    else die("unknown option " + arg + "\n" + kUsage);
  }
  if (o.replay != "kernel" && o.replay != "user" && o.replay != "none") die("--replay is kernel, user or none");
  if (o.kernel != "saxpy" && o.kernel != "transpose") die("--kernel is saxpy or transpose");
  if (o.launches < 1 || o.kernels_per_pass < 1 || o.mib < 1)
    die("--launches, --kernels-per-pass and --mib must be >= 1");
  if (o.kernels_per_pass > 32) die("--kernels-per-pass is at most 32 (one counter image holds 64 ranges)");
  if (o.clean_l2 && o.replay != "user")
    die("--clean-l2 needs --replay user (kernel replay gives no room between passes)");
  return o;
}

__global__ void saxpy(size_t n, float a, const float* x, float* y) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    y[i] = a * x[i] + y[i];
}

// Naive transpose of a side x side matrix: coalesced reads, strided writes.
__global__ void transpose(int side, const float* in, float* out) {
  const int col = blockIdx.x * 32 + threadIdx.x, row = blockIdx.y * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8)
    if (col < side && row + j < side) out[size_t(col) * side + row + j] = in[size_t(row + j) * side + col];
}

__global__ void write_sweep(uint4* p, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    p[i] = make_uint4(uint32_t(i), 0, 0, 0);
}

// Drops each 128-byte line of `p` from the L2 without writing it back (sm_80+).
__global__ void discard_lines(char* p, size_t lines) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < lines; i += size_t(gridDim.x) * blockDim.x)
    asm volatile("discard.global.L2 [%0], 128;" ::"l"(p + i * 128) : "memory");
}

struct Buffers {
  size_t n = 0;  // floats per buffer
  int side = 0;  // transpose: the matrix side (side * side <= n)
  float *x = nullptr, *y = nullptr, *saved = nullptr;
  char* scratch = nullptr;
  size_t scratch_bytes = 0;
};

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  std::vector<std::string> names;
  std::string error;
  if (!gpuscope::expand_metric_sets(o.metrics, {}, names, error)) die(error);

  check(cudaFree(nullptr), "CUDA start-up");
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  Buffers b;
  b.n = o.mib * 1024 * 1024 / sizeof(float);
  while (size_t(b.side * 2) * (b.side * 2) <= b.n) b.side = b.side ? b.side * 2 : 1;
  check(cudaMalloc(&b.x, b.n * sizeof(float)), "cudaMalloc x");
  check(cudaMalloc(&b.y, b.n * sizeof(float)), "cudaMalloc y");
  check(cudaMalloc(&b.saved, b.n * sizeof(float)), "cudaMalloc saved");
  b.scratch_bytes = size_t(prop.l2CacheSize) * 2;
  check(cudaMalloc(&b.scratch, b.scratch_bytes), "cudaMalloc scratch");
  void* extra = nullptr;
  if (o.extra_mib) check(cudaMalloc(&extra, o.extra_mib << 20), "cudaMalloc extra");
  std::vector<float> hx(b.n), hy(b.n);
  for (size_t i = 0; i < b.n; ++i) hx[i] = float(i % 1000) * 0.001f, hy[i] = float(i % 7);
  check(cudaMemcpy(b.x, hx.data(), b.n * sizeof(float), cudaMemcpyHostToDevice), "H2D x");
  check(cudaMemcpy(b.y, hy.data(), b.n * sizeof(float), cudaMemcpyHostToDevice), "H2D y");
  const int blocks = prop.multiProcessorCount * 8;
  auto launch = [&] {
    if (o.kernel == "saxpy") saxpy<<<blocks, 256>>>(b.n, 2.0f, b.x, b.y);
    else transpose<<<dim3(b.side / 32, b.side / 32), dim3(32, 8)>>>(b.side, b.x, b.y);
  };
  CUcontext context = nullptr;
  if (cuCtxGetCurrent(&context) != CUDA_SUCCESS || context == nullptr) die("no current CUDA context");

  const auto setup_start = Clock::now();
  RangeSession session(names, o.replay == "user");
  if (o.replay != "none")
    if (std::string why = session.open(context); !why.empty()) die(why);
  if (o.replay == "none")
    std::printf("GPU %s, no profiler, %s (%zu MiB buffers), %d kernel(s) per launch\n", prop.name, o.kernel.c_str(),
                o.mib, o.kernels_per_pass);
  else
    std::printf(
        "GPU %s (%s), metrics %s: %zu names, %zu passes; %s replay, %s (%zu MiB buffers), %d kernel(s) per pass%s; "
        "set-up %.1f ms\n",
        prop.name, session.chip().c_str(), o.metrics.c_str(), names.size(), session.passes(), o.replay.c_str(),
        o.kernel.c_str(), o.mib, o.kernels_per_pass, o.clean_l2 ? ", clean L2 before each pass" : "",
        ms_since(setup_start));

  for (int l = 0; l < o.launches; ++l) {
    const auto start = Clock::now();
    std::vector<double> pass_ms;
    if (o.replay == "none") {
      for (int k = 0; k < o.kernels_per_pass; ++k) launch();
    } else if (o.replay == "kernel") {
      session.start();
      for (int k = 0; k < o.kernels_per_pass; ++k) launch();
      session.stop();
    } else {
      check(cudaMemcpyAsync(b.saved, b.y, b.n * sizeof(float), cudaMemcpyDeviceToDevice), "save y");
      for (bool done = false; !done;) {
        const auto pass_start = Clock::now();
        if (!pass_ms.empty())
          check(cudaMemcpyAsync(b.y, b.saved, b.n * sizeof(float), cudaMemcpyDeviceToDevice), "restore y");
        if (o.clean_l2) {
          write_sweep<<<blocks, 256>>>(reinterpret_cast<uint4*>(b.scratch), b.scratch_bytes / sizeof(uint4));
          discard_lines<<<blocks, 256>>>(b.scratch, b.scratch_bytes / 128);
        }
        session.start();
        for (int k = 0; k < o.kernels_per_pass; ++k) launch();
        done = session.stop();
        pass_ms.push_back(ms_since(pass_start));
        if (pass_ms.size() > 64) die("CUPTI never reported all passes submitted");
      }
    }
    std::vector<double> values;
    if (o.replay != "none")
      if (std::string why = session.last_range(values); !why.empty()) die(why);
    check(cudaDeviceSynchronize(), "launch");
    std::printf("launch %d: %.2f ms", l, ms_since(start));
    if (!pass_ms.empty()) {
      std::printf("; %zu passes (ms):", pass_ms.size());
      for (double p : pass_ms) std::printf(" %.2f", p);
    }
    std::printf("\n");
    for (size_t i = 0; i < values.size(); ++i) std::printf("    %-70s %.6g\n", names[i].c_str(), values[i]);
  }

  // Every pass but the last ran on restored data, so y must be what the program alone computes.
  std::vector<float> out(b.n);
  check(cudaMemcpy(out.data(), b.y, b.n * sizeof(float), cudaMemcpyDeviceToHost), "D2H y");
  size_t wrong = 0;
  const int applied = o.launches * o.kernels_per_pass;
  for (size_t i = 0; i < b.n; ++i) {
    float expect = hy[i];
    if (o.kernel == "saxpy") {
      for (int a = 0; a < applied; ++a) expect = 2.0f * hx[i] + expect;
    } else if (i < size_t(b.side) * b.side) {
      expect = hx[(i % b.side) * b.side + i / b.side];
    }
    if (out[i] != expect) ++wrong;
  }
  std::printf("results: %zu of %zu values differ from the host's\n", wrong, b.n);
  return wrong == 0 ? 0 : 1;
}

// Helpers shared by the gpuscope samples: argument parsing, a steady clock, a deterministic
// PRNG, and (for .cu files only) CUDA error checks, device set-up and scoped NVTX ranges.
//
// Exit codes used by every sample, so test scripts can tell failures apart:
//   0 success · 1 wrong result · 2 CUDA error · 64 bad command line (EX_USAGE).
// Error checks are functions rather than macros (the call site passes a short description).
#pragma once

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace sample {

constexpr int kExitWrongResult = 1;
constexpr int kExitCudaError = 2;
constexpr int kExitUsage = 64;

// Samples are often piped into a capture tool or a test; line buffering means every printed line
// reaches the reader even if the process dies right after (see the crash sample).
inline void line_buffered_stdout() { std::setvbuf(stdout, nullptr, _IOLBF, 0); }

// ---- time -----------------------------------------------------------------------------------
inline int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
inline double ms_since(int64_t start_ns) { return double(now_ns() - start_ns) * 1e-6; }

// ---- deterministic pseudo-random numbers (splitmix64: tiny, good enough, same on every host) --
struct Rng {
  uint64_t state;
  explicit Rng(uint64_t seed) : state(seed) {}
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform integer in [0, n); the modulo bias is irrelevant for test data.
  uint64_t below(uint64_t n) { return next() % n; }
};

// ---- command line -----------------------------------------------------------------------------
// Options are looked up by name ("--iters 5" or "--iters=5"); finish() rejects anything left
// unconsumed, so a typo is an error instead of a silently ignored flag.
class Args {
 public:
  Args(int argc, char** argv, const char* usage) : usage_(usage) {
    for (int i = 1; i < argc; ++i) tokens_.push_back(argv[i]);
    used_.assign(tokens_.size(), false);
    if (find("--help") >= 0 || find("-h") >= 0) {
      std::printf("%s", usage_);
      std::exit(0);
    }
  }

  bool flag(const char* name) {
    int i = find(name);
    if (i < 0) return false;
    used_[i] = true;
    return true;
  }

  std::string text(const char* name, const std::string& fallback) {
    std::string value;
    return take_value(name, &value) ? value : fallback;
  }

  // Integer option with a lower bound; a malformed or out-of-range value ends the program.
  long long integer(const char* name, long long fallback, long long min_value) {
    std::string value;
    if (!take_value(name, &value)) return fallback;
    char* end = nullptr;
    errno = 0;
    long long v = std::strtoll(value.c_str(), &end, 10);
    if (errno != 0 || end == value.c_str() || *end != '\0' || v < min_value) {
      fail(std::string(name) + " expects an integer >= " + std::to_string(min_value) + ", got '" + value + "'");
    }
    return v;
  }

  void finish() {
    for (size_t i = 0; i < tokens_.size(); ++i)
      if (!used_[i]) fail("unknown argument '" + tokens_[i] + "'");
  }

  [[noreturn]] void fail(const std::string& message) const {
    std::fprintf(stderr, "error: %s\n%s", message.c_str(), usage_);
    std::exit(kExitUsage);
  }

 private:
  int find(const std::string& name) const {
    for (size_t i = 0; i < tokens_.size(); ++i)
      if (!used_[i] && (tokens_[i] == name || tokens_[i].rfind(name + "=", 0) == 0)) return int(i);
    return -1;
  }

  bool take_value(const char* name, std::string* out) {
    int i = find(name);
    if (i < 0) return false;
    used_[i] = true;
    const std::string& tok = tokens_[i];
    if (tok.size() > std::strlen(name)) {  // --name=value
      *out = tok.substr(std::strlen(name) + 1);
      return true;
    }
    if (size_t(i) + 1 >= tokens_.size()) fail(std::string(name) + " needs a value");
    used_[i + 1] = true;
    *out = tokens_[i + 1];
    return true;
  }

  const char* usage_;
  std::vector<std::string> tokens_;
  std::vector<bool> used_;
};

}  // namespace sample

// ---- CUDA helpers: only for translation units compiled by nvcc (spawn is plain C++) ------------
#ifdef __CUDACC__
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>  // NVTX3 is header-only: nothing to link

namespace sample {

// Every CUDA call in the samples goes through check(): a failure prints what was being done and
// the CUDA error name, then exits with kExitCudaError.
inline void check(cudaError_t status, const char* what) {
  if (status == cudaSuccess) return;
  std::fprintf(stderr, "CUDA ERROR: %s: %s (%s)\n", what, cudaGetErrorName(status), cudaGetErrorString(status));
  std::fflush(stdout);
  std::exit(kExitCudaError);
}

// After a <<<>>> launch: configuration errors are reported by cudaGetLastError.
inline void check_launch(const char* what) { check(cudaGetLastError(), what); }

// Prints device 0 and refuses GPUs older than sm_90 (the samples carry sm_90 SASS and compute_90
// PTX only). With create_context (the default) it also creates the context now, so that later
// timings and API records do not include it; without, the first allocation pays for it.
inline cudaDeviceProp init_device(const char* sample_name, bool create_context = true) {
  int count = 0;
  check(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
  if (count == 0) check(cudaErrorNoDevice, "no CUDA device visible");
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  int driver = 0, runtime = 0;
  check(cudaDriverGetVersion(&driver), "cudaDriverGetVersion");
  check(cudaRuntimeGetVersion(&runtime), "cudaRuntimeGetVersion");
  std::printf("%s: device 0: %s (sm_%d%d, %d SMs), driver CUDA %d.%d, runtime %d.%d\n", sample_name, prop.name,
              prop.major, prop.minor, prop.multiProcessorCount, driver / 1000, (driver % 1000) / 10, runtime / 1000,
              (runtime % 1000) / 10);
  if (prop.major < 9) {
    std::fprintf(stderr, "CUDA ERROR: %s needs compute capability 9.0 or newer (built for sm_90)\n", sample_name);
    std::exit(kExitCudaError);
  }
  if (create_context) {
    check(cudaSetDevice(0), "cudaSetDevice(0)");   // creates the primary context (CUDA 12+)
    check(cudaFree(nullptr), "context creation");  // and, on any runtime, so does this
  }
  return prop;
}

// Scoped NVTX push/pop range; the profiler nests these under the calling thread.
class NvtxRange {
 public:
  explicit NvtxRange(const char* name) { nvtxRangePushA(name); }
  ~NvtxRange() { nvtxRangePop(); }
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;
};

}  // namespace sample
#endif  // __CUDACC__

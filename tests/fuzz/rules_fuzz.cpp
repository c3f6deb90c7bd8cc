// `check` rule files (src/analysis/check_rules.cpp): TOML parsing and its strict validation, then
// the rules that parse evaluated over a small fixed trace (itself as the baseline) and their
// results rendered, JUnit XML included. Limits fuzzed into nan, inf or huge numbers reach the
// comparisons and the renderers this way.
#include "fuzz_target.h"
#include "gpuscope/check_report.h"
#include "importers/finalize.h"
#include "trace_builder.h"  // tests/unit

namespace {

// Kernels and copies the documented rules (docs/diff.md) match: gemm and spmm kernels with the
// metrics [[metric]] rules name, copies, API calls and an NVTX range, over 10 ms.
gpuscope::Trace fixed_trace() {
  using namespace gpuscope;
  testing::TraceBuilder b;
  b.run(0, 10'000'000).range("step", 100'000, 9'000'000);
  for (int i = 0; i < 8; ++i) {
    const TimeNs at = 200'000 + i * 1'000'000;
    b.kernel(i % 2 ? "gemm_kernel" : "bsr_spmm_kernel", at + 20'000, at + 400'000 + i * 1'000,
             b.api("cudaLaunchKernel", at, at + 10'000));
    b.copy(CopyKind::HtoD, MemoryKind::Pageable, 1 << 20, at + 500'000, at + 600'000,
           b.api("cudaMemcpy", at + 490'000, at + 610'000));
  }
  Trace& trace = b.trace();
  const StringId sm = trace.strings.intern("sm__throughput.avg.pct_of_peak_sustained_elapsed");
  const StringId dram = trace.strings.intern("dram__bytes_read.sum");
  for (const Kernel& k : trace.kernels) {
    trace.kernel_metrics.push_back({k.pid, k.correlation_id, sm, 80.0 + k.correlation_id});
    trace.kernel_metrics.push_back({k.pid, k.correlation_id, dram, 1e6 * k.correlation_id});
  }
  finalize_trace(trace);
  return trace;
}

}  // namespace

void gpuscope::fuzz::fuzz_one(std::string_view bytes) {
  static const Trace trace = fixed_trace();
  const check::GateSet rules = check::parse_rules(std::string(bytes), "rules.toml");
  const check::CheckResult result = check::evaluate(rules, trace, &trace, analysis::CompareOptions{});
  for (const ReportFormat& format : report_formats()) check::render_check(result, format);
  check::render_junit(result);
}

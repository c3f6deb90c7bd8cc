// Framework section: the ops (PyTorch ops and annotations) and the GPU time they launched. It
// appears only when the trace has host ops (a torch.profiler trace, a capture made with
// `profile --pytorch` or any trace of a program run under emit_nvtx). The steps have their own
// builder (build_steps.cpp).
#include <fmt/format.h>

#include <algorithm>

#include "gpuscope/analysis_host_ops.h"
#include "gpuscope/analysis_modules.h"
#include "report/builder.h"
#include "report/units.h"

namespace gpuscope::report {

namespace {

// Kernels shown per op in the op -> kernels table.
constexpr size_t kKernelsPerOp = 3;

Table ops_by_self(const analysis::HostOpSummary& summary, size_t top) {
  Table t;
  t.key = "ops_by_self_gpu";
  t.title = "Ops by self GPU time";
  t.columns = {text_column("name", "Op", TextStyle::Identifier),
               text_column("category", "Category"),
               num_column("calls", "Calls", Unit::Count),
               num_column("self_gpu", "Self GPU", Unit::Ns),
               num_column("self_gpu_percent", "Self %", Unit::Percent),
               num_column("total_gpu", "Total GPU", Unit::Ns),
               num_column("kernels", "Kernels", Unit::Count),
               num_column("cpu", "CPU time", Unit::Ns)};
  for (const analysis::OpGroup& g : summary.ops) {
    if (!(g.self_gpu_ns > 0)) break;  // sorted by self time: the rest launched nothing themselves
    t.rows.push_back(
        {text(g.name), text(g.category), num(static_cast<double>(g.calls), Unit::Count), num(g.self_gpu_ns, Unit::Ns),
         opt_num(analysis::share_percent(g.self_gpu_ns, summary.gpu_ns), Unit::Percent), num(g.total_gpu_ns, Unit::Ns),
         num(static_cast<double>(g.kernels), Unit::Count), num(g.cpu_ns, Unit::Ns)});
  }
  t.empty_text = "no GPU work is linked to an op";
  if (!t.rows.empty())
    t.notes.push_back(
        "Self GPU: kernels, copies and memsets the op launched itself; Total GPU: with those of the ops "
        "nested in it. Self %: share of all GPU work time. CPU time: the op's own span on its thread.");
  limit_rows(t, top);
  return t;
}

Table ops_by_total(const analysis::HostOpSummary& summary, size_t top) {
  std::vector<const analysis::OpGroup*> order;
  // Python frames (with_stack) hold every op below them: a call stack, not ops; left out here.
  for (const analysis::OpGroup& g : summary.ops)
    if (g.total_gpu_ns > 0 && g.category != "python_function") order.push_back(&g);
  std::stable_sort(order.begin(), order.end(), [](const analysis::OpGroup* a, const analysis::OpGroup* b) {
    return a->total_gpu_ns > b->total_gpu_ns;
  });
  Table t;
  t.key = "ops_by_total_gpu";
  t.title = "Ops by total GPU time (with nested ops)";
  t.columns = {text_column("name", "Op", TextStyle::Identifier), num_column("calls", "Calls", Unit::Count),
               num_column("total_gpu", "Total GPU", Unit::Ns),
               num_column("total_gpu_percent", "Total %", Unit::Percent), num_column("self_gpu", "Self GPU", Unit::Ns)};
  for (const analysis::OpGroup* g : order)
    t.rows.push_back({text(g->name), num(static_cast<double>(g->calls), Unit::Count), num(g->total_gpu_ns, Unit::Ns),
                      opt_num(analysis::share_percent(g->total_gpu_ns, summary.gpu_ns), Unit::Percent),
                      num(g->self_gpu_ns, Unit::Ns)});
  t.empty_text = "no GPU work is linked to an op";
  limit_rows(t, top);
  return t;
}

// Forward, backward and optimizer: where the training step's GPU time goes (analysis_host_ops.h).
Table phase_split(const analysis::HostOpSummary& summary) {
  Table t;
  t.key = "op_phases";
  t.title = "GPU time by phase";
  t.columns = {text_column("phase", "Phase"), num_column("gpu", "GPU time", Unit::Ns),
               num_column("gpu_percent", "GPU %", Unit::Percent), num_column("ops", "Op instances", Unit::Count)};
  static constexpr const char* kTitles[analysis::kOpPhases] = {"Forward", "Backward", "Optimizer"};
  for (size_t p = 0; p < analysis::kOpPhases; ++p) {
    const analysis::PhaseTotals& phase = summary.phases[p];
    t.rows.push_back({text(kTitles[p]), num(phase.gpu_ns, Unit::Ns),
                      opt_num(analysis::share_percent(phase.gpu_ns, summary.gpu_ns), Unit::Percent),
                      num(static_cast<double>(phase.op_instances), Unit::Count)});
  }
  const double outside = summary.gpu_ns - summary.linked_gpu_ns;
  t.rows.push_back({text("Not in any op"), num(outside, Unit::Ns),
                    opt_num(analysis::share_percent(outside, summary.gpu_ns), Unit::Percent), Cell{}});
  t.notes.push_back(
      "Backward: ops on a backward node (autograd::engine::evaluate_function, *Backward*, "
      "AccumulateGrad) and all ops in them; Optimizer: ops inside Optimizer.* ranges; Forward: the "
      "other ops. The rows add up to GPU work time.");
  return t;
}

Table op_kernels(const analysis::HostOpSummary& summary, size_t top) {
  Table t;
  t.key = "op_kernels";
  t.title = "Top kernels of the top ops";
  t.columns = {text_column("op", "Op", TextStyle::Identifier), text_column("kernel", "Kernel", TextStyle::Identifier),
               num_column("launches", "Launches", Unit::Count), num_column("gpu", "GPU time", Unit::Ns),
               num_column("op_percent", "% of op self", Unit::Percent)};
  size_t ops = 0;
  for (const analysis::OpGroup& g : summary.ops) {
    if (!(g.self_gpu_ns > 0) || (top && ops == top)) break;
    if (g.top_kernels.empty()) continue;  // copies and memsets only
    ++ops;
    for (size_t i = 0; i < g.top_kernels.size() && i < kKernelsPerOp; ++i) {
      const analysis::OpKernel& k = g.top_kernels[i];
      t.rows.push_back({text(g.name), text(k.name), num(static_cast<double>(k.launches), Unit::Count),
                        num(k.gpu_ns, Unit::Ns),
                        opt_num(analysis::share_percent(k.gpu_ns, g.self_gpu_ns), Unit::Percent)});
    }
  }
  t.empty_text = "no kernel is linked to an op";
  if (!t.rows.empty())
    t.notes.push_back(fmt::format("Up to {} kernels per op, launched by the op itself, by GPU time.", kKernelsPerOp));
  return t;
}

}  // namespace

std::optional<Section> build_ops_section(const Trace& trace, size_t top) {
  if (trace.host_ops.empty()) return std::nullopt;
  const analysis::HostOpSummary summary = analysis::summarize_host_ops(trace);
  Section s;
  s.key = "ops";
  const bool torch = trace.run.host_ops_source == kHostOpsFromTorchProfiler ||
                     trace.run.host_ops_source == kHostOpsFromNvtx || trace.run.host_ops_source == kHostOpsFromObserver;
  s.title = torch ? "PyTorch ops" : "Framework ops";
  if (trace.run.host_ops_source == kHostOpsFromNvtx)
    s.notes.push_back(
        "Ops from PyTorch's NVTX ranges (emit_nvtx, profile --pytorch); each CUDA call is linked to "
        "the innermost op range open on its thread.");
  if (trace.run.host_ops_source == kHostOpsFromObserver)
    s.notes.push_back(
        "Ops from torch's RecordFunction observer (profile --pytorch=ops); each CUDA call is linked to "
        "the innermost op open on its thread.");
  s.lines.push_back({"op_instances", "Op instances", num(static_cast<double>(summary.op_instances), Unit::Count), ""});
  s.lines.push_back({"gpu", "GPU work time", num(summary.gpu_ns, Unit::Ns), "kernels, copies and memsets, summed"});
  s.lines.push_back({"linked_gpu", "Linked to an op", num(summary.linked_gpu_ns, Unit::Ns), ""});
  s.lines.push_back({"linked_gpu_percent", "Linked share",
                     opt_num(analysis::share_percent(summary.linked_gpu_ns, summary.gpu_ns), Unit::Percent), ""});
  s.lines.push_back({"unlinked_activities", "GPU activities without an op",
                     num(static_cast<double>(summary.unlinked_activities), Unit::Count),
                     "no launch call, or launched outside every op"});
  s.tables.push_back(phase_split(summary));
  s.tables.push_back(ops_by_self(summary, top));
  s.tables.push_back(ops_by_total(summary, top));
  s.tables.push_back(op_kernels(summary, top));
  return s;
}

void add_top_framework_lines(Section& s, const Trace& trace) {
  constexpr size_t kShown = 3;
  const analysis::HostOpSummary ops = analysis::summarize_host_ops(trace);
  std::string top_ops;
  size_t shown = 0;
  for (const analysis::OpGroup& op : ops.ops) {
    if (shown == kShown || op.self_gpu_ns <= 0) break;
    top_ops += (shown++ ? ", " : "") + op.name + " " + format_duration(op.self_gpu_ns);
  }
  if (!top_ops.empty())
    s.lines.push_back({"top_ops", "Top ops (self GPU time)", text(top_ops),
                       "of " + format_duration(ops.gpu_ns) + " GPU time; see PyTorch ops"});
  const analysis::ModuleSummary modules = analysis::summarize_modules(trace);
  // The root module holds everything: name its children when it has any.
  const bool has_children = std::any_of(modules.modules.begin(), modules.modules.end(),
                                        [](const analysis::ModuleRow& m) {
                                          return m.path.find('.') != std::string::npos;
                                        });
  std::string top_modules;
  shown = 0;
  for (const analysis::ModuleRow& m : modules.modules) {
    if (shown == kShown) break;
    if (has_children && m.path.find('.') == std::string::npos) continue;
    top_modules += (shown++ ? ", " : "") + m.path + " " + format_duration(m.total_gpu_ns());
  }
  if (!top_modules.empty())
    s.lines.push_back(
        {"top_modules", "Top modules (GPU time)", text(top_modules), "forward + backward; see PyTorch modules"});
}

}  // namespace gpuscope::report

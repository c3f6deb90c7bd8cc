// The "PyTorch modules" section: each nn.Module path with the GPU time of its forward and
// backward passes (analysis_modules.h has the attribution rules). Only for traces with module
// ranges (`gpuscope profile --pytorch=modules`).
#include <fmt/format.h>

#include "gpuscope/analysis_modules.h"
#include "report/builder.h"

namespace gpuscope::report {

std::optional<Section> build_modules_section(const Trace& trace, size_t top) {
  const analysis::ModuleSummary summary = analysis::summarize_modules(trace);
  if (summary.modules.empty()) return std::nullopt;
  Section s;
  s.key = "modules";
  s.title = "PyTorch modules";
  s.lines.push_back({"modules", "Module paths", num(static_cast<double>(summary.modules.size()), Unit::Count), ""});
  s.lines.push_back({"backward_gpu", "Backward GPU time", num(summary.backward_gpu_ns, Unit::Ns), "all backward ops"});
  s.lines.push_back({"unpaired_backward_gpu", "Backward time with no module",
                     num(summary.unpaired_backward_gpu_ns, Unit::Ns),
                     "its backward node has no seq (AccumulateGrad) or pairs with no forward op inside a module"});

  Table t;
  t.key = "modules";
  t.title = "Modules by GPU time";
  t.columns = {
      text_column("path", "Module", TextStyle::Identifier), num_column("calls", "Calls", Unit::Count),
      num_column("forward_gpu", "Forward GPU", Unit::Ns),   num_column("backward_gpu", "Backward GPU", Unit::Ns),
      num_column("total_gpu", "Total GPU", Unit::Ns),       num_column("total_gpu_percent", "Total %", Unit::Percent)};
  for (const analysis::ModuleRow& m : summary.modules)
    t.rows.push_back({text(m.path), num(static_cast<double>(m.calls), Unit::Count), num(m.forward_gpu_ns, Unit::Ns),
                      num(m.backward_gpu_ns, Unit::Ns), num(m.total_gpu_ns(), Unit::Ns),
                      opt_num(analysis::share_percent(m.total_gpu_ns(), summary.gpu_ns), Unit::Percent)});
  t.notes.push_back(
      "Forward: GPU work launched by the ops inside the module's forward. Backward: GPU work of the "
      "backward nodes whose seq pairs with a forward op of the module. Both include nested modules; "
      "Total %: share of all GPU work time.");
  limit_rows(t, top);
  s.tables.push_back(std::move(t));
  return s;
}

}  // namespace gpuscope::report

// "Start-up": what the run spent before its first step (or, without steps, before its first
// kernel launch), split into what the trace can tell apart. The Recommendations and the
// Bottleneck judge the steady state when there are steps; this section is where start-up shows.
#include <fmt/format.h>

#include "gpuscope/analysis_startup.h"
#include "report/builder.h"
#include "report/units.h"

namespace gpuscope::report {

std::optional<Section> build_startup_section(const Trace& trace, const std::optional<analysis::SteadyState>& steady) {
  const std::optional<analysis::Startup> startup = analysis::analyze_startup(trace, steady);
  if (!startup) return std::nullopt;
  const analysis::Startup& u = *startup;
  const double length = static_cast<double>(u.length());
  const auto ns = [](TimeNs v) { return num(static_cast<double>(v), Unit::Ns); };
  const auto share = [&](TimeNs v) { return format_percent(100.0 * static_cast<double>(v) / length) + " of start-up"; };
  Section s;
  s.key = "startup";
  s.title = "Start-up";
  s.lines.push_back({"duration", "Start-up", ns(u.length()),
                     u.until_first_step ? "run start to the first step" : "run start to the first kernel launch"});
  s.lines.push_back({"wall_percent", "Share of wall time",
                     opt_num(analysis::share_percent(length, static_cast<double>(u.wall_ns)), Unit::Percent), ""});
  s.lines.push_back(
      {"before_cuda", "Before the first CUDA call", ns(u.before_cuda_ns),
       share(u.before_cuda_ns) + "; interpreter, imports, model build: host code the trace cannot see into"});
  s.lines.push_back({"context_creation", "CUDA context creation", ns(u.context_creation_ns),
                     share(u.context_creation_ns) + "; excess of the first call that needed a context"});
  s.lines.push_back({"loading", "Module and library loading", ns(u.loading_ns),
                     share(u.loading_ns) + "; " + plural(u.loading_calls, "call", "calls") +
                         " (cuModuleLoad*, cuLibraryLoad*, cudaFuncGetAttributes, library handles)"});
  s.lines.push_back({"other_cuda", "Other CUDA calls", ns(u.other_cuda_ns),
                     share(u.other_cuda_ns) + "; allocations, copies, launches"});
  s.lines.push_back({"host", "Host work between CUDA calls", ns(u.host_ns), share(u.host_ns)});
  s.lines.push_back({"gpu_busy", "GPU busy during start-up", ns(u.gpu_busy_ns),
                     "alongside the host time above, not part of its sum"});
  if (u.warmup_excess_ns) {
    s.lines.push_back({"first_step", "First step", ns(*u.first_step_ns), ""});
    s.lines.push_back({"steady_median", "Steady step (median)", ns(*u.steady_median_ns),
                       "steps 2.." + std::to_string(steady->steps)});
    std::string note = *u.warmup_excess_ns > 0 ? "paid once, in the first step" : "none: the first step was not slower";
    if (u.first_step_context_ns > 0)
      note += "; it created the CUDA context (" + format_duration(static_cast<double>(u.first_step_context_ns)) + ")";
    s.lines.push_back({"warmup", "Warm-up (first step - steady median)", ns(*u.warmup_excess_ns), note});
  }
  s.notes.push_back(
      u.until_first_step
          ? "Paid once: the Recommendations and the Bottleneck judge the steady state (steps 2..N) instead."
          : "Without steps, the Recommendations and the Bottleneck judge the whole run, start-up included.");
  return s;
}

}  // namespace gpuscope::report

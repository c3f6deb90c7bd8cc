// "Metric collection" lines in Data quality: how hardware-metric collection went in each
// process (Trace::metric_collections) — chip, passes, launches profiled and failed — or why it
// failed (a counter-permission error, an unsupported GPU), which never stops the trace itself.
// Nothing is added when the capture did not ask for metrics.
#include <fmt/format.h>

#include <algorithm>
#include <tuple>

#include "report/builder.h"
#include "report/units.h"

namespace gpuscope::report {
namespace {

bool ok(const MetricCollection& m) { return m.status == "ok"; }

std::string details(const MetricCollection& m) {
  std::string out = fmt::format("pid {}", m.pid);
  if (!m.chip.empty()) out += ", " + m.chip;
  if (m.kind == "kernel") {
    if (m.passes) out += ", " + plural(m.passes, "pass", "passes") + " per kernel";
    if (m.metrics) out += ", " + plural(m.metrics, "metric", "metrics");
    out += ", " + plural(m.kernels_profiled, "launch", "launches") + " profiled";
    if (m.kernels_failed) out += ", " + format_count(double(m.kernels_failed)) + " failed";
  } else {
    if (m.metrics) out += ", " + plural(m.metrics, "metric", "metrics");
    if (m.interval_ns) out += " every " + format_duration(double(m.interval_ns));
  }
  return out;
}

}  // namespace

void add_metric_collection_lines(Section& quality, const Trace& trace) {
  std::vector<const MetricCollection*> all;
  for (const MetricCollection& m : trace.metric_collections) all.push_back(&m);
  std::sort(all.begin(), all.end(), [](const MetricCollection* a, const MetricCollection* b) {
    return std::tie(a->run_id, a->pid, a->kind) < std::tie(b->run_id, b->pid, b->kind);
  });
  for (const MetricCollection* m : all) {
    const bool kernel = m->kind == "kernel";
    Line l;
    l.key = kernel ? "metric_collection" : "gpu_metric_sampling";
    l.label = kernel ? "Metric collection" : "GPU metric sampling";
    if (ok(*m)) {
      l.value = text(kernel && m->kernels_failed ? "partial" : "ok");
      l.note = details(*m);
      if (kernel && m->kernels_failed) l.note += ": failed launches have no metrics; their timings are in the trace";
    } else {
      l.value = text("failed");
      l.note = fmt::format("pid {}: {}; the trace was still captured, without {}", m->pid, m->status,
                           kernel ? "kernel metrics" : "GPU samples");
    }
    if (m->run_id) l.note += fmt::format(" (bench run {})", m->run_id);
    if (!m->source.empty()) l.note += "; from " + m->source;
    quality.lines.push_back(std::move(l));
  }
}

}  // namespace gpuscope::report

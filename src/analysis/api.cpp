// CUDA API summary: calls grouped by name, one table per domain (runtime,
// driver). Domains are kept apart because driver calls run inside runtime
// calls; adding them would count the same wall time twice.
#include <string>

#include "analysis/grouping.h"
#include "gpuscope/analysis.h"

namespace gpuscope::analysis {

std::vector<ApiSummary> summarize_api(const Trace& trace) {
  std::vector<ApiSummary> out;
  for (ApiDomain domain : {ApiDomain::Runtime, ApiDomain::Driver}) {
    detail::DurationGroups<std::string> groups;
    ApiSummary summary;
    summary.domain = domain;
    size_t calls = 0;
    for (const ApiCall& c : trace.api_calls) {
      if (c.domain != domain) continue;
      const std::string& name = trace.strings.get(c.name);
      TimeNs ns = duration(c.start, c.end);
      groups.add(name.empty() ? std::string("<unnamed call>") : name, ns);
      summary.total_ns += ns;
      ++calls;
    }
    if (calls == 0) continue;
    groups.for_each([&](const std::string& name, const Stats& stats) {
      summary.rows.push_back({name, stats});
    });
    detail::sort_by_total_then_name(
        summary.rows, [](const ApiGroup& g) { return g.duration.total; },
        [](const ApiGroup& g) { return g.name; });
    out.push_back(std::move(summary));
  }
  return out;
}

}  // namespace gpuscope::analysis

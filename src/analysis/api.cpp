// CUDA API summary: calls grouped by name, one table per domain (runtime,
// driver). Domains are kept apart because driver calls run inside runtime
// calls; adding them would count the same wall time twice.
#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "analysis/grouping.h"
#include "gpuscope/analysis.h"

namespace gpuscope::analysis {

std::vector<ApiSummary> summarize_api(const Trace& trace) {
  std::vector<ApiSummary> out;
  for (ApiDomain domain : {ApiDomain::Runtime, ApiDomain::Driver}) {
    detail::GroupsByName groups;                 // by string id
    std::vector<std::vector<double>> durations;  // per group
    ApiSummary summary;
    summary.domain = domain;
    size_t calls = 0;
    for (const ApiCall& c : trace.api_calls) {
      if (c.domain != domain) continue;
      const TimeNs ns = duration(c.start, c.end);
      const size_t g = groups.group(c.name, [&] {
        const std::string& name = trace.strings.get(c.name);
        return name.empty() ? std::string("<unnamed call>") : name;
      });
      if (g == durations.size()) durations.emplace_back();
      durations[g].push_back(static_cast<double>(ns));
      summary.total_ns = add_saturated(summary.total_ns, ns);
      ++calls;
    }
    if (calls == 0) continue;
    for (const auto& [name, g] : groups.names()) summary.rows.push_back({name, describe(std::move(durations[g]))});
    detail::sort_by_total_then_name(
        summary.rows, [](const ApiGroup& g) { return g.duration.total; }, [](const ApiGroup& g) { return g.name; });
    out.push_back(std::move(summary));
  }
  return out;
}

std::vector<ApiCountGroup> summarize_api_counts(const Trace& trace) {
  std::map<std::pair<ApiDomain, std::string>, ApiCountGroup> groups;
  for (const ApiCount& c : trace.api_counts) {
    ApiCountGroup& g = groups[{c.domain, trace.strings.get(c.name)}];
    g.name = trace.strings.get(c.name);
    g.domain = c.domain;
    g.calls += c.calls;
    g.total_ns += static_cast<double>(c.total_ns);
  }
  std::vector<ApiCountGroup> out;
  for (auto& [key, g] : groups) out.push_back(std::move(g));
  std::stable_sort(out.begin(), out.end(),
                   [](const ApiCountGroup& a, const ApiCountGroup& b) { return a.total_ns > b.total_ns; });
  return out;
}

std::set<std::string> api_traces(const Trace& trace) {
  std::set<std::string> seen;
  for (const Process& p : trace.processes)
    if (!p.api_trace.empty()) seen.insert(p.api_trace);
  return seen;
}

}  // namespace gpuscope::analysis

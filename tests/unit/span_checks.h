// Checks on a finding's evidence spans (Finding::spans) for rule tests: where they may lie, and
// their times as (start, end) pairs to compare with the records a test planted.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "gpuscope/analysis_rules.h"

namespace gpuscope::testing {

using SpanTimes = std::vector<std::pair<TimeNs, TimeNs>>;

inline SpanTimes span_times(const analysis::Finding& f) {
  SpanTimes out;
  for (const EvidenceSpan& s : f.spans) out.emplace_back(s.start, s.end);
  return out;
}

// Non-empty, at most kMaxEvidenceSpans, each inside the run [run.start, run.end] of one of the
// trace's processes, in time order.
inline void expect_spans_in_run(const analysis::Finding& f, const Trace& t) {
  SCOPED_TRACE(f.rule);
  EXPECT_FALSE(f.spans.empty());
  EXPECT_LE(f.spans.size(), analysis::kMaxEvidenceSpans);
  for (const EvidenceSpan& s : f.spans) {
    EXPECT_GT(s.start, 0);
    EXPECT_GE(s.start, t.run.start);
    EXPECT_LE(s.start, s.end);
    EXPECT_LE(s.end, t.run.end);
    EXPECT_TRUE(std::any_of(t.processes.begin(), t.processes.end(), [&](const Process& p) { return p.pid == s.pid; }))
        << "pid " << s.pid;
  }
  EXPECT_TRUE(std::is_sorted(f.spans.begin(), f.spans.end(),
                             [](const EvidenceSpan& a, const EvidenceSpan& b) { return a.start < b.start; }));
}

}  // namespace gpuscope::testing

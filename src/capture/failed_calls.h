// CUPTI and NVML calls that failed while the capture went on without what they were for
// (fail-open): a flush, the dropped-record count, an API name, a callback. Each failing call
// is said once on stderr ("gpuscope: cuptiActivityFlushAll returned CUPTI_ERROR_X: ...") and
// counted every time; the spool writer turns the counts into data-loss records, one per call
// (what = "failed_call:<call>", detail = the first message), so the report shows them too.
//
// Any thread may note a failure (CUPTI's callback threads included): it takes a mutex and
// copies a few strings, never waits on the writer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gpuscope::capture {

// `call` failed with `error` (its library's text for the status); `consequence` says what
// the capture lacks because of it.
void note_failed_call(const std::string& call, const std::string& error, const std::string& consequence);

struct FailedCall {
  std::string what;    // "failed_call:<call>"
  std::string detail;  // the first failure's message
  uint64_t count = 0;  // failures so far
};

// Every call that failed so far, with its count (for the writer's data-loss records).
std::vector<FailedCall> failed_calls();

}  // namespace gpuscope::capture

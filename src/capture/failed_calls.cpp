#include "capture/failed_calls.h"

#include <mutex>

#include "capture/log.h"

namespace gpuscope::capture {
namespace {

std::mutex g_mutex;

// Never destroyed: calls fail during process teardown too (the exit flush).
std::vector<FailedCall>& calls() {
  static auto* failed = new std::vector<FailedCall>;
  return *failed;
}

}  // namespace

void note_failed_call(const std::string& call, const std::string& error, const std::string& consequence) {
  const std::string what = "failed_call:" + call;
  {
    std::lock_guard lock(g_mutex);
    for (FailedCall& f : calls()) {
      if (f.what != what) continue;
      ++f.count;
      return;  // said once
    }
    calls().push_back({what, call + " returned " + error + ": " + consequence, 1});
  }
  log_line("%s returned %s: %s", call.c_str(), error.c_str(), consequence.c_str());
}

std::vector<FailedCall> failed_calls() {
  std::lock_guard lock(g_mutex);
  return calls();
}

}  // namespace gpuscope::capture

// Fault injection for the fake libraries (fake_cupti/, fake_nvml/): one place that decides
// whether a call of a fake fails, so each fake function needs a single line,
//   if (int rc = plan.check(__func__)) return rc;
// and the fault-injection matrix (fault_matrix_test.cpp) can fail any call of any fake.
//
// The plan comes from one environment variable per fake (FAKE_CUPTI_FAIL, FAKE_NVML_FAIL):
//   <function>[:<code>[:<nth>]][,<function>[:<code>[:<nth>]]...]
//   code  the status to return (default 999, the UNKNOWN error of both CUPTI and NVML)
//   nth   fail only the nth call (1-based) of that function; default: every call
// e.g. FAKE_CUPTI_FAIL=cuptiActivityFlushAll:13:2 fails the second flush with CUPTI_ERROR_NOT_READY.
//
// FAKE_FAULT_LOG=<file>: the first call of each function appends "called <fn>", and the first
// injected failure of each "failed <fn> <code>", so the test knows the fault was reached (a
// case whose fault never fired proves nothing). Written with open/write/close: no stdio, so
// the program's own buffered output is never touched.
#pragma once

#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>

namespace fake {

class FaultPlan {
 public:
  // `functions`: every function of the fake that calls check(), null-terminated; the test
  // enumerates the same list (fake_fault_functions), so it must be complete.
  FaultPlan(const char* env_var, const char* const* functions) : env_var_(env_var), functions_(functions) {}

  // The fake's one plan, which `get` returns: made once there and never destroyed (the capture
  // calls the fakes from its exit handler and threads). fork() waits while a thread is inside
  // check(), so a child never inherits mutex_ locked or an entry half made (the end-to-end tests'
  // programs fork while the capture's threads call the fakes).
  template <FaultPlan& (*get)()>
  static FaultPlan* make(const char* env_var, const char* const* functions) {
    pthread_atfork([] { get().mutex_.lock(); }, [] { get().mutex_.unlock(); }, [] { get().mutex_.unlock(); });
    return new FaultPlan(env_var, functions);
  }

  // 0: the call runs normally; otherwise the status it must return.
  int check(const char* function) {
    std::lock_guard lock(mutex_);
    if (!parsed_) parse();
    if (!listed(function)) {
      // A fake function missing from its list would never be part of the matrix.
      std::fprintf(stderr, "fault_plan: %s is not in the list of %s\n", function, env_var_);
      std::abort();
    }
    const int call = ++calls_[function];
    if (call == 1) log(std::string("called ") + function);
    auto it = faults_.find(function);
    if (it == faults_.end() || (it->second.nth != 0 && it->second.nth != call)) return 0;
    if (logged_failures_.insert(function).second)
      log(std::string("failed ") + function + " " + std::to_string(it->second.code));
    return it->second.code;
  }

 private:
  struct Fault {
    int code = 999;
    int nth = 0;  // 0: every call
  };

  bool listed(const char* function) const {
    for (const char* const* f = functions_; *f != nullptr; ++f)
      if (std::strcmp(*f, function) == 0) return true;
    return false;
  }

  void parse() {
    parsed_ = true;
    const char* text = std::getenv(env_var_);
    std::string spec = text ? text : "";
    size_t at = 0;
    while (at < spec.size()) {
      size_t end = spec.find(',', at);
      if (end == std::string::npos) end = spec.size();
      const std::string item = spec.substr(at, end - at);
      at = end + 1;
      Fault fault;
      const size_t colon = item.find(':');
      const std::string name = item.substr(0, colon);
      if (colon != std::string::npos) {
        // strtol stops at the second ':' (or the end): "13:2" gives 13, then the nth.
        char* rest = nullptr;
        fault.code = static_cast<int>(std::strtol(item.c_str() + colon + 1, &rest, 10));
        if (rest != nullptr && *rest == ':') fault.nth = static_cast<int>(std::strtol(rest + 1, nullptr, 10));
      }
      if (!name.empty()) faults_[name] = fault;
    }
    if (const char* path = std::getenv("FAKE_FAULT_LOG")) log_path_ = path;
  }

  void log(const std::string& line) const {
    if (log_path_.empty()) return;
    const int fd = ::open(log_path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) return;
    const std::string text = line + "\n";
    [[maybe_unused]] const ssize_t written = ::write(fd, text.data(), text.size());
    ::close(fd);
  }

  const char* env_var_;
  const char* const* functions_;
  std::mutex mutex_;
  bool parsed_ = false;
  std::map<std::string, Fault> faults_;
  std::map<std::string, int> calls_;
  std::set<std::string> logged_failures_;
  std::string log_path_;
};

}  // namespace fake

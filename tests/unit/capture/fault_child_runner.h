// Runs fault_child (the fault matrix's program) in a fresh process, with or without the
// capture, and collects what the matrix compares: exit status, stdout, the capture's
// "gpuscope:" lines, its spool, and which calls the fakes saw and failed (FAKE_FAULT_LOG).
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "capture_test_support.h"

extern char** environ;

namespace gpuscope::capture::test {

struct ChildRun {
  int status = -1;                         // wait status; -1: could not start
  bool hung = false;                       // killed after the time limit
  std::string out;                         // stdout
  std::vector<std::string> capture_lines;  // stderr lines starting "gpuscope:"
  std::string spool_path;                  // the capture's spool ("" when it wrote none)
  ReadSpool spool;                         // empty when the capture wrote none
  std::string spool_error;                 // a spool the reader could not parse
  std::set<std::string> called, failed;    // function names from FAKE_FAULT_LOG
};

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Runs `program` in `dir` (created), with the environment plus `env` (an empty value unsets).
inline ChildRun run_child(const std::string& program, const std::filesystem::path& dir,
                          const std::map<std::string, std::string>& env) {
  namespace fs = std::filesystem;
  fs::create_directories(dir);
  std::map<std::string, std::string> vars;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string item = *e;
    const size_t eq = item.find('=');
    if (eq != std::string::npos) vars[item.substr(0, eq)] = item.substr(eq + 1);
  }
  for (const auto& [key, value] : env) {
    if (value.empty()) vars.erase(key);
    else vars[key] = value;
  }
  vars["FAKE_FAULT_LOG"] = (dir / "calls.log").string();
  std::vector<std::string> items;
  for (const auto& [key, value] : vars) items.push_back(key + "=" + value);
  std::vector<char*> envp;
  for (std::string& item : items) envp.push_back(item.data());
  envp.push_back(nullptr);

  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  const std::string out_path = (dir / "stdout").string(), err_path = (dir / "stderr").string();
  posix_spawn_file_actions_addopen(&files, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&files, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::string argv0 = program;
  char* argv[] = {argv0.data(), nullptr};
  ChildRun run;
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, program.c_str(), &files, nullptr, argv, envp.data());
  posix_spawn_file_actions_destroy(&files);
  if (rc != 0) return run;

  // A capture that hangs the program is a failure too: give it 20 s (it takes ~0.1 s).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (waitpid(pid, &run.status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      run.hung = true;
      kill(pid, SIGKILL);
      waitpid(pid, &run.status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  run.out = read_text(out_path);
  std::istringstream err(read_text(err_path));
  for (std::string line; std::getline(err, line);)
    if (line.rfind("gpuscope:", 0) == 0) run.capture_lines.push_back(line);
  const fs::path spool = dir / ("cap." + std::to_string(pid) + ".spool");
  try {
    if (fs::exists(spool)) {
      run.spool_path = spool.string();
      run.spool = read_spool(run.spool_path);
    }
  } catch (const std::exception& e) {
    run.spool_error = e.what();
  }
  std::istringstream log(read_text(dir / "calls.log"));
  for (std::string verb, name, code; log >> verb >> name;) {
    if (verb == "called") run.called.insert(name);
    if (verb == "failed" && log >> code) run.failed.insert(name);
  }
  return run;
}

// Whether the capture said, on stderr or anywhere in its spool (capture status, data-loss and
// metric-status records), that `call` failed with the error `error_texts` names (any of them).
inline bool reason_shown(const ChildRun& run, const std::string& call, const std::vector<std::string>& error_texts) {
  // NVML's versioned symbols go by their plain name in messages: nvmlInit_v2 is "nvmlInit".
  const std::string plain = call.size() > 3 && call.compare(call.size() - 3, 3, "_v2") == 0
                                ? call.substr(0, call.size() - 3)
                                : call;
  auto names = [&](const std::string& text) {
    if (text.find(plain) == std::string::npos) return false;
    for (const std::string& error : error_texts)
      if (text.find(error) != std::string::npos) return true;
    return false;
  };
  for (const std::string& line : run.capture_lines)
    if (names(line)) return true;
  for (const auto& [id, text] : run.spool.texts)
    if (names(text)) return true;
  for (const auto& [id, text] : run.spool.strings)
    if (names(text)) return true;
  return false;
}

}  // namespace gpuscope::capture::test

// Runs a fuzz target (fuzz_target.h) where there is no libFuzzer: over every file named or found
// under the folders named, each as it is and in deterministic mutations that real damage looks
// like: cut short at 16 places, 16 single bytes changed, a 64-byte stretch zeroed. A crash, a
// sanitizer report or an exception other than gpuscope::Error fails the run. It prints how many
// unchanged files were read and how many refused, and fails when every one was refused: a target
// that refuses everything for one trivial reason (a scratch file it cannot write, a wrong format
// name) would otherwise pass while testing nothing. An input still running after
// kSecondsPerInput is a hang: it is named and the run fails. Exit 77 (skipped) when no file is there.
//   gpuscope_NAME_fuzz_replay PATH...
#include <signal.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "common/error.h"
#include "fuzz_target.h"

namespace {

// The slowest input takes well under a second in a sanitizer build on a loaded 2-core machine.
constexpr unsigned kSecondsPerInput = 30;
char running_input[1024];  // what the alarm names: written before each input, read by the handler

void name_the_hang(int) {
  static const char kWhat[] = "FINDING: hang: an input ran past its time limit: ";
  (void)!write(STDOUT_FILENO, kWhat, sizeof kWhat - 1);
  (void)!write(STDOUT_FILENO, running_input, strnlen(running_input, sizeof running_input));
  (void)!write(STDOUT_FILENO, "\n", 1);
  _exit(1);
}

// true: read; false: refused with gpuscope::Error (said when `say_why`: an unchanged file). Any
// other exception is a finding: say which input it was and fail.
bool run(const std::string& bytes, const std::string& what, bool say_why = false) {
  std::snprintf(running_input, sizeof running_input, "%s", what.c_str());
  alarm(kSecondsPerInput);
  try {
    gpuscope::fuzz::fuzz_one(bytes);
    return true;
  } catch (const gpuscope::Error& e) {
    if (say_why) std::printf("refused %s: %s\n", what.c_str(), e.what());
    return false;
  } catch (const std::exception& e) {
    std::printf("FINDING: %s: exception %s\n", what.c_str(), e.what());
    std::exit(1);
  }
}

// Runs the file and its mutations; returns how many inputs ran.
size_t replay(const std::string& bytes, const std::string& name, size_t& read) {
  read += run(bytes, name, true) ? 1 : 0;
  size_t runs = 1;
  std::mt19937_64 random(bytes.size());  // the same mutations on every run
  for (int i = 1; i <= 16 && !bytes.empty(); ++i, ++runs)
    run(bytes.substr(0, bytes.size() * i / 17), name + " cut at " + std::to_string(bytes.size() * i / 17));
  for (int i = 0; i < 16 && !bytes.empty(); ++i, ++runs) {
    std::string changed = bytes;
    const size_t at = random() % changed.size();
    changed[at] = static_cast<char>(random());
    run(changed, name + " byte " + std::to_string(at) + " changed");
  }
  if (bytes.size() > 128) {
    std::string zeroed = bytes;
    const size_t at = random() % (bytes.size() - 64);
    std::fill(zeroed.begin() + static_cast<std::ptrdiff_t>(at), zeroed.begin() + static_cast<std::ptrdiff_t>(at + 64),
              '\0');
    run(zeroed, name + " zeroed at " + std::to_string(at)), ++runs;
  }
  return runs;
}

}  // namespace

int main(int argc, char** argv) {
  signal(SIGALRM, name_the_hang);
  std::vector<std::filesystem::path> files;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path path(argv[i]);
    if (std::filesystem::is_directory(path)) {
      for (const auto& entry : std::filesystem::recursive_directory_iterator(path))
        if (entry.is_regular_file()) files.push_back(entry.path());
    } else if (std::filesystem::is_regular_file(path)) {
      files.push_back(path);
    }
  }
  if (files.empty()) {
    std::printf("skipped: none of the seed paths is there\n");
    return 77;
  }
  size_t runs = 0, read = 0;
  for (const auto& file : files) {
    std::ifstream in(file, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    runs += replay(bytes, file.string(), read);
  }
  std::printf(
      "%zu inputs from %zu files ran without a finding; of the unchanged files %zu were read, %zu "
      "refused\n",
      runs, files.size(), read, files.size() - read);
  return read == 0 ? 1 : 0;
}

// Runs the fuzz target (import_fuzz.cpp) where there is no libFuzzer: over every file named or
// found under the folders named, each as it is and in deterministic mutations that real damage
// looks like: cut short at 16 places, 16 single bytes changed, a 64-byte stretch zeroed. A
// crash, a sanitizer report or an exception other than gpuscope::Error fails the run. It prints
// how many inputs imported and how many were refused (one-line errors), so a run that refuses
// everything for one trivial reason shows.
//   import_fuzz_replay PATH...
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "importers/importer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

size_t imported = 0, refused = 0;

void run(const std::string& bytes) {
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
}

size_t replay(const std::string& bytes) {
  size_t runs = 0;
  gpuscope::Trace trace;  // the original once more, to count what reads
  (gpuscope::import_bytes(bytes, trace).empty() ? imported : refused) += 1;
  run(bytes), ++runs;
  std::mt19937_64 random(bytes.size());  // the same mutations on every run
  for (int i = 1; i <= 16 && !bytes.empty(); ++i) run(bytes.substr(0, bytes.size() * i / 17)), ++runs;
  for (int i = 0; i < 16 && !bytes.empty(); ++i) {
    std::string changed = bytes;
    changed[random() % changed.size()] = static_cast<char>(random());
    run(changed), ++runs;
  }
  if (bytes.size() > 128) {
    std::string zeroed = bytes;
    const size_t at = random() % (bytes.size() - 64);
    std::fill(zeroed.begin() + static_cast<std::ptrdiff_t>(at), zeroed.begin() + static_cast<std::ptrdiff_t>(at + 64), '\0');
    run(zeroed), ++runs;
  }
  return runs;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::filesystem::path> files;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path path(argv[i]);
    if (std::filesystem::is_directory(path)) {
      for (const auto& entry : std::filesystem::recursive_directory_iterator(path))
        if (entry.is_regular_file()) files.push_back(entry.path());
    } else if (std::filesystem::is_regular_file(path)) {
      files.push_back(path);
    } else {
      std::printf("skipped %s: not there\n", argv[i]);
    }
  }
  size_t runs = 0;
  for (const auto& file : files) {
    std::ifstream in(file, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    runs += replay(bytes);
  }
  std::printf("%zu inputs from %zu files read without a crash; of the unchanged files %zu imported, %zu were "
              "refused (not a format gpuscope reads)\n", runs, files.size(), imported, refused);
  return files.empty() || imported == 0 ? 1 : 0;
}

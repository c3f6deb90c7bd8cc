// The fuzz target of every reader gpuscope has (importers/importer.h): bytes in, status out.
// Any file format the registry detects (capture, spool, nsys export, Kineto JSON, ncu CSV) is
// reached through import_bytes, which turns the bytes into a file and reads it as a command would.
// A gpuscope::Error is the expected answer to bad bytes; anything else escaping (another
// exception, a crash, a sanitizer report, a hang) is a finding.
//
// libFuzzer: cmake -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DGPUSCOPE_FUZZ=ON
//            cmake --build build-fuzz --target gpuscope_import_fuzzer
//            build-fuzz/tests/gpuscope_import_fuzzer CORPUS_DIR tests/data
// Without libFuzzer, tests/fuzz/replay_main.cpp runs this target over files and their
// deterministic mutations (ctest import_fuzz_replay).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "importers/importer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  gpuscope::Trace trace;
  gpuscope::import_bytes(std::string_view(reinterpret_cast<const char*>(data), size), trace);
  return 0;
}

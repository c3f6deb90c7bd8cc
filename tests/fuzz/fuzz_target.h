// What every fuzz target in this folder shares (docs/fuzzing.md). A target is one function,
// fuzz_one(bytes), in its own NAME_fuzz.cpp: bytes in, status out. It throws gpuscope::Error when
// the bytes are refused: that is the expected answer to bad input. Anything else escaping (another
// exception, a crash, a sanitizer report, a hang) is a finding.
//
// fuzz_support.cpp turns fuzz_one into libFuzzer's entry point; replay_main.cpp runs it without
// libFuzzer over seed files and their deterministic mutations (the smoke in `make test`).
#pragma once

#include <string>
#include <string_view>

#include "gpuscope/model.h"

namespace gpuscope::fuzz {

// Defined by each target. Throws gpuscope::Error when the bytes are refused.
void fuzz_one(std::string_view bytes);

// The bytes as this process's scratch file (one per process, rewritten on every call, removed at
// exit), for readers that take a path: SQLite cannot read from memory through our store.
const std::string& scratch_file(std::string_view bytes);

// The bytes read by the importer named `format` in the registry ("gpuscope", "spool", "nsys",
// "kineto", "ncu"), called directly so a target's inputs never drift into another format, and
// finished as load_trace finishes it.
Trace read_as(std::string_view format, std::string_view bytes);

// Everything `report` and `export` do with a trace: the analyses, the report model rendered in
// every format, and every export format.
void analyse_everything(const Trace& trace);

}  // namespace gpuscope::fuzz

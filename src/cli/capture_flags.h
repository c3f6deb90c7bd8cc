// The capture options' flags (capture/options.h) on a CLI11 command: `profile` takes them all,
// `bench` those that do not replay kernels. Values are checked after parsing by the table's own
// set_option(), so a flag and the capture library accept exactly the same values.
#pragma once

#include <CLI/CLI.hpp>

#include <deque>
#include <string>
#include <vector>

#include "capture/options.h"

namespace gpuscope::cli {

class CaptureFlags {
 public:
  // Adds every row of the table that `scope`'s command takes: Capture (bench) or ProfileOnly (profile, all).
  CaptureFlags(CLI::App& command, capture::OptionScope scope);

  // The options as given, checked one by one and together; throws Error with one line.
  capture::CaptureOptions options() const;

  // After parsing: what profile and bench run. `after_dashes`: the words after "--".
  struct Program {
    capture::CaptureOptions capture;
    std::vector<std::string> command;  // the program and its arguments
    std::string inject_library;        // $GPUSCOPE_INJECT_LIB; empty: found beside gpuscope
  };
  Program program(const CLI::App& command, const std::vector<std::string>& after_dashes) const;

 private:
  struct Flag {
    const capture::OptionSpec* spec;
    CLI::Option* option = nullptr;
    std::vector<std::string> values;  // what CLI11 read; one for all but a List
  };
  std::deque<Flag> flags_;  // stable addresses: CLI11 writes into `values`
};

}  // namespace gpuscope::cli

// Errors in the host-side tools (CLI, store, importers, analysis).
// These code paths throw gpuscope::Error with a one-line, user-facing message;
// the CLI's main catches it, prints "gpuscope: <message>" and exits non-zero.
// The injection library never throws (see src/capture).
#pragma once

#include <stdexcept>
#include <string>

#include "common/printable.h"

namespace gpuscope {

// The message goes through printable(): messages embed names read from files and given by users,
// and one with a newline would otherwise print as several lines.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(printable(message)) {}
};

}  // namespace gpuscope

// Errors in the host-side tools (CLI, store, importers, analysis).
// These code paths throw gpuscope::Error with a one-line, user-facing message;
// the CLI's main catches it, prints "gpuscope: <message>" and exits non-zero.
// The injection library never throws (see src/capture).
#pragma once

#include <stdexcept>
#include <string>

namespace gpuscope {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace gpuscope

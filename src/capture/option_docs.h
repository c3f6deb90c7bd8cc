// The capture options' words for people: a flag's --help line and docs/cli.md's table, both from
// the option table (options.h), so neither can drift from what the flags accept.
#pragma once

#include <string>

#include "capture/options.h"

namespace gpuscope::capture {

// The help line with its bounds and default, e.g. "How often ... (0..60000, default 500)".
std::string option_help(const OptionSpec& spec);

// The markdown table of every option `profile` and `bench` take (docs/cli.md holds a copy).
std::string capture_options_markdown();

}  // namespace gpuscope::capture

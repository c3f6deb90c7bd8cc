#include "cli/capture_flags.h"

#include "capture/option_docs.h"
#include "cli/commands.h"
#include "common/error.h"

namespace gpuscope::cli {

using capture::OptionScope;
using capture::OptionSpec;
using capture::OptionType;

CaptureFlags::CaptureFlags(CLI::App& command, OptionScope scope) {
  for (const OptionSpec& spec : capture::capture_option_table()) {
    const bool taken = spec.scope == OptionScope::Capture ||
                       (spec.scope == OptionScope::ProfileOnly && scope == OptionScope::ProfileOnly);
    if (!taken) continue;
    Flag& flag = flags_.emplace_back(Flag{&spec, nullptr, {}});
    const std::string name = capture::option_flag(spec), help = capture::option_help(spec);
    if (spec.type == OptionType::Switch) {
      flag.option = command.add_flag(name, help);
    } else if (spec.type == OptionType::List) {
      flag.option = command.add_option(name, flag.values, help)->type_name(spec.value_name);
    } else {
      flag.values.resize(1);
      flag.option = command.add_option(name, flag.values.front(), help)->type_name(spec.value_name);
      if (*spec.implicit) flag.option->expected(0, 1)->default_str(spec.implicit);
    }
  }
}

capture::CaptureOptions CaptureFlags::options() const {
  capture::CaptureOptions options;
  for (const Flag& flag : flags_) {
    if (flag.option->count() == 0) continue;
    const std::string name = capture::option_flag(*flag.spec);
    // A switch's flag says the opposite of its default.
    const std::vector<std::string> values = flag.spec->type == OptionType::Switch
                                                ? std::vector<std::string>{name.rfind("--no-", 0) == 0 ? "0" : "1"}
                                                : flag.values;
    for (const std::string& value : values)
      if (const std::string expected = capture::set_option(options, *flag.spec, value); !expected.empty())
        throw Error(name + ": expected " + expected + ", not '" + value + "'");
  }
  if (const std::string error = capture::check_combination(options); !error.empty()) throw Error(error);
  return options;
}

CaptureFlags::Program CaptureFlags::program(const CLI::App& command,
                                            const std::vector<std::string>& after_dashes) const {
  Program program{options(), command.remaining(), env_or_empty("GPUSCOPE_INJECT_LIB")};
  program.command.insert(program.command.end(), after_dashes.begin(), after_dashes.end());
  return program;
}

}  // namespace gpuscope::cli

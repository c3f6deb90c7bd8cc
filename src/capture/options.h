// The capture options, declared once. Each row of capture_option_table() is one option: its
// name (the config key; the CLI flag is derived from it), type, bounds, its field in
// CaptureOptions (whose initialiser is the default), the commands that take it and its help.
// From the table come `gpuscope profile`'s and `bench`'s flags (cli/capture_flags.cpp), the
// GPUSCOPE_INJECT_CONFIG string the CLI writes and the capture library parses (config.h), the
// run header's description and docs/cli.md's table (a test compares). Adding an option is a
// field, a row, and the code that acts on it.
//
// CUDA-free and CLI11-free: compiled into both the CLI and the injection library.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace gpuscope::capture {

// Every option as the user gives it (seconds are kept in ms). The initialisers are the defaults.
struct CaptureOptions {
  std::string spool;  // absolute path prefix of the spools: <spool>.<pid>.spool
  std::string cupti;  // libcupti.so to load when none is loaded; empty: search (cupti_loader.h)
  uint64_t buffer_kb = 8192;
  bool driver_api = false;
  bool driver_launches = true;
  bool nccl_calls = true;
  uint64_t flush_ms = 500;
  uint64_t sync_flush_ms = 10;
  std::string api = "core";
  std::string pytorch;        // ops, shapes or modules; empty: off
  std::string capture_range;  // cudaProfilerApi or nvtx:NAME[@DOMAIN]; empty: the whole run
  std::string capture_range_end = "stop";
  uint64_t delay_ms = 0, duration_ms = 0;
  std::string metric_sets;           // --metrics sol,memory
  std::vector<std::string> metrics;  // --metric NAME, the user's raw metrics
  bool source = false;               // --source: PC sampling with stall reasons
  uint64_t source_period = 0;        // PC sampling: a sample every 2^N cycles; 0: CUPTI's choice
  std::string kernel;                // regex choosing the kernels that get metrics or PC samples; empty: all
  uint64_t launch_skip = 0;
  uint64_t launch_count = 0;    // 0: every launch
  uint64_t gpu_metrics_hz = 0;  // 0: no GPU-wide sampling
  std::string gpu_metrics_source = "gpm";
};

enum class OptionType : uint8_t {
  Switch,   // bool: the flag --NAME turns on a default-off switch, --no-NAME turns off a default-on one
  Count,    // unsigned decimal within [min, max]
  Seconds,  // milliseconds within [min, max]; given and written as decimal seconds ("1.5")
  Choice,   // one word of `choices` ("full|lean")
  Text,     // any text; `check` may restrict it
  List,     // repeatable text; one value per use of the flag
};

// Who takes an option: profile and bench; profile alone; or only the capture library (no flag).
enum class OptionScope : uint8_t { Capture, ProfileOnly, LibraryOnly };

using OptionField = std::variant<bool CaptureOptions::*, uint64_t CaptureOptions::*, std::string CaptureOptions::*,
                                 std::vector<std::string> CaptureOptions::*>;

struct OptionSpec {
  const char* name;  // config key; the flag is --NAME with '_' as '-' (--no-NAME for a default-on switch)
  OptionType type;
  OptionField field;
  OptionScope scope = OptionScope::Capture;
  uint64_t min = 0, max = 0;    // Count, Seconds (ms)
  const char* choices = "";     // Choice: words separated by '|'
  const char* implicit = "";    // the value of the flag given without one ("" : a value is required)
  const char* value_name = "";  // in help and docs: N, S, REGEX ...
  const char* help = "";        // one line for --help
  const char* details = "";     // more for docs/cli.md (markdown), after the help
  // Text and List: "" when `value` is acceptable, else what is expected.
  std::string (*check)(std::string_view value) = nullptr;
};

const std::vector<OptionSpec>& capture_option_table();
const OptionSpec* find_capture_option(std::string_view name);

// "--flush-ms", "--no-nccl-calls".
std::string option_flag(const OptionSpec& spec);

// Sets the option from its text (the flag's value or the config's); "" or why not, e.g.
// "must be between 0 and 60000". A List appends.
std::string set_option(CaptureOptions& options, const OptionSpec& spec, std::string_view value);

// The option's value as text (as set_option reads it); empty for an empty Text or List.
std::string option_text(const CaptureOptions& options, const OptionSpec& spec);
bool is_default(const CaptureOptions& options, const OptionSpec& spec);

// Rules across options ("--kernel needs --metrics"); "" or the first broken one.
std::string check_combination(const CaptureOptions& options);

// The options the user changed, "name=value" separated by spaces, for the run header.
std::string describe(const CaptureOptions& options);

// Derived values the capture acts on.
// The per-kernel metrics to collect: the sets expanded, the raw ones added, and
// gpu__time_duration.sum first (a replayed kernel is placed on the timeline by it); empty: none.
std::vector<std::string> metric_names(const CaptureOptions& options);

// When recording happens: the whole run, between cudaProfilerStart/Stop, inside NVTX ranges, or on a timer.
struct RecordingWindow {
  enum class Kind : uint8_t { Whole, ProfilerApi, Nvtx, Timer } kind = Kind::Whole;
  std::string nvtx_message;                // Nvtx
  std::string nvtx_domain;                 // Nvtx; empty: the default domain
  bool repeat = false;                     // after the first range ends, record later ones too
  uint32_t repeat_limit = 0;               // with repeat: at most this many ranges; 0: no limit
  uint64_t delay_ms = 0, duration_ms = 0;  // Timer; duration 0: to the end
};
RecordingWindow recording_window(const CaptureOptions& options);

}  // namespace gpuscope::capture

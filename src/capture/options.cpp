#include "capture/options.h"

#include <algorithm>
#include <charconv>
#include <regex>

#include "gpuscope/metric_sets.h"

namespace gpuscope::capture {
namespace {

using O = CaptureOptions;
constexpr uint64_t kDayMs = 86'400'000;  // --delay/--duration bound: a day

std::string check_regex(std::string_view value) {
  if (value.empty()) return "a regular expression";
  try {
    std::regex check{std::string(value), std::regex::ECMAScript};
  } catch (const std::regex_error&) {
    return "a valid regular expression";
  }
  return "";
}

std::string check_metric_sets(std::string_view value) {
  std::vector<std::string> names;
  std::string error;
  if (!expand_metric_sets(value, {}, names, error)) return error;
  return names.empty() ? "comma-separated set names" : "";
}

std::string check_metric_name(std::string_view value) {
  std::vector<std::string> names;
  std::string error;
  if (value.empty() || value.find(',') != std::string_view::npos) return "one metric name";
  return expand_metric_sets("", {std::string(value)}, names, error) ? "" : error;
}

std::string check_spool(std::string_view value) {
  return !value.empty() && value.front() == '/' ? "" : "an absolute path prefix";
}

std::string check_path(std::string_view value) { return value.empty() ? "a path" : ""; }

// nvtx:NAME[@DOMAIN] split at the last '@'; false when it is not that form.
bool split_nvtx(std::string_view value, std::string& message, std::string& domain) {
  if (value.substr(0, 5) != "nvtx:") return false;
  value.remove_prefix(5);
  const size_t at = value.rfind('@');
  message = std::string(value.substr(0, at));
  domain = at == std::string_view::npos ? "" : std::string(value.substr(at + 1));
  return !message.empty() && (at == std::string_view::npos || !domain.empty());
}

std::string check_capture_range(std::string_view value) {
  std::string message, domain;
  return value == "cudaProfilerApi" || split_nvtx(value, message, domain) ? ""
                                                                          : "cudaProfilerApi or nvtx:NAME[@DOMAIN]";
}

// stop, repeat or repeat:N; the limit (0: none) in `limit`.
bool parse_range_end(std::string_view value, bool& repeat, uint32_t& limit) {
  repeat = value != "stop";
  limit = 0;
  if (value == "stop" || value == "repeat") return true;
  if (value.substr(0, 7) != "repeat:") return false;
  const std::string_view count = value.substr(7);
  const auto [end, ec] = std::from_chars(count.data(), count.data() + count.size(), limit);
  return ec == std::errc() && end == count.data() + count.size() && limit >= 1;
}

std::string check_range_end(std::string_view value) {
  bool repeat = false;
  uint32_t limit = 0;
  return parse_range_end(value, repeat, limit) ? "" : "stop, repeat or repeat:N with N >= 1";
}

// Whole-string unsigned decimal.
bool parse_u64(std::string_view text, uint64_t& out) {
  if (text.empty()) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

// Decimal seconds ("2", "1.5", "0.001") to whole ms, rounded; false when not that form.
bool parse_seconds(std::string_view text, uint64_t& ms) {
  const size_t dot = text.find('.');
  uint64_t whole = 0;
  if (!parse_u64(text.substr(0, dot), whole) || whole > kDayMs) return false;
  ms = whole * 1000;
  if (dot == std::string_view::npos) return true;
  const std::string_view fraction = text.substr(dot + 1);
  if (fraction.empty() || fraction.find_first_not_of("0123456789") != std::string_view::npos) return false;
  uint64_t thousandths = 0;
  for (size_t i = 0; i < 3; ++i) thousandths = thousandths * 10 + (i < fraction.size() ? fraction[i] - '0' : 0);
  ms += thousandths + (fraction.size() > 3 && fraction[3] >= '5' ? 1 : 0);
  return true;
}

std::string seconds_text(uint64_t ms) {
  std::string text = std::to_string(ms / 1000);
  if (const uint64_t rest = ms % 1000; rest != 0) {
    std::string fraction = std::to_string(1000 + rest).substr(1);
    fraction.erase(fraction.find_last_not_of('0') + 1);
    text += "." + fraction;
  }
  return text;
}

bool is_choice(std::string_view choices, std::string_view value) {
  while (true) {
    const size_t bar = choices.find('|');
    if (choices.substr(0, bar) == value) return true;
    if (bar == std::string_view::npos) return false;
    choices.remove_prefix(bar + 1);
  }
}

}  // namespace

const std::vector<OptionSpec>& capture_option_table() {
  static const std::vector<OptionSpec> table = [] {
    std::vector<OptionSpec> t;
    OptionScope scope = OptionScope::LibraryOnly;  // of the rows added next
    auto add = [&t, &scope](const char* name, OptionType type, OptionField field, const char* value_name,
                            const char* help, const char* details = "") -> OptionSpec& {
      OptionSpec& spec = t.emplace_back(OptionSpec{name, type, field, scope});
      spec.value_name = value_name;
      spec.help = help;
      spec.details = details;
      return spec;
    };
    add("spool", OptionType::Text, &O::spool, "PREFIX", "where the spools go: PREFIX.<pid>.spool").check = check_spool;
    add("cupti", OptionType::Text, &O::cupti, "PATH", "the libcupti.so to load when none is loaded").check = check_path;
    add("gpu_metrics_source", OptionType::Choice, &O::gpu_metrics_source, "gpm|pm",
        "what samples --gpu-metrics: NVML GPM, or CUPTI's PM sampling (unsafe with CUDA 13.0; for investigating it "
        "only)")
        .choices = "gpm|pm";

    scope = OptionScope::Capture;
    add("driver_api", OptionType::Switch, &O::driver_api, "",
        "Also trace every CUDA driver API call (without it, only the driver's launch functions)",
        "More records, more overhead.");
    add("driver_launches", OptionType::Switch, &O::driver_launches, "",
        "Do not trace the driver API's launch functions (library kernels then have no launch call)",
        "Kernels that libraries (cuBLAS, cuDNN, NCCL, Triton) launch through the driver then have no launch call "
        "([capture.md](capture.md#library-kernels-and-the-driver-api)).");
    add("nccl_calls", OptionType::Switch, &O::nccl_calls, "",
        "Do not record NCCL's calls (the sizes behind the collectives' bandwidth)",
        "The Ranks section then has no collective bandwidth ([capture.md](capture.md#nccl-calls)).");
    OptionSpec& flush = add("flush_ms", OptionType::Count, &O::flush_ms, "N",
                            "How often captured records reach the disk, in ms; 0: only when a buffer is full",
                            "A crash loses at most about this much.");
    flush.min = 0, flush.max = 60000;
    OptionSpec& buffer = add(
        "buffer_kb", OptionType::Count, &O::buffer_kb, "KIB",
        "Size of one CUPTI activity buffer in KiB; the buffers in use hold at most 256 MiB",
        "CUPTI fills a buffer per thread that launches work and hands it over full or at a flush. "
        "Smaller buffers cost less memory in a program with many such threads; when all 256 MiB "
        "are in use CUPTI drops records, which the report counts ([capture.md](capture.md#data-loss-is-data)).");
    buffer.min = 64, buffer.max = 262144;
    OptionSpec& sync = add("sync_flush_ms", OptionType::Count, &O::sync_flush_ms, "N",
                           "Hand CUPTI's finished records over when a synchronization returns, at most every N ms "
                           "(0: at every one): a GPU fault then keeps the times of what ran before it",
                           "A GPU fault (an illegal address) takes the times of every record CUPTI still holds; this "
                           "bounds the loss to the last N ms ([capture.md](capture.md#gpu-faults)).");
    sync.min = 0, sync.max = 60000;
    add("api", OptionType::Choice, &O::api, "core|full|lean",
        "core: only the calls the analyses use (launches, copies, memsets, synchronizations, allocations, module "
        "loading, context set-up), recorded by gpuscope's own callbacks; full: record every CUDA API call; lean: "
        "every call, but pure queries (cudaGetDevice, cudaGetLastError, ...) only counted and timed",
        "core costs least ([capture.md](capture.md#the-core-api-trace---api-core)); full is for the API table of "
        "every call; lean gives smaller traces than full, not faster ones "
        "([capture.md](capture.md#the-lean-api-trace---api-lean)).")
        .choices = "core|full|lean";
    OptionSpec& pytorch = add(
        "pytorch", OptionType::Choice, &O::pytorch, "LEVEL",
        "Python programs using PyTorch: name every kernel's op (ops), with input shapes (shapes), and nn.Module "
        "paths (modules); no change to the program",
        "The report then has PyTorch ops (self/total GPU time, op → kernels, forward/backward/optimizer split) and "
        "PyTorch modules sections. ops uses a RecordFunction observer built with g++ against the program's torch "
        "at first use and cached ([capture.md](capture.md#pytorch-ops-and-modules---pytorch)).");
    pytorch.choices = "ops|shapes|modules", pytorch.implicit = "ops";
    add("capture_range", OptionType::Text, &O::capture_range, "cudaProfilerApi|nvtx:NAME[@DOMAIN]",
        "Record only between cudaProfilerStart/Stop (e.g. torch.cuda.profiler.start/stop) or inside NVTX push/pop "
        "ranges named NAME")
        .check = check_capture_range;
    add("capture_range_end", OptionType::Text, &O::capture_range_end, "stop|repeat[:N]",
        "After the first range: stop recording, or record every later range too (at most N)")
        .check = check_range_end;
    OptionSpec& delay = add("delay", OptionType::Seconds, &O::delay_ms, "S",
                            "Record only from S seconds after CUDA starts (not with --capture-range)");
    delay.min = 0, delay.max = kDayMs;
    OptionSpec& duration = add("duration", OptionType::Seconds, &O::duration_ms, "S",
                               "Record for S seconds only (with or without --delay; not with --capture-range)");
    duration.min = 0, duration.max = kDayMs;
    OptionSpec& hz = add(
        "gpu_metrics", OptionType::Count, &O::gpu_metrics_hz, "RATE",
        "Sample GPU-wide counters (GPU, SM, occupancy, tensor and FP pipes, DRAM, PCIe) over the run "
        "with NVML GPM, at most RATE samples/s (default when given: 10). Hopper or newer; not with "
        "--metrics",
        "GPM's counters advance every ~100 ms on an H100, so faster rates give no more. The report's "
        "*GPU utilization* section shows them ([metrics.md](metrics.md#gpu-wide-samples---gpu-metrics)).");
    hz.min = 1, hz.max = 20000, hz.implicit = "10";

    // Per-kernel metrics replay every kernel: profile only, since bench measures the program's own times.
    scope = OptionScope::ProfileOnly;
    add("metrics", OptionType::Text, &O::metric_sets, "SETS",
        "Per-kernel hardware metrics (kernel replay): sets sol, memory, compute, occupancy, stalls, roofline or full, "
        "comma-separated",
        "`gpu__time_duration.sum` is always added: CUPTI leaves a replayed kernel's timestamps empty, and the import "
        "places it at the end of its launch call with that duration. The profiler's own time is cut out of the "
        "timeline ([metrics.md](metrics.md), [report.md](report.md#metric-collection-time)).")
        .check = check_metric_sets;
    add("metric", OptionType::List, &O::metrics, "NAME",
        "Also collect this raw metric (repeatable), e.g. dram__bytes_read.sum; see `gpuscope metrics --list`",
        "Unlike the sets' metrics, which a non-Hopper chip may lack and then skips, a `--metric` the chip lacks "
        "stops collection with its name ([metrics.md](metrics.md#the-sets)).")
        .check = check_metric_name;
    add("source", OptionType::Switch, &O::source, "",
        "Sample warp PCs with their stall reasons (CUPTI PC sampling): the report's Source section names each "
        "sampled kernel's hottest source lines and SASS instructions; build with -lineinfo for lines",
        "Continuous sampling: kernels are not serialized or replayed. The cubins of the sampled modules are kept "
        "in the capture; SASS and source lines are read from them when the report is made "
        "([capture.md](capture.md#source-lines-and-stall-reasons---source)).");
    OptionSpec& period = add("source_period", OptionType::Count, &O::source_period, "N",
                             "PC sampling: one sample every 2^N cycles per SM sub-partition, N from 5 to 31 "
                             "(default: CUPTI's choice for the GPU)");
    period.min = 5, period.max = 31;
    add("kernel", OptionType::Text, &O::kernel, "REGEX",
        "Metrics or PC samples only for kernels whose name (mangled or demangled) matches this ECMAScript regex")
        .check = check_regex;
    OptionSpec& skip = add("launch_skip", OptionType::Count, &O::launch_skip, "N",
                           "Metrics: skip the first N matching kernel launches (as ncu's -s)");
    skip.min = 0, skip.max = UINT64_MAX;
    OptionSpec& count = add("launch_count", OptionType::Count, &O::launch_count, "N",
                            "Metrics: then measure at most N launches (as ncu's -c)");
    count.min = 1, count.max = UINT64_MAX;
    return t;
  }();
  return table;
}

const OptionSpec* find_capture_option(std::string_view name) {
  for (const OptionSpec& spec : capture_option_table())
    if (name == spec.name) return &spec;
  return nullptr;
}

std::string option_flag(const OptionSpec& spec) {
  std::string flag = spec.name;
  for (char& c : flag)
    if (c == '_') c = '-';
  const bool default_on = spec.type == OptionType::Switch && CaptureOptions().*std::get<bool O::*>(spec.field);
  return (default_on ? "--no-" : "--") + flag;
}

std::string set_option(CaptureOptions& options, const OptionSpec& spec, std::string_view value) {
  switch (spec.type) {
    case OptionType::Switch: {
      if (value != "0" && value != "1") return "0 or 1";
      options.*std::get<bool O::*>(spec.field) = value == "1";
      return "";
    }
    case OptionType::Count:
    case OptionType::Seconds: {
      uint64_t number = 0;
      const bool seconds = spec.type == OptionType::Seconds;
      const bool parsed = seconds ? parse_seconds(value, number) : parse_u64(value, number);
      if (!parsed || number < spec.min || number > spec.max) {
        if (seconds) return "a number of seconds between " + seconds_text(spec.min) + " and " + seconds_text(spec.max);
        return spec.max == UINT64_MAX ? "a count of at least " + std::to_string(spec.min)
                                      : "between " + std::to_string(spec.min) + " and " + std::to_string(spec.max);
      }
      if (seconds && number == 0 && value.find_first_not_of("0.") != std::string_view::npos) return "at least 0.001 s";
      options.*std::get<uint64_t O::*>(spec.field) = number;
      return "";
    }
    case OptionType::Choice: {
      if (!is_choice(spec.choices, value)) {
        std::string words = spec.choices;
        for (char& c : words)
          if (c == '|') c = ',';
        return "one of " + words;
      }
      options.*std::get<std::string O::*>(spec.field) = std::string(value);
      return "";
    }
    case OptionType::Text:
    case OptionType::List: {
      if (spec.check != nullptr)
        if (std::string expected = spec.check(value); !expected.empty()) return expected;
      if (spec.type == OptionType::Text) options.*std::get<std::string O::*>(spec.field) = std::string(value);
      else (options.*std::get<std::vector<std::string> O::*>(spec.field)).emplace_back(value);
      return "";
    }
  }
  return "a value";
}

std::string option_text(const CaptureOptions& options, const OptionSpec& spec) {
  switch (spec.type) {
    case OptionType::Switch: return options.*std::get<bool O::*>(spec.field) ? "1" : "0";
    case OptionType::Count: return std::to_string(options.*std::get<uint64_t O::*>(spec.field));
    case OptionType::Seconds: return seconds_text(options.*std::get<uint64_t O::*>(spec.field));
    case OptionType::Choice:
    case OptionType::Text: return options.*std::get<std::string O::*>(spec.field);
    case OptionType::List: {
      std::string text;
      for (const std::string& item : options.*std::get<std::vector<std::string> O::*>(spec.field))
        text += (text.empty() ? "" : ",") + item;
      return text;
    }
  }
  return "";
}

bool is_default(const CaptureOptions& options, const OptionSpec& spec) {
  static const CaptureOptions defaults;
  return std::visit([&](auto field) { return options.*field == defaults.*field; }, spec.field);
}

std::string check_combination(const CaptureOptions& o) {
  const bool metrics = !o.metric_sets.empty() || !o.metrics.empty();
  if (!metrics && (o.launch_skip > 0 || o.launch_count > 0))
    return "--launch-skip and --launch-count choose kernels for --metrics/--metric; give one of those";
  if (!metrics && !o.source && !o.kernel.empty())
    return "--kernel chooses kernels for --metrics/--metric or --source; give one of those";
  if (o.source_period > 0 && !o.source) return "--source-period needs --source";
  // CUPTI runs PC sampling and the range profiler in one process only one at a time.
  if (metrics && o.source) return "--source and --metrics/--metric cannot be combined: profile twice";
  // Kernel replay serializes the GPU and replays each kernel many times: GPU-wide samples of
  // such a run would describe the replay, not the program.
  if (metrics && o.gpu_metrics_hz > 0)
    return "--gpu-metrics and --metrics/--metric cannot be combined: kernel replay changes what the GPU does over "
           "time; profile twice";
  if (o.capture_range_end != "stop" && o.capture_range.empty()) return "--capture-range-end needs --capture-range";
  if ((o.delay_ms > 0 || o.duration_ms > 0) && !o.capture_range.empty())
    return "--delay and --duration cannot be combined with --capture-range";
  return "";
}

std::string describe(const CaptureOptions& options) {
  std::string text;
  for (const OptionSpec& spec : capture_option_table()) {
    if (spec.scope == OptionScope::LibraryOnly || is_default(options, spec)) continue;
    text += (text.empty() ? "" : " ") + std::string(spec.name) + "=" + option_text(options, spec);
  }
  return text;
}

std::vector<std::string> metric_names(const CaptureOptions& options) {
  std::vector<std::string> names;
  std::string error;
  if (options.metric_sets.empty() && options.metrics.empty()) return names;
  if (!expand_metric_sets(options.metric_sets, options.metrics, names, error)) return {};
  const std::string duration = "gpu__time_duration.sum";
  if (std::find(names.begin(), names.end(), duration) == names.end()) names.insert(names.begin(), duration);
  return names;
}

RecordingWindow recording_window(const CaptureOptions& options) {
  RecordingWindow window;
  if (options.capture_range == "cudaProfilerApi") window.kind = RecordingWindow::Kind::ProfilerApi;
  else if (split_nvtx(options.capture_range, window.nvtx_message, window.nvtx_domain))
    window.kind = RecordingWindow::Kind::Nvtx;
  else if (options.delay_ms > 0 || options.duration_ms > 0) window.kind = RecordingWindow::Kind::Timer;
  parse_range_end(options.capture_range_end, window.repeat, window.repeat_limit);
  window.delay_ms = options.delay_ms;
  window.duration_ms = options.duration_ms;
  return window;
}

}  // namespace gpuscope::capture

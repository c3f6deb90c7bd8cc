// Number formatting for people (see units.h). Deterministic: fmt rounds the
// exact binary value, independent of locale.
#include "report/units.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <string_view>

namespace gpuscope::report {
namespace {

struct Scale {
  double divisor;
  std::string_view suffix;
};

std::string fixed(double x, int decimals) { return fmt::format("{:.{}f}", x, decimals); }

// Formats `value` (>= 0, finite) in the first scale whose rounded result stays
// below 1000 (the last scale takes anything). scales[0] is the base unit and is
// shown without decimals. `decimals(x)` picks the precision for a scaled x,
// and is re-applied after rounding so "99.996" becomes "100.0", not "100.00".
template <size_t N, typename DecimalsFn>
std::string scaled(double value, const Scale (&scales)[N], DecimalsFn decimals) {
  if (std::round(value) < 1000.0) return fmt::format("{:.0f} {}", value, scales[0].suffix);
  for (size_t i = 1; i < N; ++i) {
    double x = value / scales[i].divisor;
    int d = decimals(x);
    std::string s = fixed(x, d);
    double shown = std::strtod(s.c_str(), nullptr);
    if (decimals(shown) != d) {
      d = decimals(shown);
      s = fixed(x, d);
      shown = std::strtod(s.c_str(), nullptr);
    }
    if (shown < 1000.0 || i + 1 == N) return s + " " + std::string(scales[i].suffix);
  }
  return {};  // unreachable: the last scale always returns
}

template <typename Fn>
std::string signed_format(double v, Fn positive) {
  if (!std::isfinite(v)) return "-";
  if (v < 0) return "-" + positive(-v);
  return positive(v);
}

}  // namespace

std::string format_duration(double ns) {
  static constexpr Scale kScales[] = {{1, "ns"}, {1e3, "\u00b5s"}, {1e6, "ms"}, {1e9, "s"}};
  return signed_format(ns, [](double v) { return scaled(v, kScales, [](double x) { return x < 100 ? 2 : 1; }); });
}

std::string format_bytes(double bytes) {
  static constexpr Scale kScales[] = {{1, "B"}, {1e3, "KB"}, {1e6, "MB"}, {1e9, "GB"}, {1e12, "TB"}, {1e15, "PB"}};
  return signed_format(bytes, [](double v) { return scaled(v, kScales, [](double) { return 2; }); });
}

std::string format_bandwidth(double bps) {
  static constexpr Scale kScales[] = {{1, "B/s"}, {1e3, "KB/s"}, {1e6, "MB/s"}, {1e9, "GB/s"}, {1e12, "TB/s"}};
  return signed_format(bps, [](double v) { return scaled(v, kScales, [](double x) { return x < 10 ? 2 : 1; }); });
}

std::string format_percent(double percent) {
  return signed_format(percent, [](double v) -> std::string {
    if (v == 0) return "0.0%";
    if (v < 0.01) return "<0.01%";
    std::string s = fixed(v, v < 1 ? 2 : 1);
    if (v < 1 && std::strtod(s.c_str(), nullptr) >= 1) s = fixed(v, 1);  // 0.999 -> "1.0"
    return s + "%";
  });
}

std::string format_count(double count) {
  return signed_format(count, [](double v) {
    std::string digits = fmt::format("{:.0f}", v);
    std::string out;
    for (size_t i = 0; i < digits.size(); ++i) {
      if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
      out += digits[i];
    }
    return out;
  });
}

std::string format_plain(double value) {
  return signed_format(value, [](double v) {
    return (v == std::floor(v) && v < 1e15) ? fmt::format("{:.0f}", v) : fixed(v, 2);
  });
}

std::string format_flops_rate(double v) {
  static constexpr Scale kScales[] = {{1, "FLOP/s"},    {1e3, "KFLOP/s"},  {1e6, "MFLOP/s"},
                                      {1e9, "GFLOP/s"}, {1e12, "TFLOP/s"}, {1e15, "PFLOP/s"}};
  return signed_format(v, [](double x) { return scaled(x, kScales, [](double y) { return y < 10 ? 2 : 1; }); });
}

std::string format_intensity(double v) {
  return signed_format(v, [](double x) {
    // Two decimals below 10, one below 100, none above; re-checked after rounding (9.996 -> "10.0").
    const int d = x < 10 ? 2 : x < 100 ? 1 : 0;
    std::string s = fixed(x, d);
    const double shown = std::strtod(s.c_str(), nullptr);
    const int again = shown < 10 ? 2 : shown < 100 ? 1 : 0;
    if (again != d) s = fixed(x, again);
    return s + " FLOP/B";
  });
}

std::string format_value(const Value& value) {
  switch (value.unit) {
    case Unit::Count: return format_count(value.value);
    case Unit::Ns: return format_duration(value.value);
    case Unit::Bytes: return format_bytes(value.value);
    case Unit::BytesPerSecond: return format_bandwidth(value.value);
    case Unit::Percent: return format_percent(value.value);
    case Unit::Plain: return format_plain(value.value);
    case Unit::FlopsPerSecond: return format_flops_rate(value.value);
    case Unit::FlopsPerByte: return format_intensity(value.value);
  }
  return "-";
}

const char* unit_name(Unit unit) {
  switch (unit) {
    case Unit::Count: return "count";
    case Unit::Ns: return "ns";
    case Unit::Bytes: return "bytes";
    case Unit::BytesPerSecond: return "bytes/s";
    case Unit::Percent: return "percent";
    case Unit::Plain: return "plain";
    case Unit::FlopsPerSecond: return "flop/s";
    case Unit::FlopsPerByte: return "flop/byte";
  }
  return "plain";
}

}  // namespace gpuscope::report

// Formatting of numbers for people. One function per unit, used by every
// renderer, so "615.8 µs" reads the same in the terminal, markdown and HTML.
// The JSON renderer does not use these: it writes raw base-unit numbers.
#pragma once

#include <string>

#include "report/model.h"

namespace gpuscope::report {

// Auto-scaled ns / µs / ms / s: "616 ns", "615.8 µs", "1.23 ms", "204.4 ms".
// Below 100 in the chosen unit two decimals are shown, else one.
std::string format_duration(double ns);

// Decimal (SI) sizes like nsys: "512 B", "41.97 MB", "268.44 MB", "85.52 GB".
std::string format_bytes(double bytes);

// Decimal bandwidth: "15.0 GB/s", "3.35 TB/s", "812.5 MB/s".
std::string format_bandwidth(double bytes_per_second);

// "89.4%", "0.29%", "<0.01%", "0.0%".
std::string format_percent(double percent);

// Integer with thousands separators: "1,234,567".
std::string format_count(double count);

// Plain number: integers as is, otherwise two decimals: "3", "1.50".
std::string format_plain(double value);

// Decimal FLOP rates: "812.5 GFLOP/s", "1.23 TFLOP/s".
std::string format_flops_rate(double flops_per_second);

// Arithmetic intensity: "0.25 FLOP/B", "12.5 FLOP/B", "128 FLOP/B".
std::string format_intensity(double flops_per_byte);

// Dispatches on the unit. Non-finite values give "-".
std::string format_value(const Value& value);

// Stable unit names for machines (JSON): "count", "ns", "bytes", "bytes/s", "percent", "plain",
// "flop/s", "flop/byte".
const char* unit_name(Unit unit);

}  // namespace gpuscope::report

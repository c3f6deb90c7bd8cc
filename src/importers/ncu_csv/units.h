// ncu's values and units, read into the units gpuscope stores (include/gpuscope/metric_sets.h):
// time in ns, bytes in bytes, rates and clocks per second, percentages and counts as they are.
//
// ncu scales units for reading ("--print-units auto", its default): a column or row says
// "usecond", "Kbyte", "Gbyte/second", "cycle/nsecond", "Ghz"; values carry thousands separators
// ("1,234.56") and "n/a" where ncu has none. Prefixes are decimal (K = 1000), as ncu's are; a
// binary prefix (Ki) would be 1024.
#pragma once

#include <string_view>

#include "gpuscope/metric_sets.h"

namespace gpuscope::ncu {

enum class ValueKind { Number, Missing, Text };  // Missing: empty or "n/a"

struct Value {
  ValueKind kind = ValueKind::Missing;
  double number = 0;
};

// "1,234.5" -> 1234.5; "n/a" or "" -> Missing; anything else that is not a number -> Text.
Value parse_value(std::string_view cell);

// The factor taking a value in `unit` to gpuscope's base unit: a time to ns ("usecond" -> 1e3),
// a rate to per second ("cycle/nsecond" -> 1e9, "Mbyte/second" -> 1e6), a clock to Hz ("Ghz" ->
// 1e9), a scaled count to the count ("Kbyte" -> 1e3, "Minst" -> 1e6). Units it does not know
// ("%", "inst/cycle", "register/thread") are already base: 1.
double unit_scale(std::string_view unit);

// Whether a value labelled `unit` can be a metric gpuscope stores in `stored`: a time for ns,
// bytes for bytes, a rate or a clock for per-second units, "%" for percentages; a count, cycles,
// sectors or a ratio in any unit that is none of those. An empty unit (no units row) fits. A
// value that does not fit would be scaled into a wrong number (a duration in "Kbyte/usecond"
// stored as 10^9 times its value in ns), so the readers refuse it.
bool unit_fits(std::string_view unit, MetricUnit stored);

// What unit_fits wants for `stored`, for the message: "a time", "bytes", ...
const char* unit_kind(MetricUnit stored);

}  // namespace gpuscope::ncu

#include "importers/ncu_csv/units.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <string>

namespace gpuscope::ncu {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// A time word in ns ("usecond" -> 1e3), or 0 when `word` is not one. Kept in ns, not seconds,
// so that the common factors (1e3, 1e9) come out exact.
double ns_of(std::string_view word) {
  if (word == "second" || word == "s") return 1e9;
  if (word == "msecond" || word == "ms") return 1e6;
  if (word == "usecond" || word == "us") return 1e3;
  if (word == "nsecond" || word == "ns") return 1;
  if (word == "psecond" || word == "ps") return 1e-3;
  return 0;
}

// The multiplier of a prefixed word: "Kbyte" 1e3, "Mhz" 1e6, "Kibyte" 1024; 1 for a plain word.
// A prefix is an upper-case K, M, G, T or P before a lower-case word (ncu's base units are
// lower case: byte, inst, sector, cycle, warp, hz).
double prefix_of(std::string_view word) {
  if (word.size() < 2) return 1;
  const std::string_view prefixes = "KMGTP";
  const size_t power = prefixes.find(word[0]);
  if (power == std::string_view::npos) return 1;
  const bool binary = word.substr(1) == "ibyte";  // "Kinst" is kilo-instructions
  const std::string_view rest = word.substr(binary ? 2 : 1);
  for (char c : rest)
    if (!std::islower(static_cast<unsigned char>(c))) return 1;
  double m = 1;
  for (size_t i = 0; i <= power; ++i) m *= binary ? 1024.0 : 1000.0;
  return m;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The dimension of a unit as far as the checks need it.
enum class Dimension { Time, Bytes, Rate, Percent, Other };

bool is_bytes(std::string_view word) {
  return word == "byte" || (word.size() > 4 && word.ends_with("byte") && prefix_of(word) > 1);
}

Dimension dimension_of(std::string_view unit) {
  const size_t slash = unit.find('/');
  const std::string_view num = unit.substr(0, slash);
  const std::string_view den = slash == std::string_view::npos ? std::string_view() : unit.substr(slash + 1);
  const std::string num_lower = lower(num);
  if (ns_of(den) > 0 || (den.empty() && num_lower.ends_with("hz"))) return Dimension::Rate;
  if (!den.empty()) return Dimension::Other;  // inst/cycle, register/thread, byte/cycle ...
  if (num == "%") return Dimension::Percent;
  if (ns_of(num) > 0) return Dimension::Time;
  if (is_bytes(num)) return Dimension::Bytes;
  return Dimension::Other;
}

Dimension dimension_of(MetricUnit stored) {
  switch (stored) {
    case MetricUnit::Nanoseconds: return Dimension::Time;
    case MetricUnit::Bytes: return Dimension::Bytes;
    case MetricUnit::PerSecond:
    case MetricUnit::BytesPerSecond: return Dimension::Rate;
    case MetricUnit::Percent: return Dimension::Percent;
    default: return Dimension::Other;
  }
}

}  // namespace

bool unit_fits(std::string_view unit, MetricUnit stored) {
  unit = trim(unit);
  return unit.empty() || dimension_of(unit) == dimension_of(stored);
}

const char* unit_kind(MetricUnit stored) {
  switch (dimension_of(stored)) {
    case Dimension::Time: return "a time";
    case Dimension::Bytes: return "bytes";
    case Dimension::Rate: return "a rate per second";
    case Dimension::Percent: return "a percentage";
    case Dimension::Other: break;
  }
  return "a count (no time, bytes, rate or percentage)";
}

Value parse_value(std::string_view cell) {
  cell = trim(cell);
  if (cell.empty() || cell == "n/a" || cell == "N/A") return {};
  // Thousands separators: ncu writes "1,234,567.5" in its default (en-US) number format.
  std::string plain;
  plain.reserve(cell.size());
  for (char c : cell)
    if (c != ',') plain += c;
  Value v;
  const char* end = plain.data() + plain.size();
  const auto [ptr, ec] = std::from_chars(plain.data(), end, v.number);
  // "inf" and "nan" parse as numbers but are no measurement ncu prints: text.
  const bool number = ec == std::errc() && ptr == end && !plain.empty() && std::isfinite(v.number);
  v.kind = number ? ValueKind::Number : ValueKind::Text;
  return v;
}

double unit_scale(std::string_view unit) {
  unit = trim(unit);
  const size_t slash = unit.find('/');
  const std::string_view num = unit.substr(0, slash);
  const std::string_view den = slash == std::string_view::npos ? std::string_view() : unit.substr(slash + 1);

  double scale = 1;
  const std::string num_lower = lower(num);
  if (const double ns = ns_of(num); ns > 0) scale = ns;  // a time: gpuscope stores ns
  else if (num_lower.size() >= 2 && num_lower.compare(num_lower.size() - 2, 2, "hz") == 0)
    scale = num_lower == "hz" ? 1 : prefix_of(std::string(1, static_cast<char>(std::toupper(num[0]))) + "hz");
  else scale = prefix_of(num);

  if (!den.empty()) {
    if (const double ns = ns_of(den); ns > 0) scale = scale * 1e9 / ns;  // a rate: per second
    else scale /= prefix_of(den);
  }
  return scale;
}

}  // namespace gpuscope::ncu

// Strict reader of `gpuscope check` rule files (TOML, through toml++ used
// header-only). Every error names the file and line: "rules.toml:7: ...".
#include <fmt/format.h>

#include <toml++/toml.h>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "analysis/check_ranks.h"
#include "analysis/check_rules_text.h"
#include "common/error.h"
#include "gpuscope/check.h"

namespace gpuscope::check {
namespace {

struct Reader {
  std::string source;

  [[noreturn]] void fail(const toml::node& at, const std::string& message) const {
    throw Error(fmt::format("{}:{}: {}", source, at.source().begin.line, message));
  }

  // Optional string key; a present key of another type is an error.
  std::optional<std::string> string_at(const toml::table& t, const char* key) const {
    const toml::node* n = t.get(key);
    if (!n) return std::nullopt;
    if (!n->is_string()) fail(*n, fmt::format("'{}' must be a string", key));
    return std::string(*n->value<std::string>());
  }

  std::optional<double> number_at(const toml::table& t, const char* key) const {
    const toml::node* n = t.get(key);
    if (!n) return std::nullopt;
    // TOML has nan and inf literals; a limit of nan passes every comparison, so every check.
    if (!n->is_number() || !std::isfinite(*n->value<double>()))
      fail(*n, fmt::format("'{}' must be a number (a finite one)", key));
    return *n->value<double>();
  }

  // A duration is a string with a unit: "250 ms", "1.5us", "3 s". Bare numbers
  // are refused because "max = 250" could mean ns, µs or ms.
  std::optional<double> duration_at(const toml::table& t, const char* key) const {
    const toml::node* n = t.get(key);
    if (!n) return std::nullopt;
    if (!n->is_string())
      fail(*n, fmt::format("'{}' is a duration: give it as a string with a unit, e.g. \"1.5 ms\"", key));
    const std::string text = *n->value<std::string>();
    // Decimal only (from_chars, unlike strtod, takes no "0x10" or leading blanks), finite (it
    // takes "inf" and "nan"), and in range ("1e400" is refused), so every limit can fail.
    double v = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), v);
    std::string unit(end);
    unit.erase(0, unit.find_first_not_of(' '));
    static const std::pair<const char*, double> units[] = {
        {"ns", 1}, {"us", 1e3}, {"µs", 1e3}, {"ms", 1e6}, {"s", 1e9}};
    for (const auto& [name, scale] : units)
      if (error == std::errc{} && end != text.data() && unit == name && v >= 0 && std::isfinite(v * scale))
        return v * scale;
    fail(*n, fmt::format("'{}' = \"{}\": expected a non-negative number and a unit (ns, us, ms, s)", key, text));
  }
};

const std::set<std::string> kTotalNames = {"wall", "gpu_busy", "kernel", "api", "copy", "sync"};
const std::set<std::string> kStats = {"median", "mean", "min", "max", "total", "count"};
const std::set<std::string> kItemKinds = {"kernel", "memory", "api", "nvtx", "nvtx_gpu", "op", "any"};

std::string one_of(const std::set<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// [[metric]] limits on the change against --baseline, in %: max_change_pct bounds both
// directions; max_increase_pct / max_decrease_pct one each.
void parse_change_limits(const Reader& r, const toml::table& t, Gate& rule) {
  auto percent = [&](const char* key) {
    const std::optional<double> v = r.number_at(t, key);
    if (v && *v < 0) r.fail(*t.get(key), fmt::format("'{}' must be a percentage >= 0", key));
    return v;
  };
  const std::optional<double> both = percent("max_change_pct");
  rule.max_increase_percent = percent("max_increase_pct");
  rule.max_decrease_percent = percent("max_decrease_pct");
  if (both && (rule.max_increase_percent || rule.max_decrease_percent))
    r.fail(t, "'max_change_pct' bounds both directions: give it, or 'max_increase_pct' / 'max_decrease_pct', not both");
  if (both) rule.max_increase_percent = rule.max_decrease_percent = both;
}

Gate parse_rule(const Reader& r, GateKind kind, const std::string& table_name, const toml::table& t, int index) {
  Gate rule;
  rule.kind = kind;
  rule.line = static_cast<int>(t.source().begin.line);
  rule.id = r.string_at(t, "id").value_or(fmt::format("{}#{}", table_name, index));

  std::set<std::string> allowed = {"id"};
  auto required_string = [&](const char* key) {
    auto v = r.string_at(t, key);
    if (!v || v->empty()) r.fail(t, fmt::format("[[{}]] needs a non-empty '{}'", table_name, key));
    return *v;
  };
  switch (kind) {
    case GateKind::Total:
      allowed.insert({"name", "min", "max"});
      rule.name = required_string("name");
      if (!kTotalNames.count(rule.name) && !detail::is_ranks_total(rule.name, rule.duration))
        r.fail(*t.get("name"), fmt::format("unknown total '{}' (expected one of: {}; or {})", rule.name,
                                           one_of(kTotalNames), detail::ranks_total_names()));
      rule.min = rule.duration ? r.duration_at(t, "min") : r.number_at(t, "min");
      rule.max = rule.duration ? r.duration_at(t, "max") : r.number_at(t, "max");
      break;
    case GateKind::Kernel:
      allowed.insert({"match", "stat", "min", "max"});
      rule.match = required_string("match");
      rule.stat = r.string_at(t, "stat").value_or("median");
      if (!kStats.count(rule.stat))
        r.fail(*t.get("stat"), fmt::format("unknown stat '{}' (expected one of: {})", rule.stat, one_of(kStats)));
      rule.duration = rule.stat != "count";
      rule.min = rule.duration ? r.duration_at(t, "min") : r.number_at(t, "min");
      rule.max = rule.duration ? r.duration_at(t, "max") : r.number_at(t, "max");
      break;
    case GateKind::Baseline:
      allowed.insert({"kind", "match", "max_slower_pct"});
      rule.item_kind = r.string_at(t, "kind").value_or("any");
      if (!kItemKinds.count(rule.item_kind))
        r.fail(*t.get("kind"),
               fmt::format("unknown kind '{}' (expected one of: {})", rule.item_kind, one_of(kItemKinds)));
      rule.match = r.string_at(t, "match").value_or("*");
      rule.max_slower_percent = r.number_at(t, "max_slower_pct");
      if (!rule.max_slower_percent || *rule.max_slower_percent < 0)
        r.fail(t, "[[baseline]] needs 'max_slower_pct', a percentage >= 0");
      break;
    case GateKind::Metric:
      allowed.insert({"name", "match", "min", "max", "max_change_pct", "max_increase_pct", "max_decrease_pct"});
      rule.name = required_string("name");
      rule.match = r.string_at(t, "match").value_or("*");
      rule.duration = false;
      rule.min = r.number_at(t, "min");
      rule.max = r.number_at(t, "max");
      parse_change_limits(r, t, rule);
      break;
  }
  // Unknown keys first: a misspelled limit ('maxx') is named, not reported as a missing one.
  for (const auto& [key, node] : t)
    if (!allowed.count(std::string(key.str())))
      r.fail(node, fmt::format("unknown key '{}' in [[{}]] (allowed: {})", key.str(), table_name, one_of(allowed)));
  if (kind == GateKind::Metric && !rule.min && !rule.max && !rule.needs_baseline())
    r.fail(t,
           "[[metric]] needs 'min' or 'max', or a change limit against --baseline "
           "('max_change_pct', 'max_increase_pct', 'max_decrease_pct')");
  if (kind != GateKind::Baseline && kind != GateKind::Metric && !rule.min && !rule.max)
    r.fail(t, fmt::format("[[{}]] needs 'min' or 'max' (or both)", table_name));
  if (rule.min && rule.max && *rule.min > *rule.max) r.fail(t, "'min' is larger than 'max'");
  return rule;
}

}  // namespace

bool Gate::needs_baseline() const { return kind == GateKind::Baseline || max_increase_percent || max_decrease_percent; }

bool GateSet::needs_baseline() const {
  return std::any_of(rules.begin(), rules.end(), [](const Gate& r) { return r.needs_baseline(); });
}

GateSet parse_rules(const std::string& text, const std::string& source) {
  toml::table root;
  try {
    root = toml::parse(escape_non_ascii(text, source), source);
  } catch (const toml::parse_error& e) {
    throw Error(fmt::format("{}:{}: {}", source, e.source().begin.line, e.description()));
  }
  const Reader reader{source};
  static const std::pair<const char*, GateKind> kinds[] = {{"total", GateKind::Total},
                                                           {"kernel", GateKind::Kernel},
                                                           {"baseline", GateKind::Baseline},
                                                           {"metric", GateKind::Metric}};
  GateSet set;
  for (const auto& [key, node] : root) {
    const std::string name(key.str());
    const auto kind = std::find_if(std::begin(kinds), std::end(kinds), [&](const auto& k) { return name == k.first; });
    if (kind == std::end(kinds))
      reader.fail(node,
                  fmt::format("unknown table '{}' (expected [[total]], [[kernel]], [[baseline]] or [[metric]])", name));
    const toml::array* list = node.as_array();
    if (!list || !list->is_array_of_tables())
      reader.fail(node, fmt::format("'{}' must be an array of tables: write [[{}]]", name, name));
    int index = 0;
    for (const toml::node& element : *list)
      set.rules.push_back(parse_rule(reader, kind->second, name, *element.as_table(), ++index));
  }
  if (set.rules.empty())
    throw Error(source + ": no rules (expected [[total]], [[kernel]], [[baseline]] or [[metric]] tables)");
  // toml++ iterates tables by key; users read results in file order.
  std::stable_sort(set.rules.begin(), set.rules.end(), [](const Gate& a, const Gate& b) { return a.line < b.line; });
  set.source = source;
  return set;
}

// Rules files are a few KB; the bound keeps `--rules /dev/zero` or a huge file from filling memory.
constexpr std::uintmax_t kMaxRulesBytes = 1 << 20;

GateSet read_rules(const std::string& path) {
  // Only regular files: a device never ends and opening a FIFO blocks until someone writes to it.
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status))
    throw Error("cannot read rules file " + path + ": not a regular file");
  const std::uintmax_t size = std::filesystem::exists(status) ? std::filesystem::file_size(path, ec) : 0;
  if (!ec && size > kMaxRulesBytes)
    throw Error(fmt::format("cannot read rules file {}: larger than {} MiB (rules files are a few KB)", path,
                            kMaxRulesBytes >> 20));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot read rules file " + path);
  std::stringstream text;
  text << in.rdbuf();
  return parse_rules(text.str(), path);
}

}  // namespace gpuscope::check

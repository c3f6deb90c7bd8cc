// JSON renderer for machines: numbers are raw, in base units (ns, bytes,
// bytes/s, percentage points), with the unit named next to them, so a script
// reads exact values instead of parsing "615.8 µs". Key order is fixed
// (ordered_json), so the output is byte-for-byte deterministic.
#include <cmath>

#include <nlohmann/json.hpp>

#include "report/renderers.h"
#include "report/units.h"

namespace gpuscope::report {
namespace {

using Json = nlohmann::ordered_json;

constexpr int kFormatVersion = 1;  // bump when the JSON layout changes incompatibly

// Integral values print as integers (1231674, not 1231674.0); undefined ones as null.
Json number(double v) {
  if (!std::isfinite(v)) return nullptr;
  if (v == std::floor(v) && std::fabs(v) < 9.0e15) return static_cast<int64_t>(v);
  return v;
}

Json cell_json(const Cell& cell) {
  if (const auto* v = std::get_if<Value>(&cell)) return number(v->value);
  if (const auto* t = std::get_if<std::string>(&cell)) return *t;
  return nullptr;
}

const char* cell_unit(const Cell& cell) {
  if (const auto* v = std::get_if<Value>(&cell)) return unit_name(v->unit);
  if (std::holds_alternative<std::string>(cell)) return "text";
  return "none";
}

Json table_json(const Table& t) {
  Json j;
  j["key"] = t.key;
  j["title"] = t.title;
  Json columns = Json::array();
  for (const Column& c : t.columns)
    columns.push_back({{"key", c.key}, {"title", c.title}, {"unit", c.unit ? unit_name(*c.unit) : "text"}});
  j["columns"] = std::move(columns);
  Json rows = Json::array();
  for (const auto& row : t.rows) {
    Json r = Json::object();
    for (size_t i = 0; i < t.columns.size(); ++i) r[t.columns[i].key] = cell_json(row[i]);
    rows.push_back(std::move(r));
  }
  j["rows"] = std::move(rows);
  j["rows_omitted"] = t.omitted_rows;
  j["notes"] = t.notes;
  // Only tables that point at the timeline (findings, the critical path's segments) carry spans.
  if (!t.spans.empty()) {
    Json spans = Json::array();
    for (const EvidenceSpan& s : t.spans) spans.push_back({{"pid", s.pid}, {"start", s.start}, {"end", s.end}});
    j["spans"] = std::move(spans);
  }
  return j;
}

}  // namespace

std::string render_json(const Report& report) {
  Json root;
  root["format"] = "gpuscope-report";
  root["format_version"] = kFormatVersion;
  root["title"] = report.title;
  Json sections = Json::array();
  for (const Section& s : report.sections) {
    Json js;
    js["key"] = s.key;
    js["title"] = s.title;
    Json lines = Json::array();
    for (const Line& l : s.lines) {
      Json jl;
      jl["key"] = l.key;
      jl["label"] = l.label;
      jl["value"] = cell_json(l.value);
      jl["unit"] = cell_unit(l.value);
      if (!l.note.empty()) jl["note"] = l.note;
      lines.push_back(std::move(jl));
    }
    js["lines"] = std::move(lines);
    Json tables = Json::array();
    for (const Table& t : s.tables) tables.push_back(table_json(t));
    js["tables"] = std::move(tables);
    js["notes"] = s.notes;
    sections.push_back(std::move(js));
  }
  root["sections"] = std::move(sections);
  // Replace invalid UTF-8 (a kernel name from a broken binary) instead of throwing.
  return root.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace gpuscope::report

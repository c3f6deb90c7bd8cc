#include "importers/nsys_sqlite/export_source.h"

#include <algorithm>
#include <cctype>

#include "common/error.h"

namespace gpuscope::nsys {

namespace {

// Above this many ids (or when ids are spread far wider than their count) names are cached in
// a hash map instead of a vector indexed by id.
constexpr int64_t kDenseIdLimit = 1 << 24;

std::string quoted(std::string_view identifier) {
  std::string out = "\"";
  for (char c : identifier) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

bool same_name(std::string_view a, std::string_view b) {  // SQLite names ignore ASCII case
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// "cudaMalloc_v3020" -> "cudaMalloc": nsys appends the CUDA version that introduced the entry
// point. Short suffixes are part of real names ("cuMemAlloc_v2") and stay.
std::string_view without_version_suffix(std::string_view name) {
  const size_t at = name.rfind("_v");
  if (at == std::string_view::npos || name.size() - at - 2 < 4) return name;
  for (size_t i = at + 2; i < name.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(name[i]))) return name;
  return name.substr(0, at);
}

constexpr StringId kNotInterned = UINT32_MAX;

}  // namespace

NsysSource::NsysSource(const std::string& path, Trace& trace)
    : path_(path), trace_(trace), db_(path, store::Database::Mode::ReadOnly) {
  // Tables only: nsys writes no views, and a view (a damaged or hostile file's, perhaps a
  // recursive one) would run as code on every read. Views are listed, never queried.
  auto list = db_.prepare("SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view')");
  while (list.next()) (list.text(1) == "view" ? views_ : tables_).insert(list.text(0));

  const std::string strings = table("StringIds");
  if (strings.empty()) return;
  mark_read(strings);
  static constexpr std::string_view kColumns[] = {"id", "value"};
  NsysTable rows(*this, strings, kColumns);
  rows.require(0);
  rows.require(1);
  int64_t max_id = -1;
  while (rows.next()) {
    const int64_t id = rows.integer(0, -1);
    if (id < 0) continue;
    string_ids_.emplace(id, std::string(rows.text(1)));
    max_id = std::max(max_id, id);
  }
  if (max_id < kDenseIdLimit && max_id < 8 * static_cast<int64_t>(string_ids_.size()) + 65536) {
    dense_names_.assign(static_cast<size_t>(max_id + 1), kNotInterned);
    dense_api_names_.assign(static_cast<size_t>(max_id + 1), kNotInterned);
  }
}

std::string NsysSource::table(std::string_view base) const {
  // Later export schemas add a table with a _V2, _V3 ... suffix when they change an old one.
  for (int version = 9; version >= 2; --version) {
    const std::string name = std::string(base) + "_V" + std::to_string(version);
    if (tables_.count(name)) return name;
  }
  return tables_.count(std::string(base)) ? std::string(base) : std::string();
}

std::vector<std::string> NsysSource::columns(const std::string& table) {
  std::vector<std::string> names;
  auto query = db_.prepare("SELECT name FROM pragma_table_info(?)");
  query.bind(1, std::string_view(table));
  while (query.next()) names.push_back(query.text(0));
  return names;
}

StringId NsysSource::resolve(int64_t string_id, bool api) {
  auto text = string_ids_.find(string_id);
  if (text == string_ids_.end()) {
    ++unresolved_names_;
    return trace_.strings.intern("<nsys string " + std::to_string(string_id) + ">");
  }
  return trace_.strings.intern(api ? without_version_suffix(text->second) : std::string_view(text->second));
}

StringId NsysSource::cached(int64_t string_id, bool api, std::vector<StringId>& dense,
                            std::unordered_map<int64_t, StringId>& sparse) {
  if (string_id >= 0 && static_cast<size_t>(string_id) < dense.size()) {
    StringId& id = dense[static_cast<size_t>(string_id)];
    if (id == kNotInterned) id = resolve(string_id, api);
    return id;
  }
  auto [it, inserted] = sparse.try_emplace(string_id, 0);
  if (inserted) it->second = resolve(string_id, api);
  return it->second;
}

void NsysSource::throw_time_out_of_range(int64_t session_ns) const {
  throw Error(path_ + ": a time out of range: " + std::to_string(session_ns) + " ns after a session start of " +
              std::to_string(session_start_) + " ns (a damaged export)");
}

StringId NsysSource::name(int64_t string_id) { return cached(string_id, false, dense_names_, sparse_names_); }

StringId NsysSource::api_name(int64_t string_id) {
  return cached(string_id, true, dense_api_names_, sparse_api_names_);
}

StringId NsysSource::text(std::string_view text) {
  if (auto it = text_cache_.find(text); it != text_cache_.end()) return it->second;
  const StringId id = trace_.strings.intern(text);
  text_cache_.emplace(std::string(text), id);
  return id;
}

std::unordered_map<int64_t, std::string> NsysSource::enum_names(std::string_view base) {
  std::unordered_map<int64_t, std::string> names;
  const std::string name = table(base);
  if (name.empty()) return names;
  mark_read(name);
  static constexpr std::string_view kColumns[] = {"id", "name"};
  NsysTable rows(*this, name, kColumns);
  if (!rows.has(0) || !rows.has(1)) return names;
  while (rows.next())
    if (!rows.is_null(0)) names.emplace(rows.integer(0), std::string(rows.text(1)));
  return names;
}

void NsysSource::skipped(const std::string& what, uint64_t rows, const std::string& detail) {
  trace_.data_loss.push_back({0, what, rows, detail});
}

void NsysSource::untimed(const std::string& table, uint64_t rows) {
  if (rows) skipped("nsys_rows_without_time", rows, table + ": rows with a NULL start or end were not imported");
}

void NsysSource::gap(const char* what, const std::string& detail) {
  for (SourceGap& g : trace_.source_gaps)
    if (g.what == what) {
      g.detail += "; " + detail;
      return;
    }
  trace_.source_gaps.push_back({what, detail});
}

NsysTable::NsysTable(NsysSource& source, const std::string& table, std::span<const std::string_view> columns)
    : source_(source), table_(table), columns_(columns), select_index_(columns.size(), -1), statement_([&] {
        const std::vector<std::string> present = source.columns(table);
        std::string select;
        int next = 0;
        for (size_t slot = 0; slot < columns.size(); ++slot) {
          auto it = std::find_if(present.begin(), present.end(),
                                 [&](const std::string& c) { return same_name(c, columns[slot]); });
          if (it == present.end()) continue;
          select += (select.empty() ? "" : ", ") + quoted(*it);
          select_index_[slot] = next++;
        }
        return source.db().prepare("SELECT " + (select.empty() ? std::string("NULL") : select) + " FROM " +
                                   quoted(table));
      }()) {
  source.mark_read(table);
}

void NsysTable::require(size_t slot) const {
  if (!has(slot))
    throw Error(source_.path() + ": table " + table_ + " has no column " + std::string(columns_[slot]) +
                "; the export is damaged or was trimmed too far to read");
}

std::string NsysTable::missing(std::initializer_list<size_t> slots) const {
  std::string out;
  for (size_t slot : slots)
    if (!has(slot)) out += (out.empty() ? "" : ", ") + std::string(columns_[slot]);
  return out;
}

bool NsysTable::lacks_time(size_t start, size_t end) {
  if (!is_null(start) && !is_null(end)) return false;
  ++untimed_;
  return true;
}

bool NsysTable::next() {
  if (!statement_.next()) return false;
  ++rows_;
  return true;
}

void NsysTable::bad_value(size_t slot, const char* kind) const {
  throw Error(source_.path() + ": " + table_ + "." + std::string(columns_[slot]) + " holds " + kind + " in row " +
              std::to_string(rows_) + " where nsys writes a number; the export is damaged or was edited");
}

int64_t NsysTable::integer(size_t slot, int64_t absent) const {
  const int column = select_index_[slot];
  if (column < 0) return absent;
  switch (statement_.type(column)) {
    case SQLITE_INTEGER: return statement_.integer(column);
    case SQLITE_NULL: return absent;
    case SQLITE_FLOAT: {
      const double value = statement_.real(column);  // an integer stored as REAL: accept it
      if (!(value >= -9.2e18 && value <= 9.2e18)) bad_value(slot, "an out-of-range number");
      return static_cast<int64_t>(value);
    }
    case SQLITE_TEXT: bad_value(slot, "text");
    default: bad_value(slot, "a blob");
  }
}

bool NsysTable::is_null(size_t slot) const {
  const int column = select_index_[slot];
  return column < 0 || statement_.type(column) == SQLITE_NULL;
}

std::string_view NsysTable::text(size_t slot) const {
  const int column = select_index_[slot];
  return column < 0 ? std::string_view() : statement_.text_view(column);
}

}  // namespace gpuscope::nsys

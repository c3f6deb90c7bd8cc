// What the readers of one nsys export share: the database, its tables (newest suffix first),
// the StringIds names interned once, the ENUM_* tables, the clock, and the record of what was
// skipped. Each record family has its own reader (gpu_activity.cpp, host_activity.cpp,
// nvtx_events.cpp, metadata.cpp); NsysTable reads a table by column name.
//
// Schema drift: every table and column is optional. A reader names the columns it knows; those
// the export lacks read as absent, those it adds are ignored. Only a table missing the columns
// that place its rows in time is refused (the file is damaged, not newer).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "gpuscope/model.h"
#include "store/sqlite_db.h"

namespace gpuscope::nsys {

// nsys packs a process and thread into one 64-bit "global id": pid in bits 24..47, tid in 0..23
// (higher bits name the host/VM). Export documentation: "Serialized process and thread identifiers".
inline uint32_t pid_of(int64_t global_id) { return static_cast<uint32_t>((global_id >> 24) & 0xFFFFFF); }
inline uint32_t tid_of(int64_t global_id) { return static_cast<uint32_t>(global_id & 0xFFFFFF); }

class NsysSource {
 public:
  NsysSource(const std::string& path, Trace& trace);

  store::Database& db() { return db_; }
  const std::string& path() const { return path_; }
  Trace& trace() { return trace_; }

  // The newest version of a table: NAME_V3 over NAME_V2 over NAME; "" when the export has none.
  std::string table(std::string_view base) const;
  // The table's column names as the export declares them.
  std::vector<std::string> columns(const std::string& table);
  // Marks a table as read, so the end-of-import report of skipped tables leaves it out.
  void mark_read(const std::string& table) { read_tables_.insert(table); }
  const std::set<std::string>& tables() const { return tables_; }
  const std::set<std::string>& views() const { return views_; }  // never read
  const std::set<std::string>& read_tables() const { return read_tables_; }

  // nsys times are ns since the session started; the model wants CLOCK_REALTIME ns. A sum past
  // the range of a time (a damaged or hostile export) is an error, never a wrapped time.
  void set_session_start(TimeNs utc_ns) { session_start_ = utc_ns; }
  TimeNs time(int64_t session_ns) const {
    TimeNs t = 0;
    if (__builtin_add_overflow(session_start_, session_ns, &t)) throw_time_out_of_range(session_ns);
    return t;
  }

  // A StringIds name, interned once per id. An id the export does not hold becomes a visible
  // placeholder ("<nsys string 42>") and is counted as data loss at the end.
  StringId name(int64_t string_id);
  // The same for CUDA API names, without the _vNNNN suffix nsys appends ("cudaMalloc_v3020"),
  // so analyses that know "cudaMalloc" recognise it.
  StringId api_name(int64_t string_id);
  // Free text (NVTX `text`): interned through a cache whose hits do not allocate.
  StringId text(std::string_view text);

  // An ENUM_* table as id -> name ("CUDA_MEMCPY_KIND_HTOD"); empty when the export has none.
  std::unordered_map<int64_t, std::string> enum_names(std::string_view table);

  // Records for the data-quality section, one row per cause.
  void skipped(const std::string& what, uint64_t rows, const std::string& detail);
  void gap(const char* what, const std::string& detail);
  // `rows` rows of `table` had no start or end time, so they could not be placed; counted only.
  void untimed(const std::string& table, uint64_t rows);
  uint64_t unresolved_names() const { return unresolved_names_; }

 private:
  StringId resolve(int64_t string_id, bool api);
  StringId cached(int64_t string_id, bool api, std::vector<StringId>& dense,
                  std::unordered_map<int64_t, StringId>& sparse);

  [[noreturn]] void throw_time_out_of_range(int64_t session_ns) const;

  std::string path_;
  Trace& trace_;
  store::Database db_;
  std::set<std::string> tables_;
  std::set<std::string> views_;
  std::set<std::string> read_tables_;
  TimeNs session_start_ = 0;

  std::unordered_map<int64_t, std::string> string_ids_;  // StringIds as the export holds them
  std::vector<StringId> dense_names_, dense_api_names_;  // id -> interned, for small ids
  std::unordered_map<int64_t, StringId> sparse_names_, sparse_api_names_;
  uint64_t unresolved_names_ = 0;

  struct TransparentHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, StringId, TransparentHash, std::equal_to<>> text_cache_;
};

// One table read by column name. `columns` lists the names the reader knows, in slot order;
// slot i reads columns[i], or "absent" when the export's table does not have it.
class NsysTable {
 public:
  NsysTable(NsysSource& source, const std::string& table, std::span<const std::string_view> columns);

  // The table has column `slot`.
  bool has(size_t slot) const { return select_index_[slot] >= 0; }
  // Throws Error when the table lacks column `slot` (the file is damaged, not newer).
  void require(size_t slot) const;
  // The names of the listed slots the table lacks, comma-separated ("" when it has them all).
  std::string missing(std::initializer_list<size_t> slots) const;

  bool next();
  // True, and counted, when this row's `start` or `end` column is NULL: such a row cannot be
  // placed in time and is skipped (untimed_rows() tells how many, for data loss).
  bool lacks_time(size_t start, size_t end);
  uint64_t untimed_rows() const { return untimed_; }
  // The integer in column `slot`; `absent` when the column is missing or NULL. Throws Error when
  // it holds text or a blob: nsys writes numbers there, so the file was damaged or edited.
  int64_t integer(size_t slot, int64_t absent = 0) const;
  bool is_null(size_t slot) const;
  // Text of column `slot`, "" when missing or NULL; valid until next().
  std::string_view text(size_t slot) const;
  const std::string& name() const { return table_; }
  uint64_t row() const { return rows_; }

 private:
  [[noreturn]] void bad_value(size_t slot, const char* kind) const;

  NsysSource& source_;
  std::string table_;
  std::span<const std::string_view> columns_;
  std::vector<int> select_index_;  // slot -> column of the SELECT, -1 when the table lacks it
  store::Statement statement_;
  uint64_t rows_ = 0;
  uint64_t untimed_ = 0;
};

}  // namespace gpuscope::nsys

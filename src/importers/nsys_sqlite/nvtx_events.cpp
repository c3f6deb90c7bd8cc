// NVTX_EVENTS of an nsys export: push/pop and start/end ranges, marks, and the domains they
// belong to. Other event types (category and thread names, payload schemas) are counted.
#include <map>
#include <string>

#include "importers/nsys_sqlite/readers.h"

namespace gpuscope::nsys {

namespace {

enum class NvtxType { Other, PushPop, StartEnd, Mark, DomainCreate };

// ENUM_NSYS_EVENT_TYPE names; the "Nvtxt" variants are the same events from NVTX's text API.
NvtxType type_named(std::string_view name) {
  if (name == "NvtxPushPopRange" || name == "NvtxtPushPopRange") return NvtxType::PushPop;
  if (name == "NvtxStartEndRange" || name == "NvtxtStartEndRange") return NvtxType::StartEnd;
  if (name == "NvtxMark" || name == "NvtxtMark") return NvtxType::Mark;
  if (name == "NvtxDomainCreate") return NvtxType::DomainCreate;
  return NvtxType::Other;
}

// The same ids as export schema 3.x holds them, for exports without the enum table.
NvtxType type_by_code(int64_t code) {
  switch (code) {
    case 59:
    case 70: return NvtxType::PushPop;
    case 60:
    case 71: return NvtxType::StartEnd;
    case 34:
    case 65: return NvtxType::Mark;
    case 75: return NvtxType::DomainCreate;
    default: return NvtxType::Other;
  }
}

enum : size_t { kStart, kEnd, kEventType, kText, kGlobalTid, kTextId, kDomainId };
constexpr std::string_view kColumns[] = {"start", "end", "eventType", "text", "globalTid", "textId", "domainId"};

}  // namespace

void read_nvtx(NsysSource& source) {
  const std::string table = source.table("NVTX_EVENTS");
  if (table.empty()) {
    source.gap(kGapNvtx, "the export has no NVTX_EVENTS table (no NVTX annotations, or nsys ran without -t nvtx)");
    return;
  }
  const auto type_names = source.enum_names("ENUM_NSYS_EVENT_TYPE");
  auto type_of = [&, cache = std::unordered_map<int64_t, NvtxType>()](int64_t code) mutable {
    auto [it, inserted] = cache.try_emplace(code, NvtxType::Other);
    if (inserted) {
      auto named = type_names.find(code);
      it->second = named != type_names.end() ? type_named(named->second) : type_by_code(code);
    }
    return it->second;
  };

  NsysTable rows(source, table, kColumns);
  rows.require(kStart);
  rows.require(kEventType);
  Trace& trace = source.trace();
  const size_t first_range = trace.nvtx_ranges.size(), first_mark = trace.nvtx_marks.size();
  // Rows are not sorted (nsys 2025.6+), so a domain may be created after its first use: keep
  // each record's domain id and name the domains once all rows are read.
  std::vector<int64_t> range_domains, mark_domains;
  std::unordered_map<int64_t, StringId> domains;
  std::map<int64_t, uint64_t> other_types;  // event type -> rows not imported
  uint64_t unclosed = 0;
  while (rows.next()) {
    const int64_t code = rows.integer(kEventType, -1);
    const NvtxType type = type_of(code);
    if (type == NvtxType::Other) {
      ++other_types[code];
      continue;
    }
    // A registered string (textId) or the text itself; a domain's row names the domain.
    const StringId name = !rows.is_null(kText)     ? source.text(rows.text(kText))
                          : !rows.is_null(kTextId) ? source.name(rows.integer(kTextId))
                                                   : 0;
    const int64_t domain = rows.integer(kDomainId);
    if (type == NvtxType::DomainCreate) {
      domains[domain] = name;
      continue;
    }
    const int64_t global_tid = rows.integer(kGlobalTid);
    if (type == NvtxType::Mark) {
      trace.nvtx_marks.push_back(
          {pid_of(global_tid), tid_of(global_tid), 0, name, source.time(rows.integer(kStart)), 0});
      mark_domains.push_back(domain);
      continue;
    }
    if (rows.is_null(kEnd)) {  // a range still open when the capture stopped
      ++unclosed;
      continue;
    }
    NvtxRange& r = trace.nvtx_ranges.emplace_back();
    r.pid = pid_of(global_tid);
    r.tid = tid_of(global_tid);
    r.kind = type == NvtxType::PushPop ? NvtxKind::PushPop : NvtxKind::StartEnd;
    r.name = name;
    r.start = source.time(rows.integer(kStart));
    r.end = source.time(rows.integer(kEnd));
    range_domains.push_back(domain);
  }

  // Domain 0 is NVTX's default domain; an id without a creation row keeps its number.
  auto domain_name = [&](int64_t id) -> StringId {
    if (id == 0) return 0;
    auto it = domains.find(id);
    return it != domains.end() ? it->second : source.text("NVTX domain " + std::to_string(id));
  };
  for (size_t i = 0; i < range_domains.size(); ++i)
    trace.nvtx_ranges[first_range + i].domain = domain_name(range_domains[i]);
  for (size_t i = 0; i < mark_domains.size(); ++i)
    trace.nvtx_marks[first_mark + i].domain = domain_name(mark_domains[i]);

  if (unclosed)
    source.skipped("nvtx_unclosed", unclosed, table + ": ranges without an end (still open when the capture stopped)");
  if (!other_types.empty()) {
    uint64_t total = 0;
    std::string kinds;
    for (const auto& [code, count] : other_types) {
      total += count;
      auto named = type_names.find(code);
      kinds += (kinds.empty() ? "" : ", ") +
               (named != type_names.end() ? named->second : "type " + std::to_string(code)) + " (" +
               std::to_string(count) + ")";
    }
    source.skipped("nsys_skipped", total, table + ": rows of other NVTX event types not imported: " + kinds);
  }
}

}  // namespace gpuscope::nsys

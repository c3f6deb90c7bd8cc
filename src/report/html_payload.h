// The data an HTML report carries for its scripts: the report model as JSON (for the charts)
// and the run's timeline in a compact columnar binary form (for the canvas timeline), gzipped
// and base64-encoded so that it sits inside the page as inert text: base64 has no '<', so no
// kernel or NVTX name can close a script or start markup, whatever bytes it holds.
//
// Layout of the bytes before gzip (all integers little-endian):
//   "GSPL" | u32 version | u32 header length | header (UTF-8 JSON) | zero padding to 8 |
//   column blocks, each at an 8-byte aligned offset the header names.
// The header: {"report": <render_json's object>, "timeline": {origin, end, names, groups,
// tracks, counters, configs, evidence: {id: [[start, end], ...]}, steady: {start, end, pid, range,
// steps} when the run has steady-state steps} or null} (times in ns from origin); each column is {"t":
// "u8"|"u16"|"u32"|"f64", "o": byte offset from the first block, "c": count}. src/report/html/data.js reads it.
#pragma once

#include <string>

#include "report/model.h"

namespace gpuscope::report {

inline constexpr uint32_t kPayloadVersion = 1;

// The id a table's evidence is linked by in the page: a finding's rule for "finding_<rule>"
// tables (the ranked recommendations name rules), else the table's key.
std::string evidence_id(const Table& table);

// The gzipped payload, base64-encoded.
std::string encode_html_payload(const Report& report);

}  // namespace gpuscope::report

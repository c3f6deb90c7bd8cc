// Text for the exports. Names in a capture come from the program (kernel names from its
// binary, NVTX strings it made up), so they may hold anything: quotes, control characters,
// bytes that are not UTF-8. Both exports need valid UTF-8 (JSON requires it; Perfetto's
// string fields are read as UTF-8: utf8::valid, common/utf8.h), and the Chrome export writes
// JSON string literals while it streams, so it needs an escaper of its own rather than a JSON
// document in memory.
#pragma once

#include <string>
#include <string_view>

namespace gpuscope::exporting {

// Appends `text` to `out` (the Chrome export's buffer, export/json_out.h) as a JSON string
// literal, quotes included: valid UTF-8 (as utf8::valid), with '"', '\\' and control characters
// escaped, and "</" written as "<\/" so the output can also sit inside an HTML <script> element.
void append_json_string(std::string& out, std::string_view text);

}  // namespace gpuscope::exporting

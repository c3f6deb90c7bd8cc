// Text for the exports. Names in a capture come from the program (kernel names from its
// binary, NVTX strings it made up), so they may hold anything: quotes, control characters,
// bytes that are not UTF-8. Both exports need valid UTF-8 (JSON requires it; Perfetto's
// string fields are read as UTF-8), and the Chrome export writes JSON string literals while it
// streams, so it needs an escaper of its own rather than a JSON document in memory.
#pragma once

#include <ostream>
#include <string>
#include <string_view>

namespace gpuscope::exporting {

// `text` with every byte that is not part of a well-formed UTF-8 sequence (RFC 3629: no
// overlong forms, no surrogates, nothing above U+10FFFF) replaced by U+FFFD, as nlohmann's
// error_handler_t::replace does.
std::string valid_utf8(std::string_view text);

// Writes `text` as a JSON string literal, quotes included: valid UTF-8 (as valid_utf8), with
// '"', '\\' and control characters escaped, and "</" written as "<\/" so the output can also
// sit inside an HTML <script> element.
void write_json_string(std::ostream& out, std::string_view text);
// The same literal appended to `out` (the Chrome export's buffer, export/json_out.h).
void append_json_string(std::string& out, std::string_view text);

}  // namespace gpuscope::exporting

// The files this build no longer reads: captures of schema v1 to v9 and spools of format v1 to v4
// (docs/schema.md, "Versions"). Their refusal names the gpuscope that reads them (captures of
// schema v1 to v10, spools of format v1 to v5), so a user can still open an old file.
#pragma once

namespace gpuscope {

inline constexpr const char* kOlderFormatsReader = "gpuscope 0.1.0 built from commit f998382";

}  // namespace gpuscope

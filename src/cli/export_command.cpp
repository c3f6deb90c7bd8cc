// `gpuscope export FILE --format F -o OUT` (to be completed by the export work).
#include "cli/commands.h"
#include "common/error.h"

namespace gpuscope::cli {

int run_export(const ExportOptions& options) { throw Error("export: no format is built yet"); }

}  // namespace gpuscope::cli

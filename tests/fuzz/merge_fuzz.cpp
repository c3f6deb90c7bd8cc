// `merge` (src/analysis/merge_traces.cpp): a capture read from the bytes merged with a copy of
// itself as another host's (its pids collide and are renamed; its collectives, if any, pair and
// set the clock offset), then again with an --offset taken from the bytes, any 64-bit value,
// which the merge must refuse when it would carry a time out of range or clear of the first
// input's; each merged trace is analysed and rendered like any capture.
#include <cstdint>
#include <cstring>

#include "common/error.h"
#include "fuzz_target.h"
#include "gpuscope/merge.h"

void gpuscope::fuzz::fuzz_one(std::string_view bytes) {
  const Trace a = read_as("gpuscope", bytes);
  Trace b = a;
  b.run.host += "-b";  // another host: not the same capture, and shifted by what was measured
  analysis::MergeReport report;
  analyse_everything(analysis::merge_traces({{"a.gpuscope", a}, {"b.gpuscope", b}}, {}, report));
  // The last 8 bytes as the offset: the fuzzer reaches 0, small values and INT64 extremes alike.
  int64_t offset = 0;
  if (bytes.size() >= sizeof offset) std::memcpy(&offset, bytes.data() + bytes.size() - sizeof offset, sizeof offset);
  analysis::MergeOptions given;
  given.offsets["b.gpuscope"] = offset;
  try {
    analyse_everything(analysis::merge_traces({{"a.gpuscope", a}, {"b.gpuscope", b}}, given, report));
  } catch (const Error&) {
    // Refusing an offset that cannot be a clock's is the answer to the offset, not to the bytes:
    // the capture itself was read and merged above.
  }
}

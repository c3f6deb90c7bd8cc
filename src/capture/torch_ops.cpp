#include "capture/torch_ops.h"

#include <cstring>
#include <string_view>

#include "capture/process_info.h"

namespace gpuscope::capture {

namespace {

// The ops open on this thread, innermost last. One stack per thread whatever the recorder: a
// process has one capture.
struct OpenOps {
  struct Open {
    int64_t start_ns;
    int64_t sequence_number;
    char name[TorchOpRecorder::kNameBytes];
  };
  Open ops[TorchOpRecorder::kMaxDepth];
  uint32_t depth = 0;     // ops entered and not exited, at most kMaxDepth of them on the stack
  uint32_t too_deep = 0;  // of those, how many did not fit
};
thread_local OpenOps t_open;

}  // namespace

void TorchOpRecorder::enter(const char* name, int64_t sequence_number) {
  if (t_open.depth == kMaxDepth) {
    ++t_open.too_deep;
    if (recording_.load(std::memory_order_relaxed)) dropped_.add();
    return;
  }
  OpenOps::Open& open = t_open.ops[t_open.depth++];
  open.start_ns = recording_.load(std::memory_order_relaxed) ? realtime_ns() : 0;
  if (open.start_ns == 0) return;
  open.sequence_number = sequence_number;
  const size_t length = name == nullptr ? 0 : strnlen(name, kNameBytes - 1);
  std::memcpy(open.name, name == nullptr ? "" : name, length);
  open.name[length] = '\0';
}

void TorchOpRecorder::exit() {
  if (t_open.too_deep > 0) {
    --t_open.too_deep;
    return;
  }
  if (t_open.depth == 0) return;  // an exit whose entry came before the capture started
  const OpenOps::Open& open = t_open.ops[--t_open.depth];
  if (open.start_ns == 0) return;
  const int64_t end = realtime_ns();
  const bool pushed = rings_.push([&](Op& op, uint32_t tid) {
    op.start_ns = open.start_ns;
    op.end_ns = end;
    op.sequence_number = open.sequence_number;
    op.tid = tid;
    std::memcpy(op.name, open.name, sizeof op.name);
  });
  if (!pushed) dropped_.add();
}

size_t TorchOpRecorder::drain(SpoolWriter& out) {
  const size_t written = rings_.drain([&](const Op& op) {
    out.add(spool::RecordKind::TorchOp, spool::TorchOpRecord{op.start_ns, op.end_ns, op.sequence_number, op.tid,
                                                             out.intern(std::string_view(op.name))});
  });
  dropped_.write(out, "torch_ops_dropped",
                 "PyTorch ops not recorded: a thread's ring was full, more threads than rings ran ops, or ops "
                 "nested over 64 deep");
  return written;
}

}  // namespace gpuscope::capture

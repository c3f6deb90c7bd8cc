// PyTorch's ops, from the RecordFunction observer that `profile --pytorch=ops` builds against the
// program's torch (python/torch_hook/gpuscope_ops_observer.cpp). The observer calls
// libgpuscope_preload.so's gpuscope_torch_op_enter/exit at every op's entry and exit; once CUDA
// has started the capture, those reach enter() and exit() here, on the program's thread.
//
// Why an observer and not emit_nvtx: emit_nvtx formats a string per op and CUPTI records each
// NVTX push and pop; the observer's floor measured 1.31x untraced under the default capture on the
// tiny-op loop against 2.01x for emit_nvtx (docs/performance.md, "Op names from torch's
// observers").
//
// Threads: enter() copies the op's name (torch's name of a backward op lives only as long as the
// op) onto a per-thread stack of open ops; exit() pops it into the thread's ring
// (thread_rings.h) as a finished op. Nothing is locked or allocated after a thread's first op.
// Ops nested deeper than kMaxDepth, and ops a full ring drops, are counted, not recorded.
#pragma once

#include <atomic>
#include <cstdint>

#include "capture/drop_count.h"
#include "capture/spool_writer.h"
#include "capture/thread_rings.h"

namespace gpuscope::capture {

class TorchOpRecorder {
 public:
  static constexpr size_t kNameBytes = 104;  // longer names are cut (aten's longest are ~60)
  static constexpr uint32_t kMaxDepth = 64;
  static constexpr uint32_t kRingRecords = 1u << 14;  // per thread: 16,384 x 136 bytes = 2.2 MiB
  static constexpr size_t kMaxRings = 64;

  // On the program's thread, at an op's entry and exit (every exit follows its entry on the
  // same thread, innermost first).
  void enter(const char* name, int64_t sequence_number);
  void exit();
  // Off outside capture windows; ops open when it turns off are still recorded.
  void set_recording(bool on) { recording_.store(on, std::memory_order_relaxed); }

  // On the writer thread: every finished op as a TorchOp record, and a Loss record for the ops
  // dropped since the last drain. Returns how many ops it wrote.
  size_t drain(SpoolWriter& out);

 private:
  struct Op {
    int64_t start_ns = 0;  // 0: not recorded (outside a window, or dropped at its entry)
    int64_t end_ns = 0;
    int64_t sequence_number = -1;
    uint32_t tid = 0;
    char name[kNameBytes] = {};  // NUL-terminated
  };

  ThreadRings<Op, kRingRecords, kMaxRings> rings_;
  std::atomic<bool> recording_{true};
  DropCount dropped_;
};

}  // namespace gpuscope::capture

// The scale bench's stages (bench/scale_stages.cpp) and the timer that measures each one.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "synth.h"

namespace gpuscope::bench {

struct Row {
  std::string stage;
  double seconds = 0;
  double start_mib = 0;  // RSS when the stage began
  double peak_mib = 0;   // the most the process held during the stage (VmHWM)
  uint64_t bytes = 0;    // size of what the stage wrote, when it writes something
};

struct StageTimer {
  std::vector<Row> rows;
  bool peak_exact = true;  // false: VmHWM could not be reset, peaks are running maxima
  // Times `work` (which returns its output's size in bytes, or 0) and records its row.
  Row time(const std::string& name, const std::function<uint64_t()>& work);
};

// Generates the capture, then times every stage in `dir`; returns the capture's record count.
size_t run_stages(const synth::ScaleOptions& options, const std::string& dir, StageTimer& timer);

}  // namespace gpuscope::bench

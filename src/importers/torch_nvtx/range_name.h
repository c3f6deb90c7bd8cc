// The names PyTorch gives its NVTX ranges, parsed. torch.autograd.profiler.emit_nvtx (and so
// `gpuscope profile --pytorch`) pushes one range per op on the thread that runs it:
//   NAME[, seq = N], op_id = M[, sizes = [[64, 512], []]][, input_op_ids = [(61,0), (0,-1)]]
// e.g. "aten::addmm, seq = 1, op_id = 71, sizes = [[1024], [64, 512]], input_op_ids = [(8,0)]".
// seq is autograd's sequence number (a backward node carries the seq of the forward op that
// created it); op_id is always there and is what tells an op range from a user's own range.
// gpuscope's --pytorch=modules hook adds one range per nn.Module forward:
//   "gpuscope.module: Sequential.0" (root class name, then the named_modules() path).
// Anything else (a user's "train_step", a malformed op name) is not a torch range: nullopt.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace gpuscope::torch_nvtx {

inline constexpr std::string_view kModulePrefix = "gpuscope.module: ";

struct RangeName {
  enum class Kind { Op, Module } kind = Kind::Op;
  std::string_view name;         // op name without the suffixes, or the module path
  int64_t sequence_number = -1;  // -1: no ", seq = N"
  uint64_t op_id = 0;            // ops only
  std::string_view sizes;        // the input shapes as written ("[[64, 512], []]"); empty: none
};

// Views into `text`: valid as long as it is.
std::optional<RangeName> parse_range_name(std::string_view text);

}  // namespace gpuscope::torch_nvtx

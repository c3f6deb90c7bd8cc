// parse_range_name(): torch's emit_nvtx op names and gpuscope's module names (range_name.h).
// Strict on purpose: a name either has exactly the documented shape or is left alone as a
// user's NVTX range, so no range is half-converted and no input can make the parser fail.
#include "importers/torch_nvtx/range_name.h"

#include <charconv>
#include <type_traits>

namespace gpuscope::torch_nvtx {

namespace {

constexpr std::string_view kSeq = ", seq = ";
constexpr std::string_view kOpId = ", op_id = ";
constexpr std::string_view kSizes = ", sizes = ";
constexpr std::string_view kInputOpIds = ", input_op_ids = ";

// The leading decimal digits of `text` as a number; advances `text` past them. False when there
// are none or the number overflows.
template <typename Int>
bool take_number(std::string_view& text, Int& value) {
  const char* end = text.data() + text.size();
  const auto [ptr, error] = std::from_chars(text.data(), end, value);
  if (error != std::errc() || ptr == text.data()) return false;
  if constexpr (std::is_signed_v<Int>)
    if (value < 0) return false;
  text.remove_prefix(static_cast<size_t>(ptr - text.data()));
  return true;
}

// One bracketed list at the start of `text` ("[[64, 512], []]", "[(8,0), (0,-1)]"), brackets
// balanced; advances past it. False when `text` does not start with one.
bool take_list(std::string_view& text, std::string_view& list) {
  if (text.empty() || text.front() != '[') return false;
  size_t depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '[') ++depth;
    if (text[i] == ']' && --depth == 0) {
      list = text.substr(0, i + 1);
      text.remove_prefix(i + 1);
      return true;
    }
  }
  return false;
}

bool take_prefix(std::string_view& text, std::string_view prefix) {
  if (text.substr(0, prefix.size()) != prefix) return false;
  text.remove_prefix(prefix.size());
  return true;
}

}  // namespace

std::optional<RangeName> parse_range_name(std::string_view text) {
  RangeName out;
  if (take_prefix(text, kModulePrefix)) {
    if (text.empty()) return std::nullopt;
    out.kind = RangeName::Kind::Module;
    out.name = text;
    return out;
  }
  // The op name is everything before ", op_id = " (and before ", seq = N" when that precedes it).
  const size_t op_id_at = text.find(kOpId);
  if (op_id_at == std::string_view::npos) return std::nullopt;
  std::string_view head = text.substr(0, op_id_at);
  std::string_view tail = text.substr(op_id_at + kOpId.size());
  if (!take_number(tail, out.op_id)) return std::nullopt;

  if (const size_t seq_at = head.rfind(kSeq); seq_at != std::string_view::npos) {
    std::string_view digits = head.substr(seq_at + kSeq.size());
    if (!take_number(digits, out.sequence_number) || !digits.empty()) return std::nullopt;
    head = head.substr(0, seq_at);
  }
  if (head.empty()) return std::nullopt;
  out.name = head;

  std::string_view input_op_ids;
  if (take_prefix(tail, kSizes) && !take_list(tail, out.sizes)) return std::nullopt;
  if (take_prefix(tail, kInputOpIds) && !take_list(tail, input_op_ids)) return std::nullopt;
  if (!tail.empty()) return std::nullopt;  // a field this parser does not know: not torch's shape
  return out;
}

}  // namespace gpuscope::torch_nvtx

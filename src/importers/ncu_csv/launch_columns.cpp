// The columns both pages share, which say which kernel launch a row belongs to. Found by name:
// ncu has added columns between versions ("Device", "CC", "Block Size", "Grid Size"), so no
// position is assumed.
#include <algorithm>
#include <charconv>

#include "common/error.h"
#include "importers/ncu_csv/page_readers.h"

namespace gpuscope::ncu {

int column(const std::vector<std::string>& header, std::string_view name) {
  const auto it = std::find(header.begin(), header.end(), name);
  return it == header.end() ? -1 : static_cast<int>(it - header.begin());
}

namespace {

template <class T>
T number(const std::string& text) {
  T value = 0;
  std::from_chars(text.data(), text.data() + text.size(), value);
  return value;
}

// "(256, 1, 1)" -> {256, 1, 1}; false when the text is not three numbers.
bool parse_dims(const std::string& text, int32_t dims[3]) {
  int32_t out[3] = {1, 1, 1};
  size_t pos = text.find_first_of("0123456789");
  for (int i = 0; i < 3 && pos != std::string::npos; ++i) {
    const auto [ptr, ec] = std::from_chars(text.data() + pos, text.data() + text.size(), out[i]);
    if (ec != std::errc()) return false;
    pos = text.find_first_of("0123456789", static_cast<size_t>(ptr - text.data()));
    if (i == 0 && pos == std::string::npos) break;  // one number: x only
  }
  if (out[0] <= 0) return false;
  std::copy(out, out + 3, dims);
  return true;
}

}  // namespace

LaunchColumns::LaunchColumns(const std::vector<std::string>& header)
    : id(column(header, "ID")),
      pid(column(header, "Process ID")),
      process(column(header, "Process Name")),
      host(column(header, "Host Name")),
      kernel(column(header, "Kernel Name")),
      context(column(header, "Context")),
      stream(column(header, "Stream")),
      device(column(header, "Device")),
      cc(column(header, "CC")),
      block(column(header, "Block Size")),
      grid(column(header, "Grid Size")) {}

bool LaunchColumns::is_launch_column(int c) const {
  for (int known : {id, pid, process, host, kernel, context, stream, device, cc, block, grid})
    if (c == known) return true;
  return false;
}

void LaunchColumns::fill(const std::vector<std::string>& row, Launch& launch) const {
  auto at = [&](int c) -> const std::string& {
    static const std::string kNone;
    return c < 0 ? kNone : row[static_cast<size_t>(c)];
  };
  launch.id = number<uint64_t>(at(id));
  launch.pid = number<uint32_t>(at(pid));
  launch.process_name = at(process);
  launch.host = at(host);
  launch.kernel_name = at(kernel);
  launch.context = number<uint32_t>(at(context));
  launch.stream = number<uint32_t>(at(stream));
  launch.device = number<uint32_t>(at(device));
  launch.compute_capability = at(cc);
  launch.has_config = parse_dims(at(block), launch.block) && parse_dims(at(grid), launch.grid);
}

void check_width(const std::vector<std::string>& row, size_t width, const CsvReader& reader) {
  if (row.size() != width)
    throw Error("line " + std::to_string(reader.line()) + " has " + std::to_string(row.size()) +
                " fields, the header " + std::to_string(width) + " (the file is cut short or not one CSV table)");
}

}  // namespace gpuscope::ncu

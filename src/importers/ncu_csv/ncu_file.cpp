// read_file(): finds the header past ncu's own lines and the program's output, tells the page
// by its columns and hands the rest to that page's reader (raw_page.cpp, details_page.cpp), the
// file streamed through CsvReader a chunk at a time.
#include <algorithm>
#include <charconv>
#include <memory>

#include "common/error.h"
#include "importers/ncu_csv/page_readers.h"

namespace gpuscope::ncu {

namespace {

bool has(const std::vector<std::string>& fields, std::string_view name) {
  return std::find(fields.begin(), fields.end(), name) != fields.end();
}

// The first unsigned number in `text` after `marker`, or 0.
uint64_t number_after(std::string_view text, std::string_view marker) {
  const size_t at = text.find(marker);
  if (at == std::string_view::npos) return 0;
  size_t pos = at + marker.size();
  while (pos < text.size() && text[pos] == ' ') ++pos;
  uint64_t n = 0;
  std::from_chars(text.data() + pos, text.data() + text.size(), n);
  return n;
}

// What ncu's "==PROF==" lines tell: the processes it connected to (pid and program), and the
// passes per kernel where its progress lines went to the same file (they go to stderr when only
// stdout is redirected). ncu 2025.3 writes no version into its CSV output.
void read_tool_line(std::string_view line, File& file) {
  if (const uint64_t pid = number_after(line, "Connected to process"); pid > 0) {
    const size_t open = line.find('(');
    const size_t close = line.rfind(')');
    if (open != std::string_view::npos && close != std::string_view::npos && close > open)
      file.command_lines[static_cast<uint32_t>(pid)] = std::string(line.substr(open + 1, close - open - 1));
  }
  if (line.find("Profiling") != std::string_view::npos && line.size() > 7 && line.substr(line.size() - 6) == "passes") {
    const size_t dash = line.rfind("- ");
    if (dash != std::string_view::npos)
      file.passes = std::max(file.passes, static_cast<uint32_t>(number_after(line.substr(dash), "- ")));
  }
}

}  // namespace

uint32_t File::metric_index(const std::string& name) {
  auto it = index_.find(name);
  if (it != index_.end()) return it->second;
  const auto index = static_cast<uint32_t>(metric_names.size());
  metric_names.push_back(name);
  index_.emplace(name, index);
  return index;
}

void File::add_launch(Launch&& launch) {
  ++counts.read;
  if (sink) {
    counts.most_held = std::max<uint64_t>(counts.most_held, 1);  // the one in hand
    sink->take(std::move(launch), *this);
    return;
  }
  launches.push_back(std::move(launch));
  counts.most_held = std::max<uint64_t>(counts.most_held, launches.size());
}

bool is_ncu_header(std::string_view line) {
  if (line.empty() || line.front() != '"') return false;  // ncu quotes every header field
  const std::vector<std::string> fields = split_line_lenient(line);
  return has(fields, "ID") && has(fields, "Kernel Name") && (has(fields, "Process ID") || has(fields, "Metric Name"));
}

File read_stream(CsvReader& reader, LaunchSink* sink) {
  File file;
  std::string_view line;
  bool found = false;
  while (reader.next_line(line)) {
    if (line.rfind("==", 0) == 0) {
      read_tool_line(line, file);
      continue;
    }
    if (is_ncu_header(line)) {
      found = true;
      break;
    }
  }
  if (!found) throw Error("no ncu CSV header (a line naming the columns \"ID\" and \"Kernel Name\")");
  std::vector<std::string> header;
  CsvReader(line).next(header);  // throws when the header itself is cut inside a quote
  reader.refuse_repeats_of(header);
  // ncu's lines between the rows, taken as they are met (in file order, as those above).
  reader.on_tool_line([&file](std::string_view tool_line) { read_tool_line(tool_line, file); });

  const bool details = has(header, "Metric Name") && has(header, "Metric Value");
  file.page = details ? "details" : "raw";
  if (details) {
    read_details_page(header, reader, file);  // into file.launches: a launch's rows may be apart
    file.counts.read = file.launches.size();
    file.counts.most_held = file.launches.size();
  } else {
    file.sink = sink;
    read_raw_page(header, reader, file);
    file.sink = nullptr;
  }
  if (file.counts.read == 0) throw Error("an ncu CSV without any profiled kernel launch");
  if (details && sink) {
    size_t values = 0;
    for (const Launch& launch : file.launches) values += launch.metrics.size();
    sink->expect_values(values);
    for (Launch& launch : file.launches) sink->take(std::move(launch), file);
    file.launches.clear();
  }
  return file;
}

File parse_text(std::string_view text, LaunchSink* sink) {
  CsvReader reader(text);
  return read_stream(reader, sink);
}

File read_file(const std::string& path, LaunchSink* sink) {
  // Streamed: the reader holds a chunk and a record, never the (inflated) file; its bounds,
  // 256 MiB in all among them, are in csv_reader.h.
  try {
    CsvReader reader(std::make_unique<GzipFileSource>(path));
    return read_stream(reader, sink);
  } catch (const Error& e) {
    throw Error(path + ": " + e.what());
  }
}

}  // namespace gpuscope::ncu

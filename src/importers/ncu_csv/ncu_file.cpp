// read_file(): finds the header past ncu's own lines and the program's output, tells the page
// by its columns and hands the rest to that page's reader (raw_page.cpp, details_page.cpp).
#include <zlib.h>

#include <algorithm>
#include <charconv>

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

bool is_ncu_header(std::string_view line) {
  if (line.empty() || line.front() != '"') return false;  // ncu quotes every header field
  const std::vector<std::string> fields = split_line_lenient(line);
  return has(fields, "ID") && has(fields, "Kernel Name") && (has(fields, "Process ID") || has(fields, "Metric Name"));
}

File parse_text(std::string_view text) {
  File file;
  CsvReader reader(text);
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

  const bool details = has(header, "Metric Name") && has(header, "Metric Value");
  file.page = details ? "details" : "raw";
  if (details) read_details_page(header, reader, file);
  else read_raw_page(header, reader, file);
  for (std::string_view tool_line : reader.tool_lines()) read_tool_line(tool_line, file);
  if (file.launches.empty()) throw Error("an ncu CSV without any profiled kernel launch");
  return file;
}

// The largest CSV read, bytes: it is held whole while parsed, so a small .gz that inflates to
// gigabytes (a gzip bomb) ends here. The raw page of the full set is 16.4 KB per launch (2238
// metrics, tests/data/ncu/bsr_spmm_full_raw.csv): 256 MiB holds 16,000 such launches, hours of
// ncu replay at its pace of a second or more per launch.
constexpr size_t kMaxCsvBytes = size_t{256} << 20;

File read_file(const std::string& path) {
  // gzread reads a plain file as it is and a gzip file decompressed.
  gzFile in = gzopen(path.c_str(), "rb");
  if (!in) throw Error(path + ": cannot read the file");
  std::string text;
  char buffer[1 << 16];
  int got = 0;
  while ((got = gzread(in, buffer, sizeof buffer)) > 0) {
    if (text.size() + static_cast<size_t>(got) > kMaxCsvBytes) {
      gzclose(in);
      throw Error(path + ": an ncu CSV of more than 256 MiB (uncompressed); profile fewer launches per file");
    }
    text.append(buffer, static_cast<size_t>(got));
  }
  gzclose(in);
  if (got < 0) throw Error(path + ": cannot read the file (corrupt gzip data)");
  try {
    return parse_text(text);
  } catch (const Error& e) {
    throw Error(path + ": " + e.what());
  }
}

}  // namespace gpuscope::ncu

// The "Source" section: the sampled kernels (`profile --source`), then for each of the hottest
// its source lines, loops and SASS instructions by PC samples, with their stall reasons
// (analysis_source.h). Only for traces with PC samples.
#include <fmt/format.h>

#include <algorithm>

#include "gpuscope/analysis_source.h"
#include "report/builder.h"
#include "report/units.h"

namespace gpuscope::report {
namespace {

constexpr size_t kStallsShown = 2;  // reasons per row in the Stalls column

double share(uint64_t part, uint64_t whole) {
  return whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0;
}

// "long_scoreboard 62%, lg_throttle 30%".
std::string stall_text(const std::vector<analysis::StallSamples>& stalls, uint64_t samples) {
  std::string out;
  for (size_t i = 0; i < stalls.size() && i < kStallsShown; ++i)
    out += fmt::format("{}{} {}", i ? ", " : "", stalls[i].reason, format_percent(share(stalls[i].samples, samples)));
  return out;
}

std::string pc_text(uint64_t pc) { return fmt::format("{:#06x}", pc); }

// The top reason as two machine columns, so JSON readers need not parse the Stalls text.
void add_top_stall(std::vector<Cell>& row, const std::vector<analysis::StallSamples>& stalls, uint64_t samples) {
  row.push_back(text(stalls.empty() ? "" : stalls.front().reason));
  row.push_back(stalls.empty() ? opt_num(std::nullopt, Unit::Percent)
                               : num(share(stalls.front().samples, samples), Unit::Percent));
}

void add_stall_columns(Table& t) {
  t.columns.push_back(text_column("stalls", "Stalls (share of its samples)"));
  t.columns.push_back({"top_stall", "Top stall", std::nullopt, TextStyle::Plain, true});
  t.columns.push_back(machine_column("top_stall_percent", "Top stall %", Unit::Percent));
}

Table sampled_kernels_table(const analysis::SourceProfile& profile, size_t top) {
  Table t;
  t.key = "sampled_kernels";
  t.title = "Sampled kernels";
  t.columns = {text_column("kernel", "Kernel", TextStyle::Identifier), num_column("samples", "Samples", Unit::Count),
               num_column("share", "Share", Unit::Percent), num_column("pcs", "PCs", Unit::Count),
               text_column("hottest_line", "Hottest line", TextStyle::Identifier)};
  add_stall_columns(t);
  for (const analysis::KernelSource& k : profile.kernels) {
    std::vector<Cell> row{text(k.name), num(static_cast<double>(k.samples), Unit::Count),
                          num(share(k.samples, profile.samples), Unit::Percent),
                          num(static_cast<double>(k.pcs), Unit::Count),
                          text(k.lines.empty() ? "" : analysis::short_place(k.lines.front().location))};
    row.push_back(text(stall_text(k.stalls, k.samples)));
    add_top_stall(row, k.stalls, k.samples);
    t.rows.push_back(std::move(row));
  }
  t.notes.push_back(
      "A sample is one warp seen at one instruction; a kernel's samples are summed over all its launches. Stalls: why "
      "the sampled warps were not issuing (ncu's names; `selected`: issuing).");
  limit_rows(t, top);
  return t;
}

Table hotspot_table(const analysis::KernelSource& k, bool lines, size_t top) {
  Table t;
  t.key = lines ? "source_lines" : "sass_instructions";
  t.title = (lines ? "Hottest lines of " : "Hottest instructions of ") + k.name;
  if (lines) {
    t.columns = {text_column("line", "Line", TextStyle::Identifier), machine_column("pc", "Hottest PC", Unit::Plain)};
  } else {
    t.columns = {text_column("pc", "PC"), text_column("sass", "SASS", TextStyle::Identifier),
                 text_column("line", "Line", TextStyle::Identifier)};
  }
  t.columns.push_back(num_column("samples", "Samples", Unit::Count));
  t.columns.push_back(num_column("share", "Share", Unit::Percent));
  add_stall_columns(t);
  t.columns.push_back(text_column("waits_at", "Waits at", TextStyle::Identifier));
  bool barrier = false;
  for (const analysis::SourceHotspot& h : lines ? k.lines : k.instructions) {
    std::vector<Cell> row;
    if (lines) {
      row = {text(analysis::short_place(h.location)), num(static_cast<double>(h.pc), Unit::Plain)};
    } else {
      row = {text(pc_text(h.pc)), text(h.instruction), text(analysis::short_place(h.location))};
    }
    row.push_back(num(static_cast<double>(h.samples), Unit::Count));
    row.push_back(num(h.share_percent, Unit::Percent));
    row.push_back(text(stall_text(h.stalls, h.samples)));
    add_top_stall(row, h.stalls, h.samples);
    // Lines: the barrier's line (its PC without a line table); instructions: its PC and line.
    std::string waits = analysis::short_place(h.waits_at);
    if (h.barrier_pc && (!lines || waits.empty()))
      waits = pc_text(*h.barrier_pc) + (waits.empty() || lines ? "" : " " + waits);
    row.push_back(text(waits));
    barrier = barrier || h.barrier_pc.has_value();
    t.rows.push_back(std::move(row));
  }
  // Columns with nothing to show stay in JSON only: no SASS without nvdisasm, no barrier-bound row.
  for (Column& c : t.columns)
    if ((c.key == "sass" && !k.has_sass) || (c.key == "waits_at" && !barrier)) c.for_machines = true;
  if (barrier)
    t.notes.push_back(
        "Waits at: the barrier (BAR, a __syncthreads) the warps of a barrier-bound row wait at. The GPU samples a "
        "warp waiting at a barrier at an instruction after it, so the row is one after the barrier.");
  if (lines && k.lines.empty())
    t.empty_text = k.has_cubin ? "no line table in its cubin (libraries such as cuBLAS ship without one; build "
                                 "your own kernels with nvcc -lineinfo to see their lines)"
                               : "the capture has no cubin for this kernel";
  limit_rows(t, top);
  return t;
}

// "source_hotspots.cu:40-47" (one line: "source_hotspots.cu:53"); empty without a line table.
std::string lines_text(const analysis::HotLoop& l) {
  if (l.first_line == 0) return "";
  const std::string place = analysis::short_place({l.file, l.first_line});
  return l.last_line > l.first_line ? fmt::format("{}-{}", place, l.last_line) : place;
}

Table loops_table(const analysis::KernelSource& k, size_t top) {
  Table t;
  t.key = "hot_loops";
  t.title = "Hot loops of " + k.name;
  t.columns = {text_column("loop", "Loop (PCs)"), text_column("lines", "Lines", TextStyle::Identifier),
               num_column("instructions", "Instructions", Unit::Count), num_column("samples", "Samples", Unit::Count),
               num_column("share", "Share", Unit::Percent)};
  add_stall_columns(t);
  for (const analysis::HotLoop& l : k.loops) {
    std::vector<Cell> row{text(pc_text(l.first_pc) + "-" + pc_text(l.branch_pc)),
                          text(lines_text(l)),
                          num(static_cast<double>(l.instructions), Unit::Count),
                          num(static_cast<double>(l.samples), Unit::Count),
                          num(l.share_percent, Unit::Percent),
                          text(stall_text(l.stalls, l.samples))};
    add_top_stall(row, l.stalls, l.samples);
    t.rows.push_back(std::move(row));
  }
  t.notes.push_back(
      "A loop: a backward branch in the SASS and the instructions from its target to it; a loop inside another "
      "counts in both.");
  limit_rows(t, top);
  return t;
}

Table excerpt_table(const analysis::KernelSource& k) {
  Table t;
  t.key = "source_excerpt";
  t.title = "Source around the hottest line of " + k.name;
  t.columns = {num_column("line", "Line", Unit::Plain), text_column("code", "Code", TextStyle::Identifier),
               num_column("samples", "Samples", Unit::Count), num_column("share", "Share", Unit::Percent)};
  add_stall_columns(t);
  for (const analysis::SourceLineText& l : k.excerpt) {
    // A line without samples shows its code alone, so the sampled ones stand out.
    const bool sampled = l.samples > 0;
    std::vector<Cell> row{num(l.line, Unit::Plain), text(l.code),
                          sampled ? num(static_cast<double>(l.samples), Unit::Count) : Cell{},
                          sampled ? num(l.share_percent, Unit::Percent) : Cell{},
                          text(stall_text(l.stalls, l.samples))};
    add_top_stall(row, l.stalls, l.samples);
    t.rows.push_back(std::move(row));
  }
  t.notes.push_back(k.excerpt_file +
                    ", as it is on the machine that made this report: if it changed since the build, "
                    "the lines may not match the samples.");
  return t;
}

// The source view's stall columns: every reason of the viewed kernels, by their samples.
std::vector<std::string> view_reasons(const analysis::SourceProfile& profile, size_t viewed) {
  std::vector<analysis::StallSamples> all;
  for (size_t i = 0; i < profile.kernels.size() && i < viewed; ++i)
    for (const analysis::StallSamples& s : profile.kernels[i].stalls)
      analysis::add_stall(all, s.reason, s.samples, s.not_issued);
  analysis::sort_stalls(all);
  std::vector<std::string> out;
  for (const analysis::StallSamples& s : all) out.push_back(s.reason);
  return out;
}

// A view table's columns: the kernel (its row in Sampled kernels), then `place`, then samples and
// one column per stall reason (empty cells: no samples).
Table view_table(std::string key, std::string title, std::vector<Column> place,
                 const std::vector<std::string>& reasons) {
  Table t;
  t.key = std::move(key);
  t.title = std::move(title);
  t.for_machines = true;
  t.columns = {num_column("kernel", "Kernel (its row in Sampled kernels)", Unit::Count)};
  t.columns.insert(t.columns.end(), place.begin(), place.end());
  t.columns.push_back(num_column("samples", "Samples", Unit::Count));
  t.columns.push_back(num_column("share", "Share", Unit::Percent));
  for (const std::string& r : reasons) t.columns.push_back(num_column("stall_" + r, r, Unit::Count));
  return t;
}

void add_view_samples(std::vector<Cell>& row, uint64_t samples, double share_percent,
                      const std::vector<analysis::StallSamples>& stalls, const std::vector<std::string>& reasons) {
  const auto count = [](uint64_t n) { return n ? num(static_cast<double>(n), Unit::Count) : Cell{}; };
  row.push_back(count(samples));
  row.push_back(samples ? num(share_percent, Unit::Percent) : Cell{});
  for (const std::string& r : reasons) {
    const auto it = std::find_if(stalls.begin(), stalls.end(), [&](const auto& s) { return s.reason == r; });
    row.push_back(count(it == stalls.end() ? 0 : it->samples));
  }
}

// The HTML page's source view: each viewed kernel's files (its sampled lines with their
// neighbours) and its SASS listing, every row with its samples by stall reason. The viewed
// kernels: the first kSourceKernelsShown, within the rows Sampled kernels shows.
std::vector<Table> source_view_tables(const analysis::SourceProfile& profile, size_t top) {
  const size_t viewed = top ? std::min(top, kSourceKernelsShown) : kSourceKernelsShown;
  const std::vector<std::string> reasons = view_reasons(profile, viewed);
  Table lines = view_table("source_view", "Source view: the sampled lines with their neighbours",
                           {text_column("file", "File", TextStyle::Identifier), num_column("line", "Line", Unit::Plain),
                            text_column("code", "Code", TextStyle::Identifier)},
                           reasons);
  Table sass = view_table("sass_view", "Source view: the kernels' SASS",
                          {num_column("pc", "PC", Unit::Plain), text_column("sass", "SASS", TextStyle::Identifier),
                           text_column("file", "File", TextStyle::Identifier), num_column("line", "Line", Unit::Plain)},
                          reasons);
  for (size_t i = 0; i < profile.kernels.size() && i < viewed; ++i) {
    const analysis::KernelSource& k = profile.kernels[i];
    const Cell kernel = num(static_cast<double>(i + 1), Unit::Count);
    for (const analysis::SourceFileText& f : k.files)
      for (const analysis::SourceLineText& l : f.lines) {
        std::vector<Cell> row{kernel, text(f.file), num(l.line, Unit::Plain), text(l.code)};
        add_view_samples(row, l.samples, l.share_percent, l.stalls, reasons);
        lines.rows.push_back(std::move(row));
      }
    for (const analysis::SourceHotspot& h : k.listing) {
      std::vector<Cell> row{kernel, num(static_cast<double>(h.pc), Unit::Plain), text(h.instruction),
                            text(h.location.file), h.location.line ? num(h.location.line, Unit::Plain) : Cell{}};
      add_view_samples(row, h.samples, h.share_percent, h.stalls, reasons);
      sass.rows.push_back(std::move(row));
    }
  }
  std::vector<Table> out;
  for (Table* t : {&lines, &sass})
    if (!t->rows.empty()) out.push_back(std::move(*t));
  return out;
}

}  // namespace

Section build_source_section(const analysis::SourceProfile& profile, size_t top, bool resolved) {
  Section s;
  s.key = "source";
  s.title = "Source: where the kernels' warps are";
  s.lines.push_back({"pc_samples", "PC samples", num(static_cast<double>(profile.samples), Unit::Count),
                     profile.period_log2
                         ? fmt::format("one every 2^{} cycles per SM sub-partition", profile.period_log2)
                         : std::string()});
  if (profile.dropped_samples)
    s.lines.push_back({"dropped_samples", "Dropped by the GPU",
                       num(static_cast<double>(profile.dropped_samples), Unit::Count),
                       "its sampling buffer was full; a larger --source-period drops fewer"});
  s.tables.push_back(sampled_kernels_table(profile, top));
  for (size_t i = 0; i < profile.kernels.size() && i < kSourceKernelsShown; ++i) {
    const analysis::KernelSource& k = profile.kernels[i];
    s.tables.push_back(hotspot_table(k, true, top));
    if (!k.loops.empty()) s.tables.push_back(loops_table(k, top));
    if (!k.excerpt.empty()) s.tables.push_back(excerpt_table(k));
    s.tables.push_back(hotspot_table(k, false, top));
  }
  for (Table& t : source_view_tables(profile, top)) s.tables.push_back(std::move(t));
  if (!resolved)
    s.notes.push_back("Lines and SASS were not read from the capture's cubins (no resolver in this build).");
  else if (!profile.sass_unavailable.empty()) s.notes.push_back("No SASS: " + profile.sass_unavailable + ".");
  return s;
}

}  // namespace gpuscope::report

// The "Ranks" section: the GPU processes of one job side by side (analysis_ranks.h): each one's
// compute and communication time, how much communication hides behind compute, the collectives,
// and the straggler every other rank waits for. Only for traces with two or more GPU processes.
#include <fmt/format.h>

#include "gpuscope/analysis_ranks.h"
#include "report/builder.h"
#include "report/units.h"

namespace gpuscope::report {
namespace {

std::string rank_name(int32_t rank, uint32_t pid) {
  return rank >= 0 ? fmt::format("rank {} (pid {})", rank, pid) : fmt::format("pid {}", pid);
}

std::string devices_text(const std::vector<uint32_t>& devices) {
  std::string out;
  for (uint32_t d : devices) out += (out.empty() ? "" : ", ") + std::to_string(d);
  return out;
}

void add_straggler_line(Section& s, const analysis::Straggler& st) {
  std::string note = fmt::format("last to arrive at {} of {} collectives; the other ranks waited {} for it in all",
                                 st.last_count, st.matched, format_duration(static_cast<double>(st.late_ns)));
  if (st.steps > 0)
    note += fmt::format("; median {} per {} ({} of its {} step; {} steps)", format_duration(st.late_per_step_ns),
                        st.step_range, format_percent(100.0 * st.share_of_step), format_duration(st.step_ns), st.steps);
  else note += fmt::format(" ({} of the time the ranks communicated)", format_percent(100.0 * st.share_of_step));
  s.lines.push_back({"straggler", "Straggler", text(rank_name(st.rank, st.pid)), note});
  if (st.cause) s.lines.push_back({"straggler_cause", "Likely cause", text(to_string(st.cause->kind)), st.cause->text});
}

// Each kind and message size once, in the analysis's order (largest first within a kind).
void add_bandwidth_table(Section& s, const analysis::RanksAnalysis& ranks, size_t top) {
  if (ranks.sizes.empty()) return;
  const double peak = ranks.link.bytes_per_s;
  Table t;
  t.key = "collective_bandwidth";
  t.title = "Collective bandwidth";
  t.columns = {text_column("collective", "Collective"),
               num_column("bytes", "Size", Unit::Bytes),
               num_column("ranks", "Ranks", Unit::Count),
               num_column("operations", "Ops", Unit::Count),
               num_column("median", "Median", Unit::Ns),
               num_column("algorithm_bandwidth", "Alg bandwidth", Unit::BytesPerSecond),
               num_column("bus_bandwidth", "Bus bandwidth", Unit::BytesPerSecond),
               num_column("link_percent", "% of link", Unit::Percent)};
  for (const analysis::CollectiveSize& c : ranks.sizes)
    t.rows.push_back(
        {text(to_string(c.kind)), num(static_cast<double>(c.bytes), Unit::Bytes), num(c.ranks, Unit::Count),
         num(static_cast<double>(c.operations), Unit::Count), num(c.median_ns, Unit::Ns),
         num(c.algorithm_bps, Unit::BytesPerSecond), num(c.bus_bps, Unit::BytesPerSecond),
         opt_num(peak > 0 ? std::optional<double>(100.0 * c.bus_bps / peak) : std::nullopt, Unit::Percent)});
  t.notes.push_back(
      "Each matched operation once, timed on the rank that arrived last (its kernel waited for no one). "
      "Size: one rank's larger buffer, as NCCL recorded it (nccl-tests' size). Bus bandwidth: what each "
      "link carried, size / time x 2(n-1)/n for all-reduce, x (n-1)/n for all-gather, reduce-scatter "
      "and all-to-all. Link: " +
      ranks.link.what + ".");
  if (ranks.unsized_operations > 0)
    t.notes.push_back(fmt::format("{} of {} matched operations had no recorded size and are not in this table.",
                                  ranks.unsized_operations, ranks.unsized_operations + ranks.sized_operations));
  limit_rows(t, top);
  s.tables.push_back(std::move(t));
}

}  // namespace

std::optional<Section> build_ranks_section(const Trace& trace, size_t top) {
  return build_ranks_section(analysis::analyze_ranks(trace), top);
}

std::optional<Section> build_ranks_section(const std::optional<analysis::RanksAnalysis>& ranks, size_t top) {
  if (!ranks) return std::nullopt;
  Section s;
  s.key = "ranks";
  s.title = "Ranks";
  s.lines.push_back({"gpu_processes", "GPU processes", num(static_cast<double>(ranks->ranks.size()), Unit::Count),
                     "processes that ran kernels, side by side"});
  if (ranks->straggler) {
    add_straggler_line(s, *ranks->straggler);
  } else if (ranks->matched > 0) {
    s.lines.push_back({"straggler", "Straggler", text("none"),
                       "no rank arrived last at most collectives, late by 5 % of its step or more"});
  }
  if (ranks->matched > 0)
    s.lines.push_back(
        {"matched_collectives", "Matched collectives", num(static_cast<double>(ranks->matched), Unit::Count),
         ranks->matching_note.empty() ? "the k-th collective of every rank, one operation" : ranks->matching_note});

  Table t;
  t.key = "ranks";
  t.title = "GPU time per rank";
  t.columns = {text_column("rank", "Rank"),
               text_column("devices", "GPUs"),
               num_column("kernels", "Kernels", Unit::Count),
               num_column("gpu_busy", "GPU busy", Unit::Ns),
               num_column("compute", "Compute", Unit::Ns),
               num_column("communication", "Comm", Unit::Ns),
               num_column("overlap_percent", "Comm hidden %", Unit::Percent),
               num_column("waited", "Waited", Unit::Ns),
               num_column("last", "Last", Unit::Count)};
  for (const analysis::RankSummary& r : ranks->ranks)
    t.rows.push_back(
        {text(rank_name(r.rank, r.pid)), text(devices_text(r.devices)),
         num(static_cast<double>(r.kernels), Unit::Count), num(static_cast<double>(r.gpu_busy_ns), Unit::Ns),
         num(static_cast<double>(r.compute_ns), Unit::Ns), num(static_cast<double>(r.comm_ns), Unit::Ns),
         opt_num(analysis::share_percent(static_cast<double>(r.overlap_ns), static_cast<double>(r.comm_ns)),
                 Unit::Percent),
         num(static_cast<double>(r.waited_ns), Unit::Ns), num(static_cast<double>(r.last_count), Unit::Count)});
  t.notes.push_back(
      "Compute and Comm: time covered by its compute and its NCCL kernels. Comm hidden %: communication "
      "during which its compute kernels ran too. Waited: time its collectives spent waiting for a later "
      "rank to arrive; Last: collectives it arrived last at.");
  limit_rows(t, top);
  s.tables.push_back(std::move(t));

  if (!ranks->collectives.empty()) {
    Table c;
    c.key = "collectives";
    c.title = "Collectives";
    c.columns = {text_column("collective", "Collective"), num_column("kernels", "Kernels", Unit::Count),
                 num_column("total", "Total", Unit::Ns), num_column("median", "Median", Unit::Ns)};
    for (const analysis::CollectiveGroup& g : ranks->collectives)
      c.rows.push_back({text(to_string(g.kind)), num(static_cast<double>(g.kernels), Unit::Count),
                        num(static_cast<double>(g.total_ns), Unit::Ns), num(g.median_ns, Unit::Ns)});
    c.notes.push_back("NCCL kernels of every rank by kind; a kernel's time includes its wait for the other ranks.");
    s.tables.push_back(std::move(c));
  }
  add_bandwidth_table(s, *ranks, top);
  return s;
}

}  // namespace gpuscope::report

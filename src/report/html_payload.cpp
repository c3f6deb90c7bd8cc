// encode_html_payload(): the report JSON and the timeline's columns, gzipped and base64'd.
#include "report/html_payload.h"

#include <array>
#include <cmath>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

#include "export/gzip.h"
#include "report/renderers.h"

namespace gpuscope::report {
namespace {

using Json = nlohmann::ordered_json;

// zlib level 1: on the payload of a 1M-launch storm (38.7 MB) it takes 0.52 s against 3.97 s at
// the default level 6, for 12.5 MB instead of 11.7 MB (gzip -1 / -6 of that payload, 2-core VM).
constexpr int kGzipLevel = 1;

// Column blocks: each column is stored in the narrowest type that holds all its values exactly.
class Columns {
 public:
  Json add(const std::vector<double>& values) {
    bool integral = true;
    double max = 0;
    for (double v : values) {
      if (v < 0 || v != std::floor(v) || v > 4294967295.0) integral = false;
      max = std::max(max, v);
    }
    const char* type = !integral ? "f64" : max < 256 ? "u8" : max < 65536 ? "u16" : "u32";
    const size_t width = !integral ? 8 : max < 256 ? 1 : max < 65536 ? 2 : 4;
    bytes_.resize((bytes_.size() + 7) / 8 * 8, '\0');  // typed-array views need aligned offsets
    const size_t offset = bytes_.size();
    bytes_.resize(offset + values.size() * width);
    char* out = bytes_.data() + offset;
    for (size_t i = 0; i < values.size(); ++i, out += width) {
      const double v = values[i];
      if (width == 8) {
        std::memcpy(out, &v, 8);
        continue;
      }
      const uint32_t u = static_cast<uint32_t>(v);
      std::memcpy(out, &u, width);  // little-endian hosts only (x86-64, arm64), as the page assumes
    }
    return Json{{"t", type}, {"o", offset}, {"c", values.size()}};
  }
  std::string& bytes() { return bytes_; }

 private:
  std::string bytes_;
};

struct LaunchConfig {
  std::array<int64_t, 13> v;  // grid xyz, block xyz, cluster xyz, registers, static, dynamic shared, local
  bool operator<(const LaunchConfig& o) const { return v < o.v; }
};

class TimelineEncoder {
 public:
  TimelineEncoder(const TimelineView& timeline, Columns& columns)
      : trace_(*timeline.trace), layout_(timeline.layout), columns_(columns) {}

  Json encode() {
    Json j;
    j["origin"] = std::to_string(layout_.origin);  // ns since the epoch: beyond a double's exact range
    j["end"] = layout_.end - layout_.origin;
    j["untimed"] = layout_.untimed;
    j["names"] = layout_.names;
    Json kinds = Json::array();
    for (int k = 0; k <= static_cast<int>(MemoryKind::ManagedStatic); ++k)
      kinds.push_back(to_string(static_cast<MemoryKind>(k)));
    j["memory_kinds"] = kinds;
    Json groups = Json::array();
    for (const tracks::Group& g : layout_.groups)
      groups.push_back({{"kind", g.kind == tracks::GroupKind::Process ? "process" : "device"},
                        {"pid", g.pid},
                        {"device", g.device},
                        {"run", g.run_id},
                        {"rank", g.rank},
                        {"name", g.name},
                        {"tracks", g.tracks},
                        {"counters", g.counters}});
    j["groups"] = std::move(groups);
    Json tracks = Json::array();
    for (const tracks::Track& t : layout_.tracks) tracks.push_back(track(t));
    j["tracks"] = std::move(tracks);
    Json counters = Json::array();
    for (const tracks::Counter& c : layout_.counters) counters.push_back(counter(c));
    j["counters"] = std::move(counters);
    Json configs = Json::array();
    configs.push_back(nullptr);  // index 0: not a kernel
    std::vector<const LaunchConfig*> by_index(configs_.size());
    for (const auto& [config, index] : configs_) by_index[index - 1] = &config;
    for (const LaunchConfig* c : by_index) configs.push_back(c->v);
    j["configs"] = std::move(configs);
    return j;
  }

 private:
  static const char* kind_name(tracks::TrackKind kind) {
    switch (kind) {
      case tracks::TrackKind::Thread: return "thread";
      case tracks::TrackKind::Stream: return "stream";
      case tracks::TrackKind::NvtxRanges: return "nvtx";
      case tracks::TrackKind::Overhead: return "overhead";
    }
    return "?";
  }

  Json track(const tracks::Track& t) {
    const size_t n = t.slices.size();
    std::vector<double> start(n), dur(n), name(n), kind(n), row(n), corr(n);
    TimeNs previous = layout_.origin;
    for (size_t i = 0; i < n; ++i) {
      const tracks::Slice& s = t.slices[i];
      start[i] = double(s.start - previous);  // deltas: small numbers pack into narrow columns
      previous = s.start;
      dur[i] = double(s.end - s.start);
      name[i] = s.name;
      kind[i] = double(s.kind);
      row[i] = s.row;
      corr[i] = tracks::correlation_of(trace_, layout_, s);
    }
    Json cols;
    cols["s"] = columns_.add(start);
    cols["d"] = columns_.add(dur);
    cols["n"] = columns_.add(name);
    cols["k"] = columns_.add(kind);
    cols["r"] = columns_.add(row);
    cols["c"] = columns_.add(corr);
    if (t.kind == tracks::TrackKind::Stream) add_gpu_details(t, cols);
    if (t.kind == tracks::TrackKind::Thread) {
      std::vector<double> result(n);
      for (size_t i = 0; i < n; ++i) {
        const tracks::Slice& s = t.slices[i];
        const bool api = s.kind == tracks::SliceKind::RuntimeApi || s.kind == tracks::SliceKind::DriverApi;
        result[i] = api ? double(trace_.api_calls[s.source].return_code) : 0;
      }
      cols["e"] = columns_.add(result);
    }
    std::vector<double> mark_time(t.marks.size()), mark_name(t.marks.size());
    previous = layout_.origin;
    for (size_t i = 0; i < t.marks.size(); ++i) {
      mark_time[i] = double(t.marks[i].time - previous);
      previous = t.marks[i].time;
      mark_name[i] = t.marks[i].name;
    }
    return {{"group", t.group},
            {"kind", kind_name(t.kind)},
            {"name", t.name},
            {"rows", t.rows},
            {"nests", t.nests},
            {"count", n},
            {"cols", std::move(cols)},
            {"marks", {{"count", t.marks.size()}, {"t", columns_.add(mark_time)}, {"n", columns_.add(mark_name)}}}};
  }

  // Kernels: their launch configuration (an index into "configs"); copies and memsets: bytes
  // and memory kinds (source << 4 | destination; a memset's kind alone); graph replays: their
  // ordinal, their graph's replays and their nodes on all streams.
  void add_gpu_details(const tracks::Track& t, Json& cols) {
    const size_t n = t.slices.size();
    std::vector<double> config(n), bytes(n), memory(n), replay(n), replays(n), nodes(n);
    bool graphs = false;
    for (size_t i = 0; i < n; ++i) {
      const tracks::Slice& s = t.slices[i];
      if (s.kind == tracks::SliceKind::Kernel) {
        const Kernel& k = trace_.kernels[s.source];
        const LaunchConfig c{{k.grid[0], k.grid[1], k.grid[2], k.block[0], k.block[1], k.block[2], k.cluster[0],
                              k.cluster[1], k.cluster[2], k.registers_per_thread, k.static_shared_bytes,
                              k.dynamic_shared_bytes, k.local_bytes_per_thread}};
        config[i] = double(configs_.try_emplace(c, configs_.size() + 1).first->second);
      } else if (s.kind == tracks::SliceKind::Memcpy) {
        const Memcpy& m = trace_.memcpys[s.source];
        bytes[i] = double(m.bytes);
        memory[i] = double(int(m.src_kind) << 4 | int(m.dst_kind));
      } else if (s.kind == tracks::SliceKind::Memset) {
        const Memset& m = trace_.memsets[s.source];
        bytes[i] = double(m.bytes);
        memory[i] = double(m.memory_kind);
      } else if (s.kind == tracks::SliceKind::GraphReplay) {
        const tracks::GraphReplay& r = layout_.graph_replays[s.source];
        replay[i] = r.replay, replays[i] = r.replays, nodes[i] = r.nodes;
        graphs = true;
      }
    }
    cols["g"] = columns_.add(config);
    cols["b"] = columns_.add(bytes);
    cols["m"] = columns_.add(memory);
    if (!graphs) return;
    cols["q"] = columns_.add(replay);
    cols["qn"] = columns_.add(replays);
    cols["o"] = columns_.add(nodes);
  }

  Json counter(const tracks::Counter& c) {
    std::vector<double> time, value;
    for (const tracks::CounterPoint& p : c.points) {
      time.push_back(double(p.time - layout_.origin));
      value.push_back(std::isfinite(p.value) ? p.value : 0);
    }
    return {{"group", c.group},
            {"name", c.name},
            {"key", c.key},
            {"unit", c.unit},
            {"end", c.end - layout_.origin},
            {"t", columns_.add(time)},
            {"v", columns_.add(value)}};
  }

  const Trace& trace_;
  const tracks::Layout& layout_;
  Columns& columns_;
  std::map<LaunchConfig, size_t> configs_;
};

void put_u32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

std::string base64(const std::string& in) {
  static constexpr char kDigits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  size_t i = 0;
  const auto byte = [&](size_t k) { return static_cast<uint32_t>(static_cast<unsigned char>(in[k])); };
  for (; i + 2 < in.size(); i += 3) {
    const uint32_t v = byte(i) << 16 | byte(i + 1) << 8 | byte(i + 2);
    for (int s : {18, 12, 6, 0}) out.push_back(kDigits[(v >> s) & 63]);
  }
  if (i < in.size()) {
    const bool two = i + 1 < in.size();
    const uint32_t v = byte(i) << 16 | (two ? byte(i + 1) << 8 : 0);
    out.push_back(kDigits[(v >> 18) & 63]);
    out.push_back(kDigits[(v >> 12) & 63]);
    out.push_back(two ? kDigits[(v >> 6) & 63] : '=');
    out.push_back('=');
  }
  return out;
}

// Each linked table's spans, relative to the timeline's origin, with their process: [start, end, pid].
Json evidence(const Report& report, TimeNs origin) {
  Json j = Json::object();
  for (const Section& s : report.sections)
    for (const Table& t : s.tables) {
      if (t.spans.empty()) continue;
      Json spans = Json::array();
      for (const EvidenceSpan& span : t.spans) spans.push_back({span.start - origin, span.end - origin, span.pid});
      j[evidence_id(t)] = std::move(spans);
    }
  return j;
}

}  // namespace

std::string evidence_id(const Table& t) {
  constexpr std::string_view kPrefix = "finding_";
  return t.key.rfind(kPrefix, 0) == 0 ? t.key.substr(kPrefix.size()) : t.key;
}

std::string encode_html_payload(const Report& report) {
  Columns columns;
  std::string timeline = "null";
  if (report.timeline && report.timeline->trace) {
    Json j = TimelineEncoder(*report.timeline, columns).encode();
    j["evidence"] = evidence(report, report.timeline->layout.origin);
    j["profiler_time_cut"] = report.timeline->profiler_time_cut;
    if (report.steady) {
      const TimeNs origin = report.timeline->layout.origin;
      j["steady"] = {{"start", report.steady->start - origin},
                     {"end", report.steady->end - origin},
                     {"pid", report.steady->pid},
                     {"range", report.steady->range},
                     {"steps", report.steady->steps}};
    }
    timeline = j.dump(-1, ' ', false, Json::error_handler_t::replace);
  }
  // render_json already replaces invalid UTF-8; the report JSON goes in as it is written.
  const std::string header = "{\"report\":" + render_json(report) + ",\"timeline\":" + timeline + "}";
  std::string raw = "GSPL";
  put_u32(raw, kPayloadVersion);
  put_u32(raw, static_cast<uint32_t>(header.size()));
  raw += header;
  raw.resize((raw.size() + 7) / 8 * 8, '\0');
  raw += columns.bytes();
  return base64(gzip_bytes(raw, kGzipLevel));
}

}  // namespace gpuscope::report

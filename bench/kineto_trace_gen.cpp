// A large Kineto-like trace for the import benchmark (bench/kineto_import_bench.sh): the events of
// a real torch.profiler trace repeated until the output reaches a size, each repetition shifted
// in time and with its ids (External id, correlation, flow id, Sequence number) and step numbers
// (ProfilerStep#N) moved past the previous one's, so links stay one-to-one as in a long run.
//
//   kineto_trace_gen IN.json[.gz] OUT.json --mb 1024
//
// Written compact (no whitespace), so each MB holds more events than Kineto's own indented
// output: MB/s measured on it is, if anything, low.
#include <zlib.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

using nlohmann::json;

namespace {

std::string read_gz(const char* path) {
  gzFile f = gzopen(path, "rb");
  if (!f) throw std::runtime_error(std::string("cannot read ") + path);
  std::string out;
  char buf[1 << 16];
  int n;
  while ((n = gzread(f, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  gzclose(f);
  if (n < 0) throw std::runtime_error(std::string("cannot read ") + path);
  return out;
}

int64_t as_int(const json& v) { return v.is_number() ? v.get<int64_t>() : 0; }

// The largest value of an integer argument over all events, so shifted ids never collide.
int64_t max_arg(const json& events, const char* key) {
  int64_t m = 0;
  for (const json& e : events)
    if (auto a = e.find("args"); a != e.end() && a->is_object())
      if (auto v = a->find(key); v != a->end() && v->is_number()) m = std::max(m, as_int(*v));
  return m;
}

int step_of(const std::string& name) { return name.rfind("ProfilerStep#", 0) == 0 ? std::atoi(name.c_str() + 13) : -1; }

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5 || std::strcmp(argv[3], "--mb") != 0) {
    std::cerr << "usage: kineto_trace_gen IN.json[.gz] OUT.json --mb N\n";
    return 2;
  }
  const uint64_t target = std::strtoull(argv[4], nullptr, 10) << 20;
  json doc = json::parse(read_gz(argv[1]));
  json events = std::move(doc["traceEvents"]);
  doc.erase("traceEvents");

  double first = 1e300, last = -1e300;
  int64_t max_flow = 0;
  int max_step = 0;
  for (const json& e : events) {
    if (!e.contains("ts") || !e["ts"].is_number() || e.value("ph", "") == "M") continue;
    const double ts = e["ts"].get<double>();
    first = std::min(first, ts);
    last = std::max(last, ts + (e.contains("dur") && e["dur"].is_number() ? e["dur"].get<double>() : 0.0));
    if (e.value("cat", "") == "ac2g" && e.contains("id")) max_flow = std::max(max_flow, as_int(e["id"]));
    if (e.contains("name") && e["name"].is_string())
      max_step = std::max(max_step, step_of(e["name"].get<std::string>()));
  }
  // One repetition's shifts: past everything the input holds.
  const double period = (last - first) + 1000.0;  // µs, with a 1 ms gap between repetitions
  const int64_t ext_stride = max_arg(events, "External id") + 1;
  const int64_t corr_stride = std::max(max_arg(events, "correlation"), max_flow) + 1;
  const int64_t seq_stride = max_arg(events, "Sequence number") + 1;
  const int step_stride = max_step + 1;

  std::ofstream out(argv[2], std::ios::binary);
  std::string head = doc.dump();
  head.pop_back();  // the closing '}'
  out << head << (doc.empty() ? "" : ",") << "\"traceEvents\":[";
  uint64_t written = head.size() + 16;
  bool first_event = true;
  for (int64_t r = 0; written < target; ++r) {
    for (const json& original : events) {
      const std::string ph = original.value("ph", "");
      if (r > 0 && (ph == "M" || !original.contains("ts"))) continue;  // metadata once
      json e = original;
      if (e.contains("ts") && e["ts"].is_number() && ph != "M") e["ts"] = e["ts"].get<double>() + r * period;
      if (auto a = e.find("args"); a != e.end() && a->is_object()) {
        for (auto [key, stride] :
             {std::pair{"External id", ext_stride}, {"correlation", corr_stride}, {"Sequence number", seq_stride}})
          if (auto v = a->find(key); v != a->end() && v->is_number() && as_int(*v) > 0) *v = as_int(*v) + r * stride;
      }
      if (e.value("cat", "") == "ac2g" && e.contains("id")) e["id"] = as_int(e["id"]) + r * corr_stride;
      if (e.contains("name") && e["name"].is_string())
        if (const int step = step_of(e["name"].get<std::string>()); step >= 0)
          e["name"] = "ProfilerStep#" + std::to_string(step + r * step_stride);
      const std::string text = e.dump(-1, ' ', false, json::error_handler_t::replace);
      out << (first_event ? "" : ",") << text;
      first_event = false;
      written += text.size() + 1;
    }
  }
  out << "]}";
  std::cerr << "kineto_trace_gen: wrote " << (written >> 20) << " MiB to " << argv[2] << "\n";
  return out ? 0 : 1;
}

// is_chrome_trace() and the walk over the top-level object of a Kineto/Chrome JSON trace:
// "traceEvents" streams event by event; every other member is small (device properties,
// distributed info, versions) and is read whole with nlohmann::json.
#include <algorithm>

#include "common/error.h"
#include "importers/kineto_json/kineto_import.h"

namespace gpuscope {

namespace {

// Top-level members other than traceEvents are a few KB in real traces; far more is not a trace.
constexpr size_t kMaxMetadataBytes = 16 << 20;

}  // namespace

bool is_chrome_trace(const Probe& probe) {
  if (probe.sqlite) return false;
  const std::string_view head = probe.head;
  const size_t first = head.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || head[first] != '{') return false;
  // Kineto writes its device properties and metadata before "traceEvents"; either key tells it.
  return head.find("\"traceEvents\"") != std::string_view::npos ||
         head.find("\"deviceProperties\"") != std::string_view::npos;
}

void read_chrome_trace(const std::string& path, Trace& trace) {
  if (!trace.processes.empty() || !trace.kernels.empty() || !trace.host_ops.empty())
    throw Error(path + ": a trace JSON cannot be combined with other inputs");
  kineto::TraceImport(path, trace).read();
}

namespace kineto {

void TraceImport::read() {
  JsonStream in(path_);
  if (in.next_type() != JsonType::Object) in.fail("not a JSON object with \"traceEvents\"");
  read_top_level(in);
  if (!in.at_end()) in.fail("more data after the JSON object");
  if (!has_events_) throw Error(path_ + ": a JSON object without \"traceEvents\": not a Chrome/Kineto trace");
  finish();
}

void TraceImport::read_top_level(JsonStream& in) {
  in.expect('{', "'{'");
  std::string key, raw;
  for (bool first = true; in.next_key(key, first); first = false) {
    if (key == "traceEvents") {
      if (in.next_type() != JsonType::Array) in.fail("\"traceEvents\" is not an array");
      read_events(in);
      has_events_ = true;
      continue;
    }
    const JsonType type = in.next_type();
    const bool wanted = key == "baseTimeNanoseconds" || key == "deviceProperties" || key == "distributedInfo" ||
                        key == "schemaVersion" || key == "traceName" || key == "cupti_version" ||
                        key == "cuda_runtime_version" || key == "cuda_driver_version" || key == "profile_memory";
    if (!wanted) {
      in.skip_value();
      continue;
    }
    if (key == "baseTimeNanoseconds") {
      // An integer of up to 19 digits: read exactly, never through a double.
      if (type != JsonType::Number) in.fail("\"baseTimeNanoseconds\" is not a number");
      base_ns_ = to_int64(in, in.read_number(), "baseTimeNanoseconds");
      has_base_ = true;
      continue;
    }
    in.read_raw(raw, kMaxMetadataBytes);
    const nlohmann::json value = nlohmann::json::parse(raw, nullptr, false);
    if (value.is_discarded()) in.fail("\"" + key + "\" could not be read");  // not expected: the stream validated it
    auto number = [&](uint32_t& out) {
      if (value.is_number_unsigned() && value.get<uint64_t>() <= UINT32_MAX) out = value.get<uint32_t>();
    };
    if (key == "deviceProperties") device_properties_ = value, kineto_ = true;
    else if (key == "distributedInfo") distributed_info_ = value;
    else if (key == "schemaVersion")
      schema_version_ = value.is_string() ? value.get<std::string>() : value.dump(), kineto_ = true;
    else if (key == "traceName" && value.is_string()) trace_name_ = value.get<std::string>();
    else if (key == "cupti_version") number(cupti_version_);
    else if (key == "cuda_runtime_version") number(runtime_version_);
    else if (key == "cuda_driver_version") number(driver_version_);
    else if (key == "profile_memory" && value.is_number_integer()) profile_memory_ = value.get<int>();
  }
}

void TraceImport::read_events(JsonStream& in) {
  in.expect('[', "'['");
  Event event;
  for (bool first = true; in.next_element(first); first = false) {
    read_event(in, event);
    map(in, event);
    ++event.index;
  }
}

}  // namespace kineto
}  // namespace gpuscope

// read_event(): one trace event object from the stream, keeping what the importer maps and
// skipping the rest (Kineto adds arguments over time; unknown ones are never an error).
#include "importers/kineto_json/kineto_event.h"

#include <string_view>

namespace gpuscope::kineto {

void EventArgs::clear() {
  external_id = correlation = device = context = stream = registers = shared_memory = bytes = {};
  sequence_number = cbid = mem_bytes = device_id = device_type = rank = {};
  in_nelems = out_nelems = group_size = {};
  dtype.clear();
  addr = 0;
  has_grid = has_block = has_name = false;
  for (int i = 0; i < 3; ++i) grid[i] = block[i] = 0;
  input_dims.clear();
  name.clear();
}

namespace {

// "Input Dims" of an op with many inputs stays readable; a longer value is left out.
constexpr size_t kMaxShapesBytes = 4096;

void read_num(JsonStream& in, NumArg& arg, const char* field) {
  arg.present = true;
  if (in.next_type() != JsonType::Number) {
    arg.wrong_type = true;
    in.skip_value();
    return;
  }
  arg.value = to_int64(in, in.read_number(), field);
}

// "grid": [x, y, z] and "block": [x, y, z]; anything else is skipped (and the event has none).
bool read_dim3(JsonStream& in, int32_t (&out)[3], const char* field) {
  if (in.next_type() != JsonType::Array) {
    in.skip_value();
    return false;
  }
  in.expect('[', "'['");
  size_t n = 0;
  bool ok = true;
  for (bool first = true; in.next_element(first); first = false) {
    if (in.next_type() != JsonType::Number || n == 3) {
      in.skip_value();
      ok = false;
      continue;
    }
    const int64_t v = to_int64(in, in.read_number(), field);
    if (v < 0 || v > INT32_MAX) in.fail(std::string("\"") + field + "\" has a dimension out of range");
    out[n++] = static_cast<int32_t>(v);
  }
  return ok && n == 3;
}

void read_args(JsonStream& in, Event& e, std::string& key) {
  EventArgs& a = e.args;
  if (in.next_type() != JsonType::Object)
    in.fail("traceEvents[" + std::to_string(e.index) + "]: \"args\" is not an object");
  in.expect('{', "'{'");
  for (bool first = true; in.next_key(key, first); first = false) {
    const std::string_view k = key;
    if (k == "External id") read_num(in, a.external_id, "External id");
    else if (k == "correlation") read_num(in, a.correlation, "correlation");
    else if (k == "device") read_num(in, a.device, "device");
    else if (k == "context") read_num(in, a.context, "context");
    else if (k == "stream") read_num(in, a.stream, "stream");
    else if (k == "registers per thread") read_num(in, a.registers, "registers per thread");
    else if (k == "shared memory") read_num(in, a.shared_memory, "shared memory");
    else if (k == "bytes") read_num(in, a.bytes, "bytes");
    else if (k == "Sequence number") read_num(in, a.sequence_number, "Sequence number");
    else if (k == "cbid") read_num(in, a.cbid, "cbid");
    else if (k == "Bytes") read_num(in, a.mem_bytes, "Bytes");
    else if (k == "Device Id") read_num(in, a.device_id, "Device Id");
    else if (k == "Device Type") read_num(in, a.device_type, "Device Type");
    else if (k == "Rank") read_num(in, a.rank, "Rank");
    else if (k == "In msg nelems") read_num(in, a.in_nelems, "In msg nelems");
    else if (k == "Out msg nelems") read_num(in, a.out_nelems, "Out msg nelems");
    else if (k == "Group size") read_num(in, a.group_size, "Group size");
    else if (k == "dtype" && in.next_type() == JsonType::String) in.read_string(a.dtype);
    else if (k == "grid") a.has_grid = read_dim3(in, a.grid, "grid");
    else if (k == "block") a.has_block = read_dim3(in, a.block, "block");
    else if (k == "Addr" && in.next_type() == JsonType::Number) a.addr = to_uint64(in, in.read_number(), "Addr");
    else if (k == "Input Dims") {
      in.read_raw(a.input_dims, 1 << 20);
      if (a.input_dims.size() > kMaxShapesBytes) a.input_dims.clear();
    } else if (k == "name" && in.next_type() == JsonType::String) {
      in.read_string(a.name);
      a.has_name = true;
    } else {
      in.skip_value();
    }
  }
}

// "pid" and "tid" are numbers for real processes, threads, devices and streams; Kineto's own
// rows ("Spans", "Traces") use strings.
void read_id(JsonStream& in, int64_t& value, bool& is_number, const char* field, std::string& scratch) {
  const JsonType t = in.next_type();
  if (t == JsonType::Number) {
    value = to_int64(in, in.read_number(), field);
    is_number = true;
  } else if (t == JsonType::String) {
    in.read_string(scratch);
    is_number = false;
  } else {
    in.fail(std::string("\"") + field + "\" is neither a number nor a string");
  }
}

void read_time(JsonStream& in, const Event& e, int64_t& value, bool& has, const char* field) {
  if (in.next_type() != JsonType::Number)
    in.fail("traceEvents[" + std::to_string(e.index) + "]: \"" + field + "\" is not a number");
  value = micros_to_ns(in, in.read_number(), field);
  has = true;
}

void read_text(JsonStream& in, const Event& e, std::string& out, const char* field) {
  if (in.next_type() != JsonType::String)
    in.fail("traceEvents[" + std::to_string(e.index) + "]: \"" + field + "\" is not a string");
  in.read_string(out);
}

}  // namespace

void read_event(JsonStream& in, Event& e) {
  e.ph.clear();
  e.cat.clear();
  e.name.clear();
  e.pid = e.tid = e.ts = e.dur = e.id = 0;
  e.pid_is_number = e.tid_is_number = e.has_ts = e.has_dur = e.has_id = false;
  e.args.clear();
  if (in.next_type() != JsonType::Object) in.fail("traceEvents[" + std::to_string(e.index) + "] is not an object");
  in.expect('{', "'{'");
  static thread_local std::string key, scratch;
  for (bool first = true; in.next_key(key, first); first = false) {
    if (key == "ph") read_text(in, e, e.ph, "ph");
    else if (key == "cat") read_text(in, e, e.cat, "cat");
    else if (key == "name") read_text(in, e, e.name, "name");
    else if (key == "pid") read_id(in, e.pid, e.pid_is_number, "pid", scratch);
    else if (key == "tid") read_id(in, e.tid, e.tid_is_number, "tid", scratch);
    else if (key == "ts") read_time(in, e, e.ts, e.has_ts, "ts");
    else if (key == "dur") read_time(in, e, e.dur, e.has_dur, "dur");
    else if (key == "args") read_args(in, e, key);
    else if (key == "id" && in.next_type() == JsonType::Number) {
      e.id = to_int64(in, in.read_number(), "id");
      e.has_id = true;
    } else {
      in.skip_value();
    }
  }
}

}  // namespace gpuscope::kineto

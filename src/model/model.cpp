#include "gpuscope/model.h"

#include <stdexcept>

namespace gpuscope {

StringTable::StringTable() { intern(""); }

StringId StringTable::intern(std::string_view text) {
  std::string key(text);
  if (auto it = index_.find(key); it != index_.end()) return it->second;
  auto id = static_cast<StringId>(strings_.size());
  strings_.push_back(key);
  index_.emplace(std::move(key), id);
  return id;
}

const std::string& StringTable::get(StringId id) const {
  static const std::string kUnknown = "<unknown string>";
  return id < strings_.size() ? strings_[id] : kUnknown;
}

const char* to_string(CopyKind kind) {
  switch (kind) {
    case CopyKind::HtoD: return "HtoD";
    case CopyKind::DtoH: return "DtoH";
    case CopyKind::HtoA: return "HtoA";
    case CopyKind::AtoH: return "AtoH";
    case CopyKind::AtoA: return "AtoA";
    case CopyKind::AtoD: return "AtoD";
    case CopyKind::DtoA: return "DtoA";
    case CopyKind::DtoD: return "DtoD";
    case CopyKind::HtoH: return "HtoH";
    case CopyKind::PtoP: return "PtoP";
    case CopyKind::Unknown: break;
  }
  return "unknown";
}

const char* to_string(MemoryKind kind) {
  switch (kind) {
    case MemoryKind::Pageable: return "pageable";
    case MemoryKind::Pinned: return "pinned";
    case MemoryKind::Device: return "device";
    case MemoryKind::Array: return "array";
    case MemoryKind::Managed: return "managed";
    case MemoryKind::DeviceStatic: return "device_static";
    case MemoryKind::ManagedStatic: return "managed_static";
    case MemoryKind::Unknown: break;
  }
  return "unknown";
}

const char* to_string(SyncKind kind) {
  switch (kind) {
    case SyncKind::EventSynchronize: return "event_synchronize";
    case SyncKind::StreamWaitEvent: return "stream_wait_event";
    case SyncKind::StreamSynchronize: return "stream_synchronize";
    case SyncKind::ContextSynchronize: return "context_synchronize";
    case SyncKind::Unknown: break;
  }
  return "unknown";
}

const char* to_string(ApiDomain domain) { return domain == ApiDomain::Driver ? "driver" : "runtime"; }

const char* to_string(NvtxKind kind) { return kind == NvtxKind::StartEnd ? "start_end" : "push_pop"; }

const char* to_string(MemoryOp op) { return op == MemoryOp::Free ? "free" : "alloc"; }

const char* to_string(StreamFlag flag) {
  switch (flag) {
    case StreamFlag::Blocking: return "blocking";
    case StreamFlag::NonBlocking: return "non_blocking";
    case StreamFlag::Legacy: return "legacy_default";
    case StreamFlag::Unknown: break;
  }
  return "unknown";
}

const SourceGap* Trace::gap(std::string_view what) const {
  for (const SourceGap& g : source_gaps)
    if (g.what == what) return &g;
  return nullptr;
}

}  // namespace gpuscope

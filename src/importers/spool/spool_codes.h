// The spool's codes (spool/format.h) mapped to the model's enums: the one place that knows both.
// A code this reader does not know (a newer writer's) becomes Unknown, never a neighbour.
#pragma once

#include <cstdint>

#include "gpuscope/model.h"
#include "spool/format.h"

namespace gpuscope::spool {

inline ApiDomain api_domain_of(uint8_t code) {
  return static_cast<ApiDomainCode>(code) == ApiDomainCode::Driver ? ApiDomain::Driver : ApiDomain::Runtime;
}

inline CopyKind copy_kind_of(uint8_t code) {
  switch (static_cast<CopyCode>(code)) {
    case CopyCode::HtoD: return CopyKind::HtoD;
    case CopyCode::DtoH: return CopyKind::DtoH;
    case CopyCode::HtoA: return CopyKind::HtoA;
    case CopyCode::AtoH: return CopyKind::AtoH;
    case CopyCode::AtoA: return CopyKind::AtoA;
    case CopyCode::AtoD: return CopyKind::AtoD;
    case CopyCode::DtoA: return CopyKind::DtoA;
    case CopyCode::DtoD: return CopyKind::DtoD;
    case CopyCode::HtoH: return CopyKind::HtoH;
    case CopyCode::PtoP: return CopyKind::PtoP;
    case CopyCode::Unknown: break;
  }
  return CopyKind::Unknown;
}

inline MemoryKind memory_kind_of(uint8_t code) {
  switch (static_cast<MemoryCode>(code)) {
    case MemoryCode::Pageable: return MemoryKind::Pageable;
    case MemoryCode::Pinned: return MemoryKind::Pinned;
    case MemoryCode::Device: return MemoryKind::Device;
    case MemoryCode::Array: return MemoryKind::Array;
    case MemoryCode::Managed: return MemoryKind::Managed;
    case MemoryCode::DeviceStatic: return MemoryKind::DeviceStatic;
    case MemoryCode::ManagedStatic: return MemoryKind::ManagedStatic;
    case MemoryCode::Unknown: break;
  }
  return MemoryKind::Unknown;
}

inline MemoryOp memory_op_of(uint8_t code) {
  return static_cast<MemoryOpCode>(code) == MemoryOpCode::Free ? MemoryOp::Free : MemoryOp::Alloc;
}

inline SyncKind sync_kind_of(uint8_t code) {
  switch (static_cast<SyncCode>(code)) {
    case SyncCode::EventSynchronize: return SyncKind::EventSynchronize;
    case SyncCode::StreamWaitEvent: return SyncKind::StreamWaitEvent;
    case SyncCode::StreamSynchronize: return SyncKind::StreamSynchronize;
    case SyncCode::ContextSynchronize: return SyncKind::ContextSynchronize;
    case SyncCode::Unknown: break;
  }
  return SyncKind::Unknown;
}

inline StreamFlag stream_flag_of(uint8_t code) {
  switch (static_cast<StreamCode>(code)) {
    case StreamCode::Blocking: return StreamFlag::Blocking;
    case StreamCode::NonBlocking: return StreamFlag::NonBlocking;
    case StreamCode::Legacy: return StreamFlag::Legacy;
    case StreamCode::Unknown: break;
  }
  return StreamFlag::Unknown;
}

}  // namespace gpuscope::spool

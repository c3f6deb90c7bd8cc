#include "capture/nccl_calls.h"

#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtPayload.h>
// After nvToolsExt.h, which defines the types it uses.
#include <generated_nvtx_meta.h>

#include <cstring>
#include <string_view>

#include "capture/process_info.h"  // realtime_ns: CUPTI's clock on Linux, so calls and API records compare
#include "capture/threads.h"       // current_thread_id: the tid CUPTI's records carry

namespace gpuscope::capture {
namespace {

using spool::CommCallCode;

// NCCL's static schema ids (NVTX_SID_* in NCCL's nvtx.h), after NVTX_PAYLOAD_SCHEMA_ID_STATIC_START.
enum NcclSchema : uint64_t {
  kCommInitRank = 0,
  kAllGather = 4,
  kAllReduce = 5,
  kBroadcast = 6,
  kReduceScatter = 7,
  kReduce = 8,
  kSend = 9,
  kRecv = 10,
  kCommInitRankConfig = 11,
  kCommInitRankScalable = 12,
  kAllToAll = 16,
  kGather = 17,
  kScatter = 18
};
constexpr uint64_t kStaticStart = NVTX_PAYLOAD_SCHEMA_ID_STATIC_START;

template <class T>
T read_at(const void* payload, size_t offset) {
  T value;
  std::memcpy(&value, static_cast<const char*>(payload) + offset, sizeof(T));
  return value;
}

// NCCL calls this thread made since its last launch: its next launch carries them out.
thread_local uint32_t t_pending_calls = 0;

}  // namespace

std::optional<spool::CommCallRecord> decode_nccl_payload(uint64_t schema_id, const void* payload, size_t bytes) {
  if (payload == nullptr || schema_id < kStaticStart) return std::nullopt;
  spool::CommCallRecord r{};
  r.peer = -1;
  r.rank = -1;
  const uint64_t sid = schema_id - kStaticStart;
  if (sid == kCommInitRank || sid == kCommInitRankConfig || sid == kCommInitRankScalable) {
    // {comm hash u64, nranks int, rank int, device int}
    if (bytes < 16) return std::nullopt;
    r.call = static_cast<uint8_t>(CommCallCode::CommInit);
    r.comm = read_at<uint64_t>(payload, 0);
    const int32_t ranks = read_at<int32_t>(payload, 8);
    r.ranks = ranks > 0 ? static_cast<uint32_t>(ranks) : 0;
    r.rank = read_at<int32_t>(payload, 12);
    return r;
  }
  CommCallCode code;
  bool has_peer = false;  // an int after the size: peer (send/recv) or root
  switch (sid) {
    case kAllGather: code = CommCallCode::AllGather; break;
    case kAllReduce: code = CommCallCode::AllReduce; break;
    case kBroadcast: code = CommCallCode::Broadcast, has_peer = true; break;
    case kReduceScatter: code = CommCallCode::ReduceScatter; break;
    case kReduce: code = CommCallCode::Reduce, has_peer = true; break;
    case kSend: code = CommCallCode::Send, has_peer = true; break;
    case kRecv: code = CommCallCode::Recv, has_peer = true; break;
    case kAllToAll: code = CommCallCode::AllToAll; break;
    case kGather: code = CommCallCode::Gather, has_peer = true; break;
    case kScatter: code = CommCallCode::Scatter, has_peer = true; break;
    default: return std::nullopt;
  }
  r.call = static_cast<uint8_t>(code);
  // The newer layout is the older one with the 8-byte hash in front: all-gather's is 16 bytes
  // against 8, the others' (a size and an int or two, padded) 24 against 16.
  const size_t newer = code == CommCallCode::AllGather || code == CommCallCode::AllToAll ? 16 : 24;
  const size_t size_at = bytes >= newer ? 8 : 0;
  if (bytes < size_at + 8) return std::nullopt;
  if (size_at) r.comm = read_at<uint64_t>(payload, 0);
  r.bytes = read_at<uint64_t>(payload, size_at);
  if (has_peer && bytes >= size_at + 12) r.peer = read_at<int32_t>(payload, size_at + 8);
  return r;
}

void NcclCalls::on_nvtx_callback(CUpti_CallbackId cbid, const void* params, const void* return_value) {
  if (params == nullptr) return;
  if (cbid == CUPTI_CBID_NVTX_nvtxDomainCreateA) {
    const char* name = static_cast<const nvtxDomainCreateA_params*>(params)->name;
    if (return_value == nullptr || name == nullptr || std::string_view(name) != "NCCL") return;
    const void* previous = domain_.exchange(*static_cast<const nvtxDomainHandle_t*>(return_value),
                                            std::memory_order_acq_rel);
    if (previous == nullptr && on_nccl_domain_) on_nccl_domain_();
    return;
  }
  if (cbid != CUPTI_CBID_NVTX_nvtxDomainRangePushEx) return;
  const auto* p = static_cast<const nvtxDomainRangePushEx_params*>(params);
  // Every other domain's push costs one atomic load and a compare.
  const void* nccl = domain_.load(std::memory_order_acquire);
  if (nccl == nullptr || p->domain != nccl) return;
  const nvtxEventAttributes_t* a = p->core.eventAttrib;
  if (a == nullptr || a->payloadType != NVTX_PAYLOAD_TYPE_EXT || a->payload.ullValue == 0) return;
  // reserved0 holds how many payloads the attribute carries (NVTX_PAYLOAD_EVTATTR_SET_MULTIPLE).
  const auto* data = reinterpret_cast<const nvtxPayloadData_t*>(static_cast<uintptr_t>(a->payload.ullValue));
  const uint32_t count = a->reserved0 > 0 && a->reserved0 <= 4 ? static_cast<uint32_t>(a->reserved0) : 1;
  for (uint32_t i = 0; i < count; ++i) {
    auto record = decode_nccl_payload(data[i].schemaId, data[i].payload, data[i].size);
    if (!record) continue;
    record->start_ns = realtime_ns();
    record->tid = current_thread_id();
    pending_.push(*record);
    if (record->call != static_cast<uint8_t>(CommCallCode::CommInit)) ++t_pending_calls;
  }
}

void NcclCalls::on_launch_callback(const CUpti_CallbackData& data) {
  if (t_pending_calls == 0 || data.callbackSite != CUPTI_API_ENTER) return;  // most launches: one TLS read
  t_pending_calls = 0;
  spool::CommCallRecord r{};
  r.start_ns = realtime_ns();
  r.tid = current_thread_id();
  r.peer = r.rank = -1;
  r.call = static_cast<uint8_t>(CommCallCode::Launch);
  r.correlation_id = data.correlationId;
  pending_.push(r);
}

}  // namespace gpuscope::capture

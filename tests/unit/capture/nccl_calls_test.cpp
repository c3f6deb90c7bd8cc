// NCCL's NVTX payloads (capture/nccl_calls.h): both of NCCL's layouts decoded, payloads that are
// not NCCL's or too short refused, and the callback path from a domain push to a spool record.
#include "capture/nccl_calls.h"

#include <generated_nvtx_meta.h>
#include <gtest/gtest.h>
#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtPayload.h>

#include <vector>

#include "capture/launch_callbacks.h"

namespace gpuscope::capture {
namespace {

using spool::CommCallCode;
constexpr uint64_t kStatic = NVTX_PAYLOAD_SCHEMA_ID_STATIC_START;

struct Newer {  // NCCL >= 2.19: NcclNvtxParamsSendRecv {comm hash, bytes, peer}
  uint64_t comm;
  uint64_t bytes;
  int32_t peer;
};
struct Older {  // NCCL < 2.19: {bytes, peer}
  uint64_t bytes;
  int32_t peer;
};

TEST(NcclPayloads, BothLayoutsOfACallDecode) {
  const Newer newer{0xabc, 1 << 20, 3};
  auto r = decode_nccl_payload(kStatic + 9, &newer, sizeof newer);  // Send
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->call, static_cast<uint8_t>(CommCallCode::Send));
  EXPECT_EQ(r->comm, 0xabcu);
  EXPECT_EQ(r->bytes, 1u << 20);
  EXPECT_EQ(r->peer, 3);
  const Older older{4096, 1};
  r = decode_nccl_payload(kStatic + 10, &older, sizeof older);  // Recv
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->call, static_cast<uint8_t>(CommCallCode::Recv));
  EXPECT_EQ(r->comm, 0u);
  EXPECT_EQ(r->bytes, 4096u);
  EXPECT_EQ(r->peer, 1);
  const uint64_t all_gather[2] = {0x77, 512};  // newer all-gather: {comm, bytes}
  r = decode_nccl_payload(kStatic + 4, all_gather, sizeof all_gather);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->call, static_cast<uint8_t>(CommCallCode::AllGather));
  EXPECT_EQ(r->bytes, 512u);
  EXPECT_EQ(r->peer, -1);
}

TEST(NcclPayloads, CommunicatorCreationGivesItsSizeAndRank) {
  struct {
    uint64_t comm;
    int32_t nranks, rank, device;
  } init{0x55, 8, 5, 1};
  const auto r = decode_nccl_payload(kStatic + 0, &init, sizeof init);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->call, static_cast<uint8_t>(CommCallCode::CommInit));
  EXPECT_EQ(r->ranks, 8u);
  EXPECT_EQ(r->rank, 5);
  EXPECT_EQ(r->bytes, 0u);
}

TEST(NcclPayloads, ForeignOrShortPayloadsAreRefused) {
  const uint64_t data[3] = {1, 2, 3};
  EXPECT_FALSE(decode_nccl_payload(5, data, sizeof data).has_value());             // a dynamic schema id
  EXPECT_FALSE(decode_nccl_payload(kStatic + 13, data, sizeof data).has_value());  // CommSplit: not a call we read
  EXPECT_FALSE(decode_nccl_payload(kStatic + 5, data, 4).has_value());             // shorter than a size
  EXPECT_FALSE(decode_nccl_payload(kStatic + 5, nullptr, 24).has_value());
}

struct Sink : RecordSink {
  uint32_t intern(std::string_view) override { return 1; }
  void append(spool::RecordKind kind, const void* body, uint32_t bytes) override {
    if (kind == spool::RecordKind::CommCall && bytes == sizeof(spool::CommCallRecord))
      calls.push_back(*static_cast<const spool::CommCallRecord*>(body));
  }
  std::vector<spool::CommCallRecord> calls;
};

// Through the callbacks: pushes of another domain are ignored, NCCL's become records.
TEST(NcclPayloads, OnlyNcclsDomainIsRecorded) {
  NcclCalls calls;
  int nccl_domain = 0, other_domain = 0;  // stand-ins for the handles NVTX returns
  const auto create = [&](const char* name, void* handle) {
    nvtxDomainCreateA_params p{name};
    nvtxDomainHandle_t h = static_cast<nvtxDomainHandle_t>(handle);
    calls.on_nvtx_callback(CUPTI_CBID_NVTX_nvtxDomainCreateA, &p, &h);
  };
  create("NCCL", &nccl_domain);
  create("other", &other_domain);
  struct {
    uint64_t comm, bytes;
    int32_t op, pad;
  } all_reduce{9, 1 << 24, 0, 0};
  nvtxPayloadData_t data{kStatic + 5, sizeof all_reduce, &all_reduce};
  nvtxEventAttributes_t attributes{};
  attributes.payloadType = NVTX_PAYLOAD_TYPE_EXT;
  attributes.reserved0 = 1;
  attributes.payload.ullValue = reinterpret_cast<uintptr_t>(&data);
  for (void* domain : {static_cast<void*>(&other_domain), static_cast<void*>(&nccl_domain)}) {
    nvtxDomainRangePushEx_params push{static_cast<nvtxDomainHandle_t>(domain), {&attributes}};
    calls.on_nvtx_callback(CUPTI_CBID_NVTX_nvtxDomainRangePushEx, &push, nullptr);
  }
  // The launch that follows carries the call out; a later launch with no call pending is not NCCL's.
  CUpti_CallbackData launch{};
  launch.callbackSite = CUPTI_API_ENTER;
  launch.correlationId = 77;
  calls.on_launch_callback(launch);
  launch.correlationId = 78;
  calls.on_launch_callback(launch);
  Sink sink;
  calls.drain(sink);
  ASSERT_EQ(sink.calls.size(), 2u);
  EXPECT_EQ(sink.calls[0].call, static_cast<uint8_t>(CommCallCode::AllReduce));
  EXPECT_EQ(sink.calls[0].bytes, 1u << 24);
  EXPECT_GT(sink.calls[0].start_ns, 0);
  EXPECT_GT(sink.calls[0].tid, 0u);
  EXPECT_EQ(sink.calls[1].call, static_cast<uint8_t>(CommCallCode::Launch));
  EXPECT_EQ(sink.calls[1].correlation_id, 77u);
  EXPECT_EQ(sink.calls[1].tid, sink.calls[0].tid);
  EXPECT_TRUE(is_driver_launch(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx));
  EXPECT_FALSE(is_driver_launch(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx));
}

TEST(NcclPayloads, TheDriversLaunchesAreAskedForOnceNcclIsThere) {
  int asked = 0, domain = 0;
  NcclCalls calls([&] { ++asked; });
  nvtxDomainCreateA_params p{"NCCL"};
  nvtxDomainHandle_t h = reinterpret_cast<nvtxDomainHandle_t>(&domain);
  calls.on_nvtx_callback(CUPTI_CBID_NVTX_nvtxDomainCreateA, &p, &h);
  calls.on_nvtx_callback(CUPTI_CBID_NVTX_nvtxDomainCreateA, &p, &h);  // NVTX returns the same domain again
  EXPECT_EQ(asked, 1);
}

}  // namespace
}  // namespace gpuscope::capture

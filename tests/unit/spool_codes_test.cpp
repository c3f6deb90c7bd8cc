// The spool's codes are its own (spool/format.h): pinned values on disk, mapped to the model's
// enums by the importer, unknown codes to Unknown.
#include <gtest/gtest.h>

#include "importers/spool/spool_codes.h"

namespace gpuscope::spool {
namespace {

TEST(SpoolCodes, EveryCodeMapsToItsModelValue) {
  EXPECT_EQ(copy_kind_of(static_cast<uint8_t>(CopyCode::HtoD)), CopyKind::HtoD);
  EXPECT_EQ(copy_kind_of(static_cast<uint8_t>(CopyCode::PtoP)), CopyKind::PtoP);
  EXPECT_EQ(memory_kind_of(static_cast<uint8_t>(MemoryCode::Pageable)), MemoryKind::Pageable);
  EXPECT_EQ(memory_kind_of(static_cast<uint8_t>(MemoryCode::ManagedStatic)), MemoryKind::ManagedStatic);
  EXPECT_EQ(sync_kind_of(static_cast<uint8_t>(SyncCode::StreamWaitEvent)), SyncKind::StreamWaitEvent);
  EXPECT_EQ(memory_op_of(static_cast<uint8_t>(MemoryOpCode::Free)), MemoryOp::Free);
  EXPECT_EQ(api_domain_of(static_cast<uint8_t>(ApiDomainCode::Driver)), ApiDomain::Driver);
}

// The values written by every spool so far: changing one would change what old spools mean.
TEST(SpoolCodes, ValuesOnDiskArePinned) {
  EXPECT_EQ(copy_kind_of(1), CopyKind::HtoD);
  EXPECT_EQ(copy_kind_of(2), CopyKind::DtoH);
  EXPECT_EQ(copy_kind_of(8), CopyKind::DtoD);
  EXPECT_EQ(copy_kind_of(10), CopyKind::PtoP);
  EXPECT_EQ(memory_kind_of(1), MemoryKind::Pageable);
  EXPECT_EQ(memory_kind_of(2), MemoryKind::Pinned);
  EXPECT_EQ(memory_kind_of(3), MemoryKind::Device);
  EXPECT_EQ(sync_kind_of(1), SyncKind::EventSynchronize);
  EXPECT_EQ(sync_kind_of(4), SyncKind::ContextSynchronize);
  EXPECT_EQ(api_domain_of(0), ApiDomain::Runtime);
  EXPECT_EQ(api_domain_of(1), ApiDomain::Driver);
}

TEST(SpoolCodes, UnknownCodesBecomeUnknown) {
  for (uint8_t code : {uint8_t{11}, uint8_t{200}, uint8_t{255}}) EXPECT_EQ(copy_kind_of(code), CopyKind::Unknown);
  for (uint8_t code : {uint8_t{8}, uint8_t{255}}) EXPECT_EQ(memory_kind_of(code), MemoryKind::Unknown);
  for (uint8_t code : {uint8_t{5}, uint8_t{255}}) EXPECT_EQ(sync_kind_of(code), SyncKind::Unknown);
}

}  // namespace
}  // namespace gpuscope::spool

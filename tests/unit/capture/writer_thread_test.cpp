// The whole in-process path on a CPU: synthesized CUPTI buffers -> BufferPool -> writer
// thread (decode, intern, chunk, losses, End) -> spool file -> independent reader.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "capture/writer_thread.h"
#include "capture_test_support.h"
#include "gpuscope/model.h"

namespace gpuscope::capture {
namespace {

namespace sp = gpuscope::spool;
using namespace std::chrono_literals;
using test::MockActivityBuffer;

const char* api_name(CUpti_CallbackDomain, uint32_t cbid) {
  return cbid == 211 ? "cudaLaunchKernel_v7000" : "cudaMemcpy_v3020";
}

CUpti_ActivityKernel10 kernel(uint32_t correlation) {
  CUpti_ActivityKernel10 k{};
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.start = 1000 + correlation;
  k.end = 2000 + correlation;
  k.correlationId = correlation;
  k.name = correlation % 2 ? "_Z3oddv" : "_Z4evenv";
  k.gridX = k.gridY = k.gridZ = 1;
  k.blockX = 128;
  k.blockY = k.blockZ = 1;
  return k;
}

CUpti_ActivityAPI launch(uint32_t correlation, uint32_t tid) {
  CUpti_ActivityAPI a{};
  a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  a.cbid = 211;
  a.start = 900 + correlation;
  a.end = 950 + correlation;
  a.threadId = tid;
  a.correlationId = correlation;
  return a;
}

class WriterThreadTest : public test::SpoolDirTest {
 protected:
  WriterThreadTest() : SpoolDirTest("cap.7.spool") {}

  std::unique_ptr<WriterThread> make_writer(BufferPool& pool) {
    auto spool = std::make_unique<SpoolWriter>();
    EXPECT_TRUE(spool->open(path_, 7, 1, 123));
    spool->append_text(sp::TextKey::CaptureStatus, "ok");
    WriterHooks hooks;
    hooks.next_record = test::mock_next_record;
    hooks.api_name = api_name;
    hooks.on_start = [](SpoolWriter& out) {
      sp::ProcessRecord p{};
      p.pid = 7;
      p.parent_pid = 1;
      p.driver_version = 13000;
      p.cupti_version = 130001;
      out.add(sp::RecordKind::Process, p);
    };
    return std::make_unique<WriterThread>(pool, std::move(spool), std::move(hooks));
  }

  // What CUPTI's completed callback does: a buffer from the pool, filled, queued.
  void deliver(BufferPool& pool, MockActivityBuffer& records, uint64_t dropped = 0) {
    uint8_t* buffer = pool.acquire(1000000us);
    ASSERT_NE(buffer, nullptr);
    const size_t valid = records.copy_to(buffer, pool.buffer_bytes());
    ASSERT_TRUE(pool.push_filled({buffer, valid, dropped}));
  }
};

TEST_F(WriterThreadTest, BuffersBecomeAFinishedSpool) {
  BufferPool pool(64 * 1024, 4);
  auto writer = make_writer(pool);
  ASSERT_TRUE(writer->start());

  uint32_t correlation = 0;
  for (int b = 0; b < 10; ++b) {  // more buffers than the pool holds: they must recycle
    MockActivityBuffer records;
    for (int i = 0; i < 50; ++i) {
      ++correlation;
      records.add(launch(correlation, 4242));
      records.add(kernel(correlation));
    }
    deliver(pool, records, b == 3 ? 17 : 0);
  }
  MockActivityBuffer tail;
  tail.add(kernel(++correlation));
  tail.add_incomplete();  // what a forced flush at exit can leave
  deliver(pool, tail);
  writer->stop_and_join();
  EXPECT_TRUE(writer->finished());

  test::ReadSpool r = test::read_spool(path_);
  ASSERT_TRUE(r.header_ok);
  EXPECT_EQ(r.header.pid, 7u);
  EXPECT_FALSE(r.truncated);
  EXPECT_FALSE(r.bad_crc);
  ASSERT_TRUE(r.has_end);
  EXPECT_EQ(r.texts.at(static_cast<uint32_t>(sp::TextKey::CaptureStatus)), "ok");
  EXPECT_EQ(r.of(sp::RecordKind::Process).size(), 1u);

  auto kernels = r.of(sp::RecordKind::Kernel);
  auto apis = r.of(sp::RecordKind::Api);
  ASSERT_EQ(kernels.size(), 501u);
  ASSERT_EQ(apis.size(), 500u);
  for (size_t i = 0; i < kernels.size(); ++i) {
    auto k = kernels[i].as<sp::KernelRecord>();
    EXPECT_EQ(k.correlation_id, i + 1);  // order preserved across buffers
    EXPECT_EQ(r.strings.at(k.name), (i + 1) % 2 ? "_Z3oddv" : "_Z4evenv");
  }
  EXPECT_EQ(r.strings.at(apis[0].as<sp::ApiRecord>().name), "cudaLaunchKernel");
  EXPECT_EQ(apis[0].as<sp::ApiRecord>().tid, 4242u);

  uint64_t dropped = 0, incomplete = 0;
  for (const auto& loss : r.of(sp::RecordKind::Loss)) {
    auto l = loss.as<sp::LossRecord>();
    if (r.strings.at(l.what) == "cupti_dropped_records") dropped += l.count;
    if (r.strings.at(l.what) == "cupti_incomplete_buffers") incomplete += l.count;
    EXPECT_FALSE(r.strings.at(l.detail).empty());
  }
  EXPECT_EQ(dropped, 17u);
  EXPECT_EQ(incomplete, 1u);

  auto end = r.of(sp::RecordKind::End).at(0).as<sp::EndRecord>();
  EXPECT_EQ(end.records_written + 1, r.total_records);  // every record before End
  EXPECT_EQ(end.records_dropped, 0u);                   // CUPTI's drops are Loss records, not ours
  EXPECT_GT(end.end_ns, 0);
  EXPECT_LE(pool.stats().allocated, 4u);
}

TEST_F(WriterThreadTest, DataIsOnDiskWhileTheProgramRuns) {
  // A crash (or SIGKILL) leaves the file as it is at that moment: check that what was
  // delivered is readable before any shutdown, and that the file then reads as truncated.
  BufferPool pool(64 * 1024, 4);
  auto writer = make_writer(pool);
  ASSERT_TRUE(writer->start());
  MockActivityBuffer records;
  for (uint32_t i = 1; i <= 20; ++i) records.add(kernel(i));
  deliver(pool, records);

  test::ReadSpool r;
  for (int tries = 0; tries < 500; ++tries) {  // the writer needs a moment
    r = test::read_spool(path_);
    if (r.of(sp::RecordKind::Kernel).size() == 20) break;
    std::this_thread::sleep_for(2ms);
  }
  EXPECT_EQ(r.of(sp::RecordKind::Kernel).size(), 20u);
  EXPECT_FALSE(r.has_end);  // as the importer will see it after a crash
  EXPECT_FALSE(r.bad_crc);
  writer->stop_and_join();
  EXPECT_TRUE(test::read_spool(path_).has_end);
}

TEST_F(WriterThreadTest, OwnThreadRecordsAreDropped) {
  BufferPool pool(64 * 1024, 4);
  auto writer = make_writer(pool);
  ASSERT_TRUE(writer->start());
  for (int i = 0; i < 1000 && writer->thread_id() == 0; ++i) std::this_thread::sleep_for(1ms);
  const uint32_t own = writer->thread_id();
  ASSERT_NE(own, 0u);
  MockActivityBuffer records;
  records.add(launch(1, own));
  records.add(launch(2, own + 1));
  deliver(pool, records);
  writer->stop_and_join();
  auto apis = test::read_spool(path_).of(sp::RecordKind::Api);
  ASSERT_EQ(apis.size(), 1u);
  EXPECT_EQ(apis[0].as<sp::ApiRecord>().correlation_id, 2u);
}

TEST_F(WriterThreadTest, RefusedBufferRequestsAreWrittenAsLoss) {
  BufferPool pool(4096, 1);
  auto writer = make_writer(pool);
  ASSERT_TRUE(writer->start());
  uint8_t* held = pool.acquire(0us);
  EXPECT_EQ(pool.acquire(0us), nullptr);  // at the bound: refused
  EXPECT_EQ(pool.acquire(0us), nullptr);
  pool.release(held);
  writer->stop_and_join();
  test::ReadSpool r = test::read_spool(path_);
  uint64_t refused = 0;
  for (const auto& loss : r.of(sp::RecordKind::Loss)) {
    auto l = loss.as<sp::LossRecord>();
    if (r.strings.at(l.what) == "activity_buffer_requests_refused") refused += l.count;
  }
  EXPECT_EQ(refused, 2u);
}

TEST_F(WriterThreadTest, StopWithoutStartJustClosesThePool) {
  BufferPool pool(4096, 2);
  auto writer = make_writer(pool);
  writer->stop_and_join();  // e.g. thread creation failed: must not hang or crash
  uint8_t* b = pool.acquire(0us);
  EXPECT_FALSE(pool.push_filled({b, 0, 0}));
}

}  // namespace
}  // namespace gpuscope::capture

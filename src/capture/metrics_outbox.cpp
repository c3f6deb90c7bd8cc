#include "capture/metrics_outbox.h"

#include <utility>

namespace gpuscope::capture {

void MetricsOutbox::set_kernel_metric_names(std::vector<std::string> names) {
  std::lock_guard<std::mutex> lock(mutex_);
  kernel_names_ = std::move(names);
}

void MetricsOutbox::set_sample_metric_names(std::vector<std::string> names) {
  std::lock_guard<std::mutex> lock(mutex_);
  sample_names_ = std::move(names);
}

void MetricsOutbox::push_kernel(uint32_t correlation_id, const std::vector<double>& values) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (pending_values_ + values.size() > kMaxPending) {
    dropped_ += values.size();
    return;
  }
  pending_values_ += values.size();
  kernels_.push_back({correlation_id, values});
}

void MetricsOutbox::push_sample(uint32_t device, int64_t start_ns, int64_t end_ns, const std::vector<double>& values) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (pending_values_ + values.size() > kMaxPending) {
    dropped_ += values.size();
    return;
  }
  pending_values_ += values.size();
  samples_.push_back({device, start_ns, end_ns, values});
}

// Not bounded like the values: one record per measured launch, and each launch costs the
// program milliseconds of replay, so these cannot pile up faster than the writer drains them.
void MetricsOutbox::push_profiler_time(const char* kind, int64_t start_ns, int64_t end_ns) {
  std::lock_guard<std::mutex> lock(mutex_);
  profiler_times_.push_back({kind, start_ns, end_ns});
}

void MetricsOutbox::add_loss(std::string what, uint64_t count, std::string detail) {
  std::lock_guard<std::mutex> lock(mutex_);
  losses_.push_back({std::move(what), std::move(detail), count});
}

void MetricsOutbox::set_collection(const spool::MetricCollectionRecord& record, std::string status, std::string chip) {
  std::lock_guard<std::mutex> lock(mutex_);
  Collection& c = collections_[record.kind == static_cast<uint8_t>(spool::MetricCollectionKind::Sampling) ? 1 : 0];
  c.pending = true;
  c.record = record;
  c.status = std::move(status);
  c.chip = std::move(chip);
}

void MetricsOutbox::drain(RecordSink& sink) {
  std::vector<KernelValues> kernels;
  std::vector<SampleValues> samples;
  std::vector<ProfilerTime> profiler_times;
  std::vector<Loss> losses;
  Collection collections[2];
  std::vector<std::string> kernel_names, sample_names;
  {
    // Swap out under the lock; interning and appending happen outside it, so a launching
    // thread never waits for spool work.
    std::lock_guard<std::mutex> lock(mutex_);
    kernels.swap(kernels_);
    samples.swap(samples_);
    profiler_times.swap(profiler_times_);
    losses.swap(losses_);
    pending_values_ = 0;
    for (int i = 0; i < 2; ++i) {
      collections[i] = collections_[i];
      collections_[i].pending = false;
    }
    if (!kernels.empty()) kernel_names = kernel_names_;
    if (!samples.empty()) sample_names = sample_names_;
  }
  std::vector<uint32_t> kernel_ids, sample_ids;
  for (const std::string& name : kernel_names) kernel_ids.push_back(sink.intern(name));
  for (const std::string& name : sample_names) sample_ids.push_back(sink.intern(name));

  for (const KernelValues& k : kernels) {
    for (size_t i = 0; i < k.values.size() && i < kernel_ids.size(); ++i) {
      spool::KernelMetricRecord record{};
      record.value = k.values[i];
      record.correlation_id = k.correlation_id;
      record.metric = kernel_ids[i];
      sink.add(spool::RecordKind::KernelMetric, record);
    }
  }
  for (const SampleValues& s : samples) {
    for (size_t i = 0; i < s.values.size() && i < sample_ids.size(); ++i) {
      spool::GpuSampleRecord record{};
      record.start_ns = s.start_ns;
      record.end_ns = s.end_ns;
      record.value = s.values[i];
      record.device = s.device;
      record.metric = sample_ids[i];
      sink.add(spool::RecordKind::GpuSample, record);
    }
  }
  for (const ProfilerTime& t : profiler_times) {
    spool::OverheadRecord record{};
    record.start_ns = t.start_ns;
    record.end_ns = t.end_ns;
    record.kind = sink.intern(t.kind);
    sink.add(spool::RecordKind::Overhead, record);
  }
  for (const Loss& l : losses) {
    spool::LossRecord record{};
    record.count = l.count;
    record.what = sink.intern(l.what);
    record.detail = sink.intern(l.detail);
    sink.add(spool::RecordKind::Loss, record);
  }
  for (Collection& c : collections) {
    if (!c.pending) continue;
    c.record.status = sink.intern(c.status);
    c.record.chip = sink.intern(c.chip);
    sink.add(spool::RecordKind::MetricCollection, c.record);
  }
}

uint64_t MetricsOutbox::dropped() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return dropped_;
}

}  // namespace gpuscope::capture

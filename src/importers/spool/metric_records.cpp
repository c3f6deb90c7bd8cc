// The metric records of the spool (format.h): per-kernel range-profiler values,
// GPU-wide PM samples and the status of each kind of collection. Kept apart from
// record_decoder.cpp because they follow their own rules: values that are not
// numbers are left out (and counted), and only the last status per kind survives.
#include <cmath>

#include "importers/spool/record_decoder.h"

namespace gpuscope::spool {

namespace {

const char* collection_kind(uint8_t kind) {
  switch (static_cast<MetricCollectionKind>(kind)) {
    case MetricCollectionKind::Kernel: return "kernel";
    case MetricCollectionKind::Sampling: return "sampling";
  }
  return "unknown";  // a newer or damaged writer: keep the status, say we do not know the kind
}

}  // namespace

bool RecordDecoder::decode_metric_record(RecordKind kind, const char* body, uint32_t bytes) {
  const uint32_t pid = process_.pid;
  switch (kind) {
    case RecordKind::KernelMetric: {
      KernelMetricRecord r;
      if (!read_body(body, bytes, r)) return false;
      // CUPTI reports a metric it could not evaluate for a launch as NaN; a NaN would
      // poison every median it enters, so it is left out and counted instead.
      if (!std::isfinite(r.value)) {
        ++non_finite_metrics_;
        return true;
      }
      trace_.kernel_metrics.push_back({pid, r.correlation_id, string(r.metric), r.value});
      return true;
    }
    case RecordKind::GpuSample: {
      GpuSampleRecord r;
      if (!read_body(body, bytes, r)) return false;
      if (!std::isfinite(r.value)) {
        ++non_finite_metrics_;
        return true;
      }
      trace_.gpu_metric_samples.push_back({pid, r.device, r.start_ns, r.end_ns, string(r.metric), r.value});
      seen(r.end_ns);
      return true;
    }
    case RecordKind::MetricCollection: {
      MetricCollectionRecord r;
      if (!read_body(body, bytes, r)) return false;
      MetricCollection c;
      c.pid = pid;
      c.kind = collection_kind(r.kind);
      c.status = trace_.strings.get(string(r.status));
      c.chip = trace_.strings.get(string(r.chip));
      c.passes = r.passes;
      c.metrics = r.metrics;
      c.kernels_profiled = r.kernels_profiled;
      c.kernels_failed = r.kernels_failed;
      c.interval_ns = r.interval_ns;
      collections_[c.kind] = std::move(c);
      return true;
    }
    default: return false;
  }
}

void RecordDecoder::finish_metrics() {
  for (auto& [kind, collection] : collections_) trace_.metric_collections.push_back(std::move(collection));
  collections_.clear();
  if (non_finite_metrics_)
    trace_.data_loss.push_back({process_.pid, "metrics_not_a_number", non_finite_metrics_,
                                "metric values CUPTI could not evaluate (NaN or infinite); left out"});
}

}  // namespace gpuscope::spool

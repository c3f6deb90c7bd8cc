// What the metrics-only import (metrics_only.cpp) and the merge (attach.cpp) both make from an
// ncu File: the metric rows of a launch, the metric-collection row, and the data-loss rows for
// values that were not kept.
#pragma once

#include <string>
#include <vector>

#include "gpuscope/model.h"
#include "importers/ncu_csv/ncu_file.h"

namespace gpuscope::ncu {

// The Perfworks chip of a compute capability where one chip has it ("9.0" -> "GH100"); else
// "sm_XY" (8.6 is GA102 to GA107) or "" when unknown.
std::string chip_of(const std::string& compute_capability);

// The file's metric names interned in `trace`, by File::metric_names index.
std::vector<StringId> intern_metrics(const File& file, Trace& trace);

// The value of `metric` in `launch`, or `fallback`.
double launch_value(const File& file, const Launch& launch, std::string_view metric, double fallback = 0);

// The MetricCollection row: kind "kernel", status "ok", source "ncu CSV <path>"; its chip from
// the first launch's compute capability, its metric count the metrics with a value in any launch.
MetricCollection collection_row(const File& file, const std::string& path, uint32_t pid, uint64_t launches,
                                const std::string& first_compute_capability, uint32_t metrics);

// The same, counted over file.launches (the attach path, which holds them all).
MetricCollection collection_row(const File& file, const std::string& path, uint32_t pid, uint64_t launches);

// Data loss rows for n/a values, text in numeric metrics and unmapped details labels.
void record_skipped(const File& file, uint32_t pid, Trace& trace);

}  // namespace gpuscope::ncu

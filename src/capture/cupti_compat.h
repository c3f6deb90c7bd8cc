// What this build of the library can work with, and what to tell the user when
// CUPTI refuses. Pure functions, unit-tested.
#pragma once

#include <cupti_result.h>

#include <cstdint>
#include <string>

namespace gpuscope::capture {

// The CUDA 13 libcupti soname, and the major version whose record layouts
// (CUpti_ActivityKernel10, Memcpy6, ...) the decoder reads.
inline constexpr const char* kCuptiSoname = "libcupti.so.13";
inline constexpr uint32_t kCuptiMajor = 13;

// CUPTI API versions are xxyyzz from CUDA 13 on (130001 = 13.0 update 1); older
// ones are small integers (v28 = 12.9). Within a major, CUPTI only appends fields
// to records, so any 13.x reads correctly with the 13.0 layouts we compile against.
bool cupti_version_supported(uint32_t cupti_api_version);

// One short sentence on what to do about `rc`, for the "gpuscope: ..." line.
const char* cupti_error_advice(CUptiResult rc);

// "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED" etc.; "CUPTI error" for others.
// (Used when libcupti's own cuptiGetResultString is unavailable.)
const char* cupti_error_name(CUptiResult rc);

// cupti_error_name, with the number where the name is only "CUPTI error".
std::string cupti_error_text(CUptiResult rc);

}  // namespace gpuscope::capture

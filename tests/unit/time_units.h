// Durations for building traces in tests, in ns (TimeNs).
#pragma once

#include "gpuscope/model.h"

namespace gpuscope::testing {

inline constexpr TimeNs kUs = 1'000;
inline constexpr TimeNs kMs = 1'000'000;
inline constexpr TimeNs kS = 1'000'000'000;

}  // namespace gpuscope::testing

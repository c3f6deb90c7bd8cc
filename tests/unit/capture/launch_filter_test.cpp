// LaunchFilter: which launches --metrics measures (--kernel, --launch-skip, --launch-count).
#include <gtest/gtest.h>

#include <cstdint>

#include "capture/launch_filter.h"

namespace gpuscope::capture {
namespace {
using V = LaunchFilter::Verdict;

constexpr uint64_t kAll = UINT64_MAX;

TEST(LaunchFilter, WithoutFiltersEveryLaunchIsMeasured) {
  std::string error;
  LaunchFilter f("", 0, kAll, error);
  EXPECT_TRUE(error.empty());
  EXPECT_EQ(f.next("_Z3fooPf", 0), V::Measure);
  EXPECT_EQ(f.next(nullptr, 1), V::Measure);  // CUPTI gave no name: still a launch
  EXPECT_FALSE(f.by_name());
}

TEST(LaunchFilter, TheRegexSearchesTheMangledAndTheDemangledName) {
  std::string error;
  LaunchFilter demangled("fma_kernel\\(float", 0, kAll, error);
  EXPECT_EQ(demangled.next("_Z10fma_kernelPfi", 0), V::Measure);  // fma_kernel(float*, int)
  EXPECT_EQ(demangled.next("_Z9transposePfPKfii", 0), V::Skip);
  LaunchFilter mangled("^_Z10fma", 0, kAll, error);
  EXPECT_EQ(mangled.next("_Z10fma_kernelPfi", 0), V::Measure);
  EXPECT_EQ(mangled.next(nullptr, 0), V::Skip);  // no name matches a regex that needs one
  EXPECT_TRUE(error.empty());
  EXPECT_TRUE(mangled.by_name());
}

// As ncu's -k transpose -s 1 -c 2: the first matching launch is skipped, the next two are
// measured, and from then on nothing is (Done lets the profiler stop looking).
TEST(LaunchFilter, SkipAndCountApplyToMatchingLaunchesOnly) {
  std::string error;
  LaunchFilter f("transpose", 1, 2, error);
  uint64_t measured = 0;
  auto launch = [&](const char* name) {
    const V v = f.next(name, measured);
    if (v == V::Measure) ++measured;
    return v;
  };
  EXPECT_EQ(launch("_Z15transpose_naivePfPKfi"), V::Skip);  // skipped: first match
  EXPECT_EQ(launch("_Z10fma_kernelPfi"), V::Skip);          // no match: not counted
  EXPECT_EQ(launch("_Z16transpose_paddedPfPKfi"), V::Measure);
  EXPECT_EQ(launch("_Z15transpose_naivePfPKfi"), V::Measure);
  EXPECT_EQ(launch("_Z16transpose_paddedPfPKfi"), V::Done);
  EXPECT_EQ(f.matched(), 5u - 1u);  // every transpose launch, the fma one not
}

TEST(LaunchFilter, AnInvalidRegexIsAnErrorAndMatchesNothing) {
  std::string error;
  LaunchFilter f("transpose(", 0, kAll, error);
  EXPECT_EQ(error, "the --kernel regex 'transpose(' is not a valid ECMAScript regex");
  EXPECT_EQ(f.next("_Z9transposePfPKfii", 0), V::Skip);
  EXPECT_EQ(f.matched(), 0u);
}

}  // namespace
}  // namespace gpuscope::capture

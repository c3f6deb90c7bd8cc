// One formatting function per unit (src/report/units.h).
#include <gtest/gtest.h>

#include <limits>

#include "report/units.h"

namespace gpuscope::report {
namespace {

TEST(ReportUnitsFormatDuration, ScalesAndKeepsThreeOrFourDigits) {
  EXPECT_EQ(format_duration(0), "0 ns");
  EXPECT_EQ(format_duration(615), "615 ns");
  EXPECT_EQ(format_duration(615.4), "615 ns");  // sub-ns precision is noise
  EXPECT_EQ(format_duration(1'000), "1.00 \u00b5s");
  EXPECT_EQ(format_duration(615'837), "615.8 \u00b5s");
  EXPECT_EQ(format_duration(1'231'674), "1.23 ms");
  EXPECT_EQ(format_duration(19'480'000), "19.48 ms");
  EXPECT_EQ(format_duration(204'383'000), "204.4 ms");
  EXPECT_EQ(format_duration(2'500'000'000), "2.50 s");
  EXPECT_EQ(format_duration(4'000'000'000'000), "4000.0 s");  // seconds is the largest unit
}

TEST(ReportUnitsFormatDuration, RoundingRollsOverToTheNextUnit) {
  EXPECT_EQ(format_duration(999.7), "1.00 \u00b5s");    // not "1000 ns"
  EXPECT_EQ(format_duration(999'960), "1.00 ms");       // not "1000.0 µs"
  EXPECT_EQ(format_duration(99'996), "100.0 \u00b5s");  // not "100.00 µs"
}

TEST(ReportUnitsFormatDuration, NegativeAndUndefined) {
  EXPECT_EQ(format_duration(-1'500), "-1.50 \u00b5s");
  EXPECT_EQ(format_duration(std::numeric_limits<double>::quiet_NaN()), "-");
  EXPECT_EQ(format_duration(std::numeric_limits<double>::infinity()), "-");
}

TEST(ReportUnitsFormatBytes, DecimalUnitsLikeNsys) {
  EXPECT_EQ(format_bytes(0), "0 B");
  EXPECT_EQ(format_bytes(512), "512 B");
  EXPECT_EQ(format_bytes(16'384), "16.38 KB");
  EXPECT_EQ(format_bytes(41'967'624), "41.97 MB");
  EXPECT_EQ(format_bytes(268'435'456), "268.44 MB");
  EXPECT_EQ(format_bytes(85'520'809'984), "85.52 GB");
  EXPECT_EQ(format_bytes(999'999), "1.00 MB");  // not "1000.00 KB"
}

TEST(ReportUnitsFormatBandwidth, DecimalPerSecond) {
  EXPECT_EQ(format_bandwidth(15.0e9), "15.0 GB/s");
  EXPECT_EQ(format_bandwidth(13.78e9), "13.8 GB/s");
  EXPECT_EQ(format_bandwidth(3.35232e12), "3.35 TB/s");
  EXPECT_EQ(format_bandwidth(812.5e6), "812.5 MB/s");
  EXPECT_EQ(format_bandwidth(100), "100 B/s");
}

TEST(ReportUnitsFormatPercent, PrecisionFollowsMagnitude) {
  EXPECT_EQ(format_percent(0), "0.0%");
  EXPECT_EQ(format_percent(0.004), "<0.01%");
  EXPECT_EQ(format_percent(0.29), "0.29%");
  EXPECT_EQ(format_percent(0.999), "1.0%");
  EXPECT_EQ(format_percent(89.4), "89.4%");
  EXPECT_EQ(format_percent(100), "100.0%");
}

TEST(ReportUnitsFormatCount, ThousandsSeparators) {
  EXPECT_EQ(format_count(0), "0");
  EXPECT_EQ(format_count(999), "999");
  EXPECT_EQ(format_count(1'000), "1,000");
  EXPECT_EQ(format_count(524'288), "524,288");
  EXPECT_EQ(format_count(1'234'567), "1,234,567");
  EXPECT_EQ(format_count(-4'096), "-4,096");
}

TEST(ReportUnitsFormatPlain, IntegersWithoutSeparators) {
  EXPECT_EQ(format_plain(4242), "4242");
  EXPECT_EQ(format_plain(1.5), "1.50");
}

TEST(ReportUnitsFormatValue, DispatchesOnUnit) {
  EXPECT_EQ(format_value({615'837, Unit::Ns}), "615.8 \u00b5s");
  EXPECT_EQ(format_value({41'967'624, Unit::Bytes}), "41.97 MB");
  EXPECT_EQ(format_value({15e9, Unit::BytesPerSecond}), "15.0 GB/s");
  EXPECT_EQ(format_value({89.4, Unit::Percent}), "89.4%");
  EXPECT_EQ(format_value({1'024, Unit::Count}), "1,024");
  EXPECT_EQ(format_value({1'024, Unit::Plain}), "1024");
  EXPECT_STREQ(unit_name(Unit::Ns), "ns");
  EXPECT_STREQ(unit_name(Unit::BytesPerSecond), "bytes/s");
}

}  // namespace
}  // namespace gpuscope::report

// `gpuscope check`'s output: the gates' outcomes (gpuscope/check.h) as a report in any format, and
// as JUnit XML for CI systems (src/report/check_report.cpp).
#pragma once

#include <string>

#include "gpuscope/check.h"
#include "gpuscope/report.h"

namespace gpuscope::check {

// Text or markdown summary (JSON too) through the shared report renderers.
std::string render_check(const CheckResult& result, const ReportFormat& format);
// JUnit XML: one <testsuite>, one <testcase> per outcome, <failure> when it failed.
std::string render_junit(const CheckResult& result);

}  // namespace gpuscope::check

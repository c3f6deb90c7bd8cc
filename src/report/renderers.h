// Renderers lay out a report model; they compute nothing. Each returns the
// whole document as one string ending in a newline.
#pragma once

#include <string>

#include "gpuscope/report.h"
#include "report/model.h"

namespace gpuscope::report {

// The text renderer aims at this many columns; long identifiers are shortened.
inline constexpr size_t kTextWidth = 120;

std::string render_text(const Report& report);
std::string render_markdown(const Report& report);
std::string render_json(const Report& report);
// One self-contained page; draws report.timeline when the model carries one (html_renderer.cpp).
std::string render_html(const Report& report);

// The renderer for a format (gpuscope/report.h's ReportFormat).
std::string render_as(const Report& report, const ReportFormat& format);

}  // namespace gpuscope::report

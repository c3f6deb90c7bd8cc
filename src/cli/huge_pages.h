// The analysis commands' memory policy: blocks of 4 MiB or more on transparent huge pages
// (huge_pages.cpp says why). The gpuscope executable's operator new applies it; this sets the
// malloc threshold it relies on, first thing in main.
#pragma once

namespace gpuscope::cli {

void use_huge_pages_for_large_blocks();

}  // namespace gpuscope::cli

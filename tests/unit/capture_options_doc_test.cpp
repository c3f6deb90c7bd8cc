// docs/cli.md's table of capture options is the option table's own (capture/option_docs.h), and
// the commands take exactly the options the table gives them.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "capture/option_docs.h"

namespace gpuscope::capture {
namespace {

constexpr const char* kBegin = "<!-- capture options: from src/capture/options.cpp, checked by a test -->\n";
constexpr const char* kEnd = "<!-- end of capture options -->";

TEST(CaptureOptionDocs, CliMdHoldsTheTable) {
  std::ifstream in(std::string(GPUSCOPE_DOCS_DIR) + "/cli.md");
  ASSERT_TRUE(in) << "docs/cli.md";
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  const size_t begin = doc.find(kBegin), end = doc.find(kEnd);
  ASSERT_NE(begin, std::string::npos) << "docs/cli.md lacks the marker " << kBegin;
  ASSERT_NE(end, std::string::npos) << "docs/cli.md lacks the marker " << kEnd;
  const std::string expected = capture_options_markdown();
  EXPECT_EQ(doc.substr(begin + std::string(kBegin).size(), end - begin - std::string(kBegin).size()), expected)
      << "put this between the markers in docs/cli.md:\n"
      << expected;
}

TEST(CaptureOptionDocs, EveryOptionTheCommandsTakeHasHelp) {
  for (const OptionSpec& spec : capture_option_table()) {
    EXPECT_GT(std::string(spec.help).size(), 10u) << spec.name;
    const bool value = spec.type != OptionType::Switch && spec.scope != OptionScope::LibraryOnly;
    if (value) {
      EXPECT_GT(std::string(spec.value_name).size(), 0u) << spec.name;
    }
  }
}

}  // namespace
}  // namespace gpuscope::capture

#include "config/variant_selection.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/error.h"

namespace kbisect {
namespace {

Scenario with_variants(const std::vector<std::string>& names) {
  Scenario scenario;
  scenario.source_file = "s.yaml";
  for (const auto& name : names) {
    Variant variant;
    variant.name = name;
    scenario.workload.variants.push_back(variant);
  }
  return scenario;
}

std::vector<std::string> names_of(const std::vector<const Variant*>& variants) {
  std::vector<std::string> names;
  for (const Variant* variant : variants) names.push_back(variant ? variant->name : "(default)");
  return names;
}

TEST(FindVariant, ByNameOrTheDefault) {
  Scenario scenario = with_variants({"lock", "nolock"});
  EXPECT_EQ(find_variant(scenario, ""), nullptr);
  EXPECT_EQ(find_variant(scenario, "nolock"), &scenario.workload.variants[1]);
  try {
    find_variant(scenario, "nolok");
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "s.yaml has no variant 'nolok'; its variants: lock, nolock");
  }
}

TEST(SelectVariants, ANameSelectsItsMatrixCellsInOrder) {
  Scenario scenario = with_variants(
      {"report,BS=4k", "report,BS=1m", "short,BS=4k", "short,BS=1m", "short", "shorter,BS=4k"});
  EXPECT_EQ(names_of(select_variants(scenario, {})), std::vector<std::string>{"(default)"});
  EXPECT_EQ(names_of(select_variants(scenario, {"report"})),
            (std::vector<std::string>{"report,BS=4k", "report,BS=1m"}));
  // An exact name wins over the cells that start with it.
  EXPECT_EQ(names_of(select_variants(scenario, {"short"})), std::vector<std::string>{"short"});
  EXPECT_EQ(names_of(select_variants(scenario, {"short,BS=1m", "report,BS=4k"})),
            (std::vector<std::string>{"short,BS=1m", "report,BS=4k"}));
  EXPECT_THROW(select_variants(scenario, {"rep"}), Error);
  EXPECT_THROW(select_variants(scenario, {"report,BS=2m"}), Error);
}

}  // namespace
}  // namespace kbisect

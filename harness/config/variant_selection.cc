#include "config/variant_selection.h"

#include "common/error.h"

namespace kbisect {

const Variant* find_variant(const Scenario& scenario, const std::string& name) {
  if (name.empty()) return nullptr;
  std::string known;
  for (const auto& variant : scenario.workload.variants) {
    if (variant.name == name) return &variant;
    known += (known.empty() ? "" : ", ") + variant.name;
  }
  fail("{} has no variant '{}'; its variants: {}", scenario.source_file.string(), name,
       known.empty() ? "none" : known);
}

std::vector<const Variant*> select_variants(const Scenario& scenario,
                                            const std::vector<std::string>& names) {
  if (names.empty()) return {nullptr};
  std::vector<const Variant*> selected;
  for (const std::string& name : names) {
    size_t before = selected.size();
    for (const auto& variant : scenario.workload.variants) {
      if (variant.name == name) {
        selected.push_back(&variant);
        break;
      }
    }
    if (selected.size() > before) continue;
    for (const auto& variant : scenario.workload.variants) {
      if (variant.name.starts_with(name + ",")) selected.push_back(&variant);
    }
    if (selected.size() == before) find_variant(scenario, name);  // throws, listing the variants
  }
  return selected;
}

}  // namespace kbisect

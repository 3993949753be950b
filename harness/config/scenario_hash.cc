#include "config/scenario_hash.h"

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/sha256.h"

namespace kbisect {
namespace {

// What a file contributes: its content, so editing a job file or a fragment changes the
// hash while moving the checkout does not.
std::string file_identity(const std::filesystem::path& file) {
  if (!std::filesystem::exists(file)) {
    fail("cannot read {} to hash the scenario; check that it exists", file.string());
  }
  return sha256_file_hex(file);
}

nlohmann::json variant_json(const Variant& variant) {
  nlohmann::json out = {{"name", variant.name}, {"vars", variant.vars}};
  if (variant.mount_options) out["mount_options"] = *variant.mount_options;
  if (variant.filesystem) out["filesystem"] = static_cast<int>(*variant.filesystem);
  return out;
}

}  // namespace

std::string scenario_hash(const Scenario& s) {
  // nlohmann::json objects keep keys sorted, so the dump is canonical. Bump "version" when
  // the meaning of a field changes.
  nlohmann::json fragments = nlohmann::json::array();
  for (const auto& fragment : s.kernel.fragments) fragments.push_back(file_identity(fragment));
  bool base_is_file = !is_kconfig_target(s.kernel.base_config);
  nlohmann::json jobs = nlohmann::json::array();
  for (const auto& job : s.workload.job_files) jobs.push_back(file_identity(job));
  nlohmann::json variants = nlohmann::json::array();
  for (const Variant& variant : s.workload.variants) variants.push_back(variant_json(variant));

  nlohmann::json identity = {
      {"version", 1},
      {"kernel",
       {{"base_config", base_is_file ? file_identity(s.kernel.base_config) : s.kernel.base_config},
        {"fragments", fragments},
        {"cmdline_extra", s.kernel.cmdline_extra}}},
      {"vm",
       {{"runner", static_cast<int>(s.vm.runner)},
        {"vcpus", s.vm.vcpus},
        {"memory_mib", s.vm.memory_mib},
        {"pinning", s.vm.vcpu_pinning}}},
      {"device",
       {{"kind", static_cast<int>(s.device.kind)},
        {"size_bytes", s.device.size_bytes},
        {"pci_address", s.device.pci_address}}},
      {"filesystem",
       {{"kind", static_cast<int>(s.filesystem.kind)},
        {"mkfs_options", s.filesystem.mkfs_options},
        {"mount_options", s.filesystem.mount_options}}},
      {"workload", {{"jobs", jobs}, {"vars", s.workload.vars}, {"variants", variants}}},
  };
  if (s.vm.runner == RunnerKind::kSim) {
    nlohmann::json changes = nlohmann::json::array();
    for (const auto& change : s.sim.changes) changes.push_back({change.commit, change.factor});
    nlohmann::json outcomes = nlohmann::json::array();
    for (const auto& outcome : s.sim.outcomes)
      outcomes.push_back({outcome.commit, outcome.outcome});
    identity["sim"] = {{"seed", s.sim.seed},
                       {"base", s.sim.base},
                       {"noise", static_cast<int>(s.sim.noise)},
                       {"cv", s.sim.cv},
                       {"mode2", s.sim.mode2},
                       {"p2", s.sim.p2},
                       {"drift_per_sample", s.sim.drift_per_sample},
                       {"changes", changes},
                       {"outcomes", outcomes}};
    // Only when set, so that the sessions of scenarios written before it keep their hash.
    if (s.sim.drift_until > 0) identity["sim"]["drift_until"] = s.sim.drift_until;
  }
  return sha256_hex(identity.dump());
}

}  // namespace kbisect

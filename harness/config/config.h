// Loading a scenario from its YAML file (layout and defaults: configs/example.yaml).
// Every problem is an Error that names file:line:column and the key ("x.yaml:7:11:
// vm.memory: expected a size such as 512M or 2G, got '2 gigs'").
#pragma once

#include <filesystem>

#include "config/scenario.h"
#include "config/scenario_hash.h"  // scenario_hash(), the store's config_hash

namespace kbisect {

// Parses and validates `file`. Relative paths in it resolve against the file's directory;
// files the scenario reads (kernel config fragments, a base .config, job files) must exist.
Scenario load_scenario(const std::filesystem::path& file);

// Moves the scenario's workdir to `workdir` (--workdir), and with it every path the config left
// to its default place under the old one: build.cache_dir and an emulated device's image.
void move_workdir(Scenario& scenario, const std::filesystem::path& workdir);

// The scenario's file as a session keeps it: absolute and without ./ or ../, so the report's
// commands work from anywhere.
std::string stored_config_path(const Scenario& scenario);

}  // namespace kbisect

#include "build/configure.h"

#include <fmt/format.h>

#include "build/build_log.h"
#include "build/kconfig.h"
#include "build/kconfig_deps.h"
#include "build/leftover_make.h"
#include "common/error.h"
#include "common/file.h"
#include "common/process.h"
#include "config/scenario.h"

namespace kbisect {
namespace fs = std::filesystem;
namespace {

constexpr const char* kArch = "x86";

// Runs one Kconfig make target in the config directory; false (with the log) on failure.
bool run_kconfig(const ConfigRequest& request, const std::string& target, ConfigResult& result) {
  std::vector<std::string> argv = {"make", "-C", fs::absolute(request.source_dir).string(),
                                   "O=" + fs::absolute(request.config_dir).string()};
  argv.insert(argv.end(), request.make_variables.begin(), request.make_variables.end());
  argv.push_back(target);
  ProcessOptions options;
  options.log_file = request.config_dir / (target + ".log");
  options.extra_environment = request.environment;
  options.removed_environment = request.removed_environment;
  options.timeout = request.timeout;
  MakeGroupNote group_note(request.config_dir);
  options.on_start = [&](int group) { group_note.note(group); };
  ProcessResult run = run_process(argv, options);
  if (run.timed_out) {
    fail("{} timed out after {} s; raise build.timeout in the config", describe_command(argv),
         request.timeout.count());
  }
  if (run.ok()) return true;
  std::string log = read_file(options.log_file);
  if (std::string machine = machine_failure(log); !machine.empty()) {
    fail("{} failed: the kernel build {}", describe_command(argv), machine);
  }
  result.log = options.log_file;
  result.log_tail = summarize_build_log(log);
  return false;
}

KernelConfig load_fragment(const fs::path& path) {
  if (!fs::is_regular_file(path)) {
    fail("kernel config fragment {} does not exist; fix kernel.fragments in the config",
         path.string());
  }
  return KernelConfig::load(path.string());
}

bool from_file(const KconfigEntry& entry, const fs::path& file) {
  return entry.origin.starts_with(file.string() + ":");
}

[[noreturn]] void fail_missing(const ConfigRequest& request,
                               const std::vector<MissingOption>& missing,
                               const KernelConfig& final_config) {
  std::vector<std::string> symbols;
  for (const MissingOption& option : missing) symbols.push_back(option.required.symbol);
  std::map<std::string, std::string> reasons =
      explain_missing(request.source_dir, kArch, symbols, final_config);
  std::string lines;
  for (const MissingOption& option : missing) {
    lines += fmt::format("\n  {}={} ({}): {}", option.required.symbol, option.required.value,
                         option.required.origin,
                         option.actual == "n" ? "not set" : "is " + option.actual);
    if (auto reason = reasons.find(option.required.symbol); reason != reasons.end()) {
      lines += "; " + reason->second;
    }
  }
  fail(
      "after make olddefconfig the kernel config lacks {} option(s) the guest needs:{}\n"
      "add the missing dependencies to a config fragment (kernel.fragments) or use a base "
      "config that provides them",
      missing.size(), lines);
}

}  // namespace

ConfigResult configure_kernel(const ConfigRequest& request) {
  std::error_code error;
  fs::create_directories(request.config_dir, error);
  if (error) fail("cannot create {}: {}", request.config_dir.string(), error.message());
  const fs::path dot_config = request.config_dir / ".config";
  ConfigResult result;
  result.config = dot_config;

  KernelConfig merged;
  fs::path base_file = request.base;
  if (is_kconfig_target(request.base)) {
    if (!run_kconfig(request, request.base, result)) return result;
    base_file = dot_config;
  } else if (!fs::is_regular_file(base_file)) {
    fail(
        "base kernel config '{}' is neither tinyconfig, defconfig, allnoconfig nor an existing "
        "file; fix kernel.base_config in the config",
        request.base);
  }
  merged = KernelConfig::load(base_file.string());
  // Fragments and the guest's options override the base silently (that is their purpose);
  // overriding what an earlier fragment asked for deserves a warning.
  for (const fs::path& fragment : request.fragments) {
    for (const KconfigOverride& change : merged.merge(load_fragment(fragment))) {
      if (!from_file(change.previous, base_file)) result.warnings.push_back(describe(change));
    }
  }
  KernelConfig guest;
  for (const fs::path& required : request.guest_configs) guest.merge(load_fragment(required));
  for (const KconfigOverride& change : merged.merge(guest)) {
    if (!from_file(change.previous, base_file)) result.warnings.push_back(describe(change));
  }

  write_file(dot_config, merged.render());
  if (!run_kconfig(request, "olddefconfig", result)) return result;

  KernelConfig final_config = KernelConfig::load(dot_config.string());
  std::vector<MissingOption> missing = find_missing(guest, final_config);
  if (!missing.empty()) fail_missing(request, missing, final_config);
  for (const KconfigEntry& entry : merged.entries()) {
    if (from_file(entry, base_file) || final_config.value(entry.symbol) == entry.value) continue;
    result.warnings.push_back(fmt::format("{}: {}={} did not hold after olddefconfig (it is {})",
                                          entry.origin, entry.symbol, entry.value,
                                          final_config.value(entry.symbol)));
  }
  result.ok = true;
  return result;
}

}  // namespace kbisect
